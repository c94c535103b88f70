#!/usr/bin/env bash
# The whole test suite, in three passes (about 10 minutes on 2 cores, two
# 60-second soaks among them, with the CUDA kernels compiled where nvcc is
# found):
#   1. build-test/  gcc, warnings as errors, every target (CUDA when nvcc is
#                   found); ctest
#   2. build-asan/  clang with AddressSanitizer and UndefinedBehaviorSanitizer,
#                   no CUDA, no benchmarks; ctest (tests labelled slow or bench
#                   are left out)
#   3. build-fuzz/  the libFuzzer targets of tests/fuzz (clang, ASan, UBSan),
#                   each fuzzed for a share of XSF_FUZZ_SECONDS from its seeds
# Installs missing packages first (scripts/install-deps.sh). Prints each
# ctest summary and a last line "total: N passed, N failed"; exits non-zero
# when anything failed.
#
# Environment: XSF_FUZZ_SECONDS (total fuzzing time, default 60), JOBS
# (parallel jobs, default nproc), XSF_CUDA (pass 1: AUTO, ON or OFF; default
# AUTO), SKIP_INSTALL=1 (do not look for missing packages).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${JOBS:-$(nproc)}
fuzz_seconds=${XSF_FUZZ_SECONDS:-60}
[ "${SKIP_INSTALL:-0}" = 1 ] || bash scripts/install-deps.sh

cc_sanitize=clang
command -v clang >/dev/null 2>&1 || cc_sanitize=gcc

summary=()
total_passed=0
total_failed=0
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

# run_ctest NAME DIR CTEST-ARGS...: runs ctest, keeps its summary line, adds
# its counts to the totals. A run with no test counts as a failure.
run_ctest() {
    local name=$1 dir=$2
    shift 2
    local log=$dir/ctest.log rc=0
    (cd "$dir" && ctest --output-on-failure -j"$jobs" "$@") 2>&1 | tee "$log" || rc=$?
    local line
    line=$(grep -E '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
    if [ -z "$line" ]; then
        summary+=("$name: no test ran (exit status $rc)")
        total_failed=$((total_failed + 1))
        return
    fi
    local failed all
    failed=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
    all=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
    total_passed=$((total_passed + all - failed))
    total_failed=$((total_failed + failed))
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
        total_failed=$((total_failed + 1)) # ctest failed for another reason
        line="$line (ctest exit status $rc)"
    fi
    summary+=("$name: $line")
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
run_ctest "$cc_sanitize ASan+UBSan" build-asan -LE 'slow|bench'

# ---- 3. libFuzzer ----
banner "3/3 libFuzzer targets, ${fuzz_seconds} s in all"
if [ "$cc_sanitize" != clang ]; then
    summary+=("libFuzzer: not run (no clang)")
    total_failed=$((total_failed + 1))
else
    configure build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DXSF_FUZZ=ON -DXSF_SANITIZE=address,undefined -DXSF_CUDA=OFF -DXSF_BENCH=OFF
    cmake --build build-fuzz -j"$jobs" --target xsf_fuzz_all
    mapfile -t targets < <(find build-fuzz/tests/fuzz -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort)
    if [ ${#targets[@]} -eq 0 ]; then
        summary+=("libFuzzer: no target was built")
        total_failed=$((total_failed + 1))
    else
        per=$((fuzz_seconds / ${#targets[@]}))
        [ "$per" -ge 5 ] || per=5
        crashed=0
        mkdir -p build-fuzz/artifacts
        for exe in "${targets[@]}"; do
            name=$(basename "$exe")
            corpus=build-fuzz/corpus/$name
            mkdir -p "$corpus"
            echo "fuzzing $name for $per s (seeds: build-fuzz/tests/fuzz/seeds/$name)"
            if "$exe" -max_total_time="$per" -timeout=20 -rss_limit_mb=2560 -print_final_stats=1 \
                -artifact_prefix="build-fuzz/artifacts/$name-" "$corpus" \
                "build-fuzz/tests/fuzz/seeds/$name" >"build-fuzz/$name.log" 2>&1; then
                grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units)' "build-fuzz/$name.log" | tail -n 2 || true
                total_passed=$((total_passed + 1))
            else
                crashed=$((crashed + 1))
                total_failed=$((total_failed + 1))
                echo "$name FAILED; the end of its log (build-fuzz/$name.log):"
                tail -n 40 "build-fuzz/$name.log"
                ls build-fuzz/artifacts/"$name"-* 2>/dev/null || true
            fi
        done
        summary+=("libFuzzer: ${#targets[@]} targets fuzzed ${per} s each, $crashed failed")
    fi
fi

printf '\n==== summary (%d s) ====\n' $((SECONDS - start))
for line in "${summary[@]}"; do
    echo "$line"
done
echo "total: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
