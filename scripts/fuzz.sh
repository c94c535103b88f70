#!/usr/bin/env bash
# Fuzzes every libFuzzer target of a build configured with -DXSF_FUZZ=ON.
#
#   scripts/fuzz.sh BUILD_DIR [--seconds S] [--jobs J] [--only NAME] [--keep-seeds]
#
# The targets are the ones the build lists in BUILD_DIR/fuzz-targets.tsv
# (name, program, seed folder, fewest executions, share of the time; see
# tests/fuzz/CMakeLists.txt); the script fails when a listed program is
# missing or when the build made a fuzz_* program that the list does not
# name, so that no target is built and never fuzzed.
#
# Time: S seconds of fuzzing in all (default 720: $XSF_FUZZ_SECONDS), shared
# among the targets by their share, J targets at a time (default 2), each
# with its own libFuzzer process. A target fails when it crashes, leaks,
# times out on an input, or runs fewer executions than its stated minimum
# (scaled down in proportion when S is below the default: a short run on a
# fast machine still has to do its part).
#
# Corpus: each target's inputs that reached new coverage are kept in
# .fuzz-corpus/NAME/ at the top of the tree (ignored by git), and every run
# starts from them and the committed seeds, so coverage grows from run to
# run on a machine that keeps its tree. --keep-seeds then merges that corpus
# into tests/fuzz/corpus/NAME/, keeping only the inputs that reach edges the
# committed seeds do not (libFuzzer -merge=1 without hit counts): to commit
# after a long run.
#
# Prints a table: executions, executions per second, the minimum, coverage
# (edges "cov" and features "ft") from the seeds alone and at the end, and
# the corpus size. Crash inputs go to BUILD_DIR/fuzz-artifacts/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fuzz.sh BUILD_DIR [--seconds S] [--jobs J] [--only NAME] [--keep-seeds]}
shift
default_seconds=720
seconds=${XSF_FUZZ_SECONDS:-$default_seconds} jobs=2 only= keep=0
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --keep-seeds) keep=1; shift ;;
    *) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -d "$build" ] || { echo "fuzz.sh: no build folder $build" >&2; exit 2; }
build=$(cd "$build" && pwd)
list=$build/fuzz-targets.tsv
[ -f "$list" ] || { echo "fuzz.sh: no $list (configure with -DXSF_FUZZ=ON)" >&2; exit 2; }

names=() exes=() seeds=() mins=() shares=()
while IFS=$'\t' read -r name exe seed min share; do
    [ -z "$only" ] || [ "$name" = "$only" ] || continue
    names+=("$name") exes+=("$exe") seeds+=("$seed") mins+=("$min") shares+=("$share")
