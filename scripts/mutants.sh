#!/usr/bin/env bash
# Mutation check: does the CPU test suite notice small, realistic bugs?
#
# Applies the single-line mutations of scripts/mutants.txt one at a time to a
# scratch copy of the tree, rebuilds it incrementally, runs the CPU suite and
# says which mutant no test noticed. Not part of CI (it takes long); run it at
# the end of every issue that touches xs/, rtp/, pipeline/, imgio/,
# display/, gst/ or nmos/, and add a test for every mutant that survives.
#
# Usage: scripts/mutants.sh [--list] [--only ID[,ID...]] [-j N]
#                           [--no-baseline] [--run-timeout SECONDS]
#   --list          print the mutants (id, file, kind, what) and exit
#   --only IDS      run only these mutants (comma-separated ids, as in --list)
#   -j N            build and test jobs (default 2)
#   --no-baseline   skip the unmutated run of the suite (it shows that the
#                   suite passes as it is, else every mutant would look killed)
#   --run-timeout S wall-clock cap of one ctest run (default: three times the
#                   baseline's, at least 300 s; 1800 s without a baseline)
#
# Where it works: build-mutants/src, a copy of the tracked and untracked
# (not ignored) files of this tree, refreshed at each start (changed files
# only, so the build stays incremental), and build-mutants/build, configured
# once: CPU only (XSF_CUDA=OFF), no benchmarks, warnings as errors, Ninja.
# The tree you work in is never written; the mutated file of the copy is put
# back after each mutant, and on exit, Ctrl-C or kill (trap; a shell started
# in the background ignores SIGINT: stop it with SIGTERM). A mutant whose
# ctest run is stopped by a signal is not counted.
#
# The suite: ctest, every test but those labelled gpu (need a GPU), bench
# (benchmarks), soak (60-second timing soaks), emulated (the CUDA kernels run
# on the CPU, 6 minutes: no mutant touches .cu code) and wavelet (they link
# wavelet/ alone, which no mutant touches). First the tests of the
# mutant's folder (its `first:` label regex, else the folder's label; imgio's
# tests carry the label app), then the rest; both with --stop-on-failure.
#
# Results, one per mutant:
#   KILLED    a test failed: the first failing test is named. A test that
#             hangs is killed by its ctest TIMEOUT, and a ctest run that
#             passes --run-timeout is stopped: both count as KILLED (by
#             "timeout"), since a mutant that hangs a test is noticed.
#   SURVIVED  the whole suite passed with the mutant in: write a test.
#   STALE     the `from:` text is not in the file exactly once (or not on
#             its `line:`): the source moved on, update scripts/mutants.txt.
#   INVALID   the mutant does not compile (warnings are errors): replace it.
# Prints a table at the end; exits 0 only when every mutant was KILLED.
#
# Run time: the last line of the output ("run time"). A killed mutant costs
# its rebuild and the tests up to the first failure (5-60 s, a few minutes
# when only a test outside its folder fails); a survivor the whole suite
# (2-4 minutes). Measured at issue 26 on 2 cores shared with other builds,
# the build already configured: all 45 mutants killed, 1088 s (18 minutes;
# the baseline 145 s of it). Before the tests that kill them, the 11
# survivors among the first 38 mutants made that run about 56 minutes.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
list=$root/scripts/mutants.txt
work=$root/build-mutants
src=$work/src
build=$work/build
logs=$work/logs
jobs=2
only=""
do_list=0
baseline=1
run_timeout=""
exclude='gpu|bench|soak|emulated|wavelet'

while [ $# -gt 0 ]; do
    case $1 in
    --list) do_list=1 ;;
    --only) only=$2; shift ;;
    --only=*) only=${1#--only=} ;;
    -j) jobs=$2; shift ;;
    -j*) jobs=${1#-j} ;;
    --no-baseline) baseline=0 ;;
    --run-timeout) run_timeout=$2; shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "mutants.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
    esac
    shift
done

# mut CMD ARGS: the list file's helper (parsing, checking, applying).
#   ids                   every id, one a line (in list order)
#   info ID               file, folder, first label, kind, what: one a line
#   check ID DIR          "ok", or why the mutant is stale
#   apply ID DIR          writes the mutated file into DIR
#   list                  the table of --list
mut() {
    python3 - "$list" "$@" <<'PY'
import os, sys
path, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3:]
blocks, cur = [], {}
for n, raw in enumerate(open(path, encoding="utf-8"), 1):
    line = raw.rstrip("\n")
    if not line.strip():
        if cur: blocks.append(cur); cur = {}
        continue
    if line.lstrip().startswith("#"):
        continue
    key, sep, val = line.partition(":")
    if not sep or key.strip() not in ("id", "file", "line", "from", "to", "kind", "what", "first"):
        sys.exit(f"{path}:{n}: expected 'key: value', found {line!r}")
    cur[key.strip()] = val.lstrip(" ")
