#!/usr/bin/env bash
# The whole test suite, in three passes (about 25 minutes on 2 cores, a
# 60-second soak and 12 minutes of fuzzing among them, with the CUDA
# kernels compiled where nvcc is found):
#   1. build-test/  gcc, warnings as errors, every target (CUDA when nvcc is
#                   found); ctest. Without a GPU the tests labelled gpu skip
#                   (exit 77) and are reported as skipped; the CUDA kernels'
#                   logic is checked by the tests labelled emulated instead.
#   2. build-asan/  clang with AddressSanitizer and UndefinedBehaviorSanitizer,
#                   no CUDA, no benchmarks; ctest without the tests labelled
#                   gpu (they need the CUDA that this pass leaves out; the
#                   report says how many were left out)
#   3. build-fuzz/  every libFuzzer target the build lists (clang, ASan,
#                   UBSan), fuzzed by scripts/fuzz.sh for XSF_FUZZ_SECONDS in
#                   all from the kept corpus (.fuzz-corpus/) and the seeds;
#                   each must reach its stated number of executions
# Installs missing packages first (scripts/install-deps.sh) and checks the
# formatting (scripts/check-format.sh). For each pass it
# prints passed, failed and skipped, the skipped tests by label with their
# reasons (scripts/ctest-report.py), and whether every gpu test was skipped;
# the last line is "total: N passed, N failed, N skipped". Exits non-zero
# when anything failed. A skipped test is never counted as passed.
#
# Environment: XSF_FUZZ_SECONDS (total fuzzing time, default 720), JOBS
# (parallel jobs, default nproc), XSF_CUDA (pass 1: AUTO, ON or OFF; default
# AUTO), SKIP_INSTALL=1 (do not look for missing packages).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${JOBS:-$(nproc)}
fuzz_seconds=${XSF_FUZZ_SECONDS:-720}
[ "${SKIP_INSTALL:-0}" = 1 ] || bash scripts/install-deps.sh
# Formatting first: every C and CUDA file as .clang-format says.
bash scripts/check-format.sh

cc_sanitize=clang
command -v clang >/dev/null 2>&1 || cc_sanitize=gcc

summary=()
total_passed=0
total_failed=0
total_skipped=0
gpu_ran=0
start=$SECONDS

banner() {
    printf '\n==== %s (%d s so far) ====\n' "$1" $((SECONDS - start))
}

# configure DIR ARGS...: a fresh configuration of the tree into DIR.
configure() {
    local dir=$1
    shift
    rm -rf "$dir"
    cmake -S . -B "$dir" "$@"
}

# run_ctest NAME DIR CTEST-ARGS...: runs ctest, reports what it did
# (scripts/ctest-report.py: passed, failed, skipped by label and why) and
# adds its counts to the totals. A run with no test counts as a failure.
run_ctest() {
    local name=$1 dir=$2
    shift 2
    local excluded=()
    [ "${1:-}" != -LE ] || excluded=(--excluded "$2")
    local log=$dir/ctest.log junit=$PWD/$dir/ctest-junit.xml rc=0
    rm -f "$junit"
    (cd "$dir" && ctest --output-on-failure -j"$jobs" --output-junit "$junit" "$@") 2>&1 | tee "$log" || rc=$?
    if [ ! -s "$junit" ]; then
        summary+=("$name: no test ran (ctest exit status $rc)")
        total_failed=$((total_failed + 1))
        return
    fi
    local report counts passed failed skipped gpu
    report=$(python3 scripts/ctest-report.py "$dir" "$junit" --name "$name" "${excluded[@]}")
    counts=$(tail -n 1 <<<"$report")
    read -r _ passed failed skipped gpu <<<"$counts"
    if [ $((passed + failed + skipped)) -eq 0 ]; then
        failed=1
    fi
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
        failed=1 # ctest failed for another reason
        report="$report
    ctest exit status $rc with no failed test"
    fi
    gpu_ran=$((gpu_ran + gpu))
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    total_skipped=$((total_skipped + skipped))
    printf '\n%s\n' "$(sed '$d' <<<"$report")"
    summary+=("$(sed '$d' <<<"$report")")
}

# ---- 1. gcc, -Werror ----
banner "1/3 gcc, warnings as errors"
configure build-test -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Release -DXSF_WERROR=ON \
    -DXSF_CUDA="${XSF_CUDA:-AUTO}"
cmake --build build-test -j"$jobs"
run_ctest "gcc -Werror" build-test

# ---- 2. sanitizers ----
banner "2/3 $cc_sanitize, AddressSanitizer + UndefinedBehaviorSanitizer"
configure build-asan -DCMAKE_C_COMPILER="$cc_sanitize" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DXSF_WERROR=ON -DXSF_SANITIZE=address,undefined -DXSF_CUDA=OFF -DXSF_BENCH=OFF
cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run_ctest "$cc_sanitize ASan+UBSan" build-asan -LE gpu

# ---- 3. libFuzzer ----
banner "3/3 libFuzzer targets, ${fuzz_seconds} s in all"
if [ "$cc_sanitize" != clang ]; then
    summary+=("libFuzzer: not run (no clang)")
    total_failed=$((total_failed + 1))
else
    configure build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DXSF_FUZZ=ON -DXSF_SANITIZE=address,undefined -DXSF_CUDA=OFF -DXSF_BENCH=OFF
    cmake --build build-fuzz -j"$jobs" --target xsf_fuzz_all
    fuzz_rc=0
    bash scripts/fuzz.sh build-fuzz --seconds "$fuzz_seconds" --jobs "$jobs" | tee build-fuzz/fuzz.log ||
        fuzz_rc=$?
    targets=$(awk -F'\t' 'END { print NR }' build-fuzz/fuzz-targets.tsv)
    fuzz_failed=$(grep -c ' FAILED (' build-fuzz/fuzz.log || true)
    if [ "$fuzz_rc" -ne 0 ] && [ "$fuzz_failed" -eq 0 ]; then
        fuzz_failed=1 # the list and the build disagree, or the script failed
    fi
    total_passed=$((total_passed + targets - fuzz_failed))
    total_failed=$((total_failed + fuzz_failed))
    summary+=("libFuzzer: $((targets - fuzz_failed)) passed, $fuzz_failed failed, 0 skipped (of $targets targets, $fuzz_seconds s in all)")
fi

printf '\n==== summary (%d s) ====\n' $((SECONDS - start))
for line in "${summary[@]}"; do
    echo "$line"
done
if [ $gpu_ran -eq 0 ]; then
    echo "GPU: every test labelled gpu was skipped: no CUDA code ran on a GPU (run scripts/device-check.sh on a GPU machine)"
fi
echo "total: $total_passed passed, $total_failed failed, $total_skipped skipped"
[ "$total_failed" -eq 0 ]