done <"$list"
[ ${#names[@]} -gt 0 ] || { echo "fuzz.sh: no target in $list${only:+ named $only}" >&2; exit 2; }

# The list and the programs built must be the same set.
fail=0
for exe in "${exes[@]}"; do
    [ -x "$exe" ] || { echo "fuzz.sh: $exe is listed but was not built" >&2; fail=1; }
done
if [ -z "$only" ]; then
    while read -r exe; do
        grep -q "	$exe	" "$list" || { echo "fuzz.sh: $exe was built but is not listed" >&2; fail=1; }
    done < <(find "$build" -type f -name 'fuzz_*' -perm -u+x -not -path '*/CMakeFiles/*' | sort)
    echo "fuzz.sh: ${#names[@]} targets listed and built: ${names[*]}"
fi
[ $fail -eq 0 ] || exit 1

total_share=0
for s in "${shares[@]}"; do total_share=$((total_share + s)); done
mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"

# fuzz_one I: runs target I for its share of the time; its log is
# BUILD/fuzz-logs/NAME.log.
fuzz_one() {
    local i=$1 name=${names[$1]}
    local t=$((seconds * shares[i] / total_share))
    [ $t -ge 5 ] || t=5
    local corpus=$root/.fuzz-corpus/$name
    mkdir -p "$corpus"
    local rc=0
    "${exes[i]}" -max_total_time="$t" -timeout=20 -rss_limit_mb=2560 -print_final_stats=1 \
        -artifact_prefix="$build/fuzz-artifacts/$name-" "$corpus" "${seeds[i]}" \
        >"$build/fuzz-logs/$name.log" 2>&1 || rc=$?
    echo $rc >"$build/fuzz-logs/$name.rc"
}

echo "fuzz.sh: $seconds s of fuzzing in all, $jobs at a time"
# Each target's exit status goes to a file: bash forgets a background job's
# status once `jobs` has reported it finished.
rcs=()
for i in "${!names[@]}"; do
    rm -f "$build/fuzz-logs/${names[i]}.rc"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    fuzz_one "$i" &
done
wait
for i in "${!names[@]}"; do
    rcs[i]=$(cat "$build/fuzz-logs/${names[i]}.rc" 2>/dev/null || echo 1)
done

# field LOG KEY: the number after "KEY: " in the last line that has it.
field() { grep -o "$2: [0-9]*" "$1" | tail -n 1 | awk '{ print $2 }'; }
printf '\n%-22s %6s %10s %8s %9s %6s %6s %6s %6s %8s  %s\n' target s execs exec/s minimum \
    cov0 cov ft0 ft corpus result
failed=0
for i in "${!names[@]}"; do
    name=${names[i]} log=$build/fuzz-logs/${names[i]}.log
    t=$((seconds * shares[i] / total_share))
    [ $t -ge 5 ] || t=5
    execs=$(awk '/^stat::number_of_executed_units:/ { print $2 }' "$log")
    rate=$(awk '/^stat::average_exec_per_sec:/ { print $2 }' "$log")
    init=$(grep -m1 -E 'INITED|INIT ' "$log" || true)
    cov0=$(grep -o 'cov: [0-9]*' <<<"$init" | awk '{ print $2 }')
    ft0=$(grep -o 'ft: [0-9]*' <<<"$init" | awk '{ print $2 }')
    cov=$(field "$log" cov) ft=$(field "$log" ft)
    corp=$(find "$root/.fuzz-corpus/$name" -type f | wc -l)
    # The minimum, scaled to a run shorter than the default.
    min=${mins[i]}
    [ "$seconds" -ge $default_seconds ] || min=$((min * seconds / default_seconds))
    result=ok
    if [ "${rcs[i]}" -ne 0 ]; then
        result="FAILED (exit ${rcs[i]}: crash, leak or timeout; see $log)"
    elif [ -z "$execs" ] || [ "$execs" -lt "$min" ]; then
        result="FAILED (fewer executions than $min)"
    fi
    [ "$result" = ok ] || failed=$((failed + 1))
    printf '%-22s %6s %10s %8s %9s %6s %6s %6s %6s %8s  %s\n' "$name" "$t" "${execs:-?}" \
        "${rate:-?}" "$min" "${cov0:-?}" "${cov:-?}" "${ft0:-?}" "${ft:-?}" "$corp" "$result"
done
for i in "${!names[@]}"; do
    [ "${rcs[i]}" -eq 0 ] && continue
    echo
    echo "${names[i]}: the end of its log (${build}/fuzz-logs/${names[i]}.log):"
    tail -n 30 "$build/fuzz-logs/${names[i]}.log"
    ls "$build/fuzz-artifacts/${names[i]}"-* 2>/dev/null || true
done

if [ $keep -eq 1 ]; then
    # Merge into a copy of the committed seeds; what the merge adds is new coverage.
    for i in "${!names[@]}"; do
        name=${names[i]} tmp=$(mktemp -d)
        cp -r "${seeds[i]}/." "$tmp/"
        before=$(find "$tmp" -type f | wc -l)
        # Edges only (no hit counts): the seeds that reach new code, a corpus
        # small enough to commit.
        "${exes[i]}" -merge=1 -use_counters=0 -rss_limit_mb=2560 "$tmp" "$root/.fuzz-corpus/$name" \
            >/dev/null 2>&1
        mkdir -p "$root/tests/fuzz/corpus/$name"
        added=0
        for f in "$tmp"/*; do
            b=$(basename "$f")
            [ -e "${seeds[i]}/$b" ] && continue
            cp "$f" "$root/tests/fuzz/corpus/$name/$b"
            added=$((added + 1))
        done
        echo "fuzz.sh: $name: $added inputs added to tests/fuzz/corpus/$name ($before seeds before)"
        rm -rf "$tmp"
    done
fi
echo "fuzz.sh: ${#names[@]} targets, $failed failed"
[ $failed -eq 0 ]