if cur: blocks.append(cur)
ids = {}
for b in blocks:
    for k in ("id", "file", "from", "to", "kind", "what"):
        if k not in b: sys.exit(f"{path}: mutant {b.get('id', '?')} has no '{k}:'")
    if b["id"] in ids: sys.exit(f"{path}: id {b['id']} appears twice")
    if b["from"] == b["to"]: sys.exit(f"{path}: mutant {b['id']}: 'to' equals 'from'")
    ids[b["id"]] = b
labels = {"imgio": "app"}
def get(i):
    if i not in ids: sys.exit(f"no mutant '{i}' in {path}")
    return ids[i]
def locate(b, tree):
    """(text, start offset) of the one match, or a string saying why not."""
    f = os.path.join(tree, b["file"])
    if not os.path.isfile(f): return f"{b['file']}: no such file"
    text = open(f, encoding="utf-8").read()
    if "line" in b:
        lines = text.split("\n")
        k = int(b["line"]) - 1
        if k >= len(lines) or lines[k].count(b["from"]) != 1:
            return f"{b['file']}:{b['line']}: the line does not hold the text once"
        return text, sum(len(l) + 1 for l in lines[:k]) + lines[k].index(b["from"])
    c = text.count(b["from"])
    if c != 1: return f"{b['file']}: the text occurs {c} times"
    return text, text.index(b["from"])
if cmd == "ids":
    print("\n".join(ids))
elif cmd == "info":
    b = get(args[0]); folder = b["file"].split("/")[0]
    print(b["file"]); print(folder)
    print(b.get("first", "^(" + labels.get(folder, folder) + ")$"))
    print(b["kind"]); print(b["what"])
elif cmd == "check":
    r = locate(get(args[0]), args[1])
    print(r if isinstance(r, str) else "ok")
elif cmd == "apply":
    b = get(args[0]); r = locate(b, args[1])
    if isinstance(r, str): sys.exit(r)
    text, at = r
    with open(os.path.join(args[1], b["file"]), "w", encoding="utf-8") as out:
        out.write(text[:at] + b["to"] + text[at + len(b["from"]):])
elif cmd == "list":
    for b in ids.values():
        print(f"{b['id']:<12} {b['file']:<24} {b['kind']:<6} {b['what']}")
PY
}

if [ $do_list = 1 ]; then
    mut list
    exit
fi

ids=$(mut ids) || exit 2
if [ -n "$only" ]; then
    for i in ${only//,/ }; do
        grep -qx -- "$i" <<<"$ids" || { echo "mutants.sh: no mutant '$i' (--list)" >&2; exit 2; }
    done
    ids=${only//,/$'\n'}
fi

start=$SECONDS
mkdir -p "$src" "$logs"

# sync_tree: the copy gets the tree's files; a file is written only where its
# content differs (with a fresh time, so that ninja rebuilds what changed);
# files gone from the tree are removed from the copy.
sync_tree() {
    (cd "$root" && git ls-files -z --cached --others --exclude-standard) |
        python3 -c '
import os, sys, shutil
root, dst = sys.argv[1], sys.argv[2]
names = [n for n in sys.stdin.buffer.read().decode().split("\0") if n and os.path.isfile(os.path.join(root, n))]
keep = set(names)
for n in names:
    s, d = os.path.join(root, n), os.path.join(dst, n)
    if os.path.isfile(d):
        with open(s, "rb") as a, open(d, "rb") as b:
            if a.read() == b.read(): continue
    os.makedirs(os.path.dirname(d), exist_ok=True)
    shutil.copyfile(s, d)
    shutil.copymode(s, d)
for top, dirs, files in os.walk(dst):
    for f in files:
        rel = os.path.relpath(os.path.join(top, f), dst)
        if rel not in keep: os.remove(os.path.join(top, f))
' "$root" "$src"
}

# The file currently mutated in the copy, put back from the tree on exit.
mutated=""
restore() {
    if [ -n "$mutated" ]; then
        cp "$root/$mutated" "$src/$mutated"
        mutated=""
    fi
}
trap 'restore' EXIT
trap 'restore; echo; echo "mutants.sh: interrupted" >&2; exit 130' INT TERM

sync_tree || { echo "mutants.sh: cannot copy the tree to $src" >&2; exit 2; }
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -G Ninja -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DXSF_CUDA=OFF \
        -DXSF_BENCH=OFF -DXSF_WERROR=ON >"$logs/configure.log" 2>&1 ||
        { echo "mutants.sh: configure failed: $logs/configure.log" >&2; exit 2; }
fi
if ! ninja -C "$build" -j"$jobs" >"$logs/build-baseline.log" 2>&1; then
    echo "mutants.sh: the unmutated tree does not build: $logs/build-baseline.log" >&2
    exit 2
fi

# run_ctest LOG ARGS...: ctest in the build, stopping at the first failure,
# capped at $run_timeout. Prints the first failing test ("timeout (...)"
# when the cap stopped it) or nothing when every test passed.
run_ctest() {
    local log=$1
    shift
    local rc=0
    (cd "$build" && timeout -k 10 "$run_timeout" ctest -j"$jobs" --stop-on-failure \
        --output-on-failure "$@") >"$log" 2>&1 || rc=$?
    if [ $rc = 130 ] || [ $rc = 143 ]; then
        echo "interrupted"
    elif [ $rc = 124 ] || [ $rc = 137 ]; then
        local last
        last=$(grep -oE 'Start +[0-9]+: [^ ]+' "$log" | tail -n 1 | sed 's/.*: //')
        echo "timeout (run over ${run_timeout}s, last started: ${last:-?})"
    elif [ $rc != 0 ]; then
        local t
        t=$(grep -A1 -E '^The following tests FAILED:' "$log" | tail -n 1 |
            sed -E 's/^[[:space:]]*[0-9]+ - ([^ ]+) \((.*)\)$/\1 (\2)/')
        if grep -qE '\*\*\*Timeout' "$log" && [ -n "$t" ]; then
            t="$t timeout"
        fi
        echo "${t:-ctest exit status $rc, see $log}"
    fi
    return 0
}

if [ $baseline = 1 ]; then
    echo "baseline: the whole CPU suite, unmutated"
    b0=$SECONDS
    given=$run_timeout
    run_timeout=3600
    why=$(run_ctest "$logs/baseline.log" -LE "^($exclude)$")
    if [ -n "$why" ]; then
        echo "mutants.sh: the suite fails unmutated ($why): $logs/baseline.log" >&2
        exit 2
    fi
    t=$((SECONDS - b0))
    echo "baseline: passed in ${t}s"
    run_timeout=${given:-$((3 * t > 300 ? 3 * t : 300))}
fi
run_timeout=${run_timeout:-1800}

declare -a rows=()
survived=0
bad=0
killed=0
for id in $ids; do
    m0=$SECONDS
    mapfile -t info < <(mut info "$id")
    file=${info[0]} first=${info[2]} kind=${info[3]} what=${info[4]}
    result="" by=""
    check=$(mut check "$id" "$src")
    if [ "$check" != ok ]; then
        result=STALE by=$check
    else
        mutated=$file
        mut apply "$id" "$src"
        if ! ninja -C "$build" -j"$jobs" >"$logs/build-$id.log" 2>&1; then
            result=INVALID by="does not compile: $logs/build-$id.log"
        else
            by=$(run_ctest "$logs/test-$id-first.log" -L "$first" -LE "^($exclude)$")
            if [ -z "$by" ]; then
                # ctest's -LE takes one regex: the folder's label joins the excluded ones.
                by=$(run_ctest "$logs/test-$id-rest.log" -LE "${first}|^($exclude)$")
            fi
            if [ "$by" = interrupted ]; then
                restore
                echo "mutants.sh: interrupted during $id (not counted)" >&2
                exit 130
            elif [ -n "$by" ]; then
                result=KILLED
            else
                result=SURVIVED by="no test failed"
            fi
        fi
        restore
    fi
    case $result in
    KILLED) killed=$((killed + 1)) ;;
    SURVIVED) survived=$((survived + 1)) ;;
    *) bad=$((bad + 1)) ;;
    esac
    rows+=("$(printf '%-12s %-8s %-6s %4ss  %s' "$id" "$result" "$kind" $((SECONDS - m0)) "$by")")
    printf '%-12s %-8s %-6s %4ss  %s\n' "$id" "$result" "$kind" $((SECONDS - m0)) "$by"
    [ "$result" = SURVIVED ] && printf '             %s: %s\n' "$file" "$what"
done

# The copy goes back to the tree's state: the next run rebuilds little.
ninja -C "$build" -j"$jobs" >"$logs/build-after.log" 2>&1

echo
echo "==== mutants: $killed killed, $survived survived, $bad stale or invalid ===="
printf '%-12s %-8s %-6s %5s  %s\n' id result kind time "killed by / why"
printf '%s\n' "${rows[@]}"
echo "run time: $((SECONDS - start))s"
[ $survived = 0 ] && [ $bad = 0 ]
