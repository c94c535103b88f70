#!/usr/bin/env bash
# One call on the GPU machine for the JPEG XS encoder: build the GPU test and
# the benchmark with nvcc and gcc directly (the device image has no libpcap
# or nettle, which the top-level CMake requires), compare the GPU and C
# encoders byte for byte, run compute-sanitizer (memcheck, racecheck) on the
# quick set, then time. A summary goes to $OUT/run.log, each step's whole
# output to its own log there; codestreams that differ go to $OUT/dumps.tar.
#   bash bench/xs_encode/run_device.sh [bench options...]
set -u
OUT=${OUT:-/tmp/xsenc-out}
mkdir -p "$OUT"
R=$(pwd)
B=/tmp/xsenc
LOG="$OUT/run.log"
rm -rf "$B" && mkdir -p "$B/o" "$B/dump"
exec > >(tee -a "$LOG") 2>&1
step() { echo; echo "==== $* ($(date +%T))"; }

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv
nvcc --version | tail -2

step build
NV="nvcc -arch=sm_90 -std=c++17 -O3 -lineinfo -I$R/common -I$R/wavelet -I$R/xs"
CC="gcc -O2 -std=c11 -DXSF_HAVE_CUDA=1 -I$R/common -I$R/wavelet -I$R/xs -I/usr/local/cuda/include"
cd "$B/o" || exit 1
pids=()
for f in "$R"/xs/*.cu "$R"/wavelet/*.cu; do
    $NV -c "$f" -o "cu_$(basename "$f").o" & pids+=($!)
done
for f in "$R"/xs/*.c "$R"/wavelet/*.c "$R"/common/xsf.c; do
    $CC -c "$f" -o "c_$(basename "$f").o" & pids+=($!)
done
ok=1
for p in "${pids[@]}"; do wait "$p" || ok=0; done
[ $ok = 1 ] || { echo "BUILD FAILED"; exit 1; }
ar rcs libxs.a ./*.o
$CC -c "$R/tests/xs_enc/test_xs_enc_gpu.c" -o test.o && nvcc -arch=sm_90 -o test_xs_enc_gpu test.o libxs.a -lm || exit 1
$CC -c "$R/bench/xs_encode/xs_encode_bench.c" -o bench.o && nvcc -arch=sm_90 -o xs_encode_bench bench.o libxs.a -lm || exit 1
cd "$R" || exit 1
echo built

step "GPU encoder = C encoder (full set)"
XSF_DUMP_DIR="$B/dump" timeout 240 "$B/o/test_xs_enc_gpu" "$R/vectors/xs" > "$OUT/test_gpu.log" 2>&1
echo "exit $?"; head -20 "$OUT/test_gpu.log"; tail -3 "$OUT/test_gpu.log"

step "compute-sanitizer memcheck (quick set)"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/o/test_xs_enc_gpu" --quick > "$OUT/memcheck.log" 2>&1
echo "exit $?"; head -30 "$OUT/memcheck.log"; tail -3 "$OUT/memcheck.log"

step "compute-sanitizer racecheck (quick set)"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/o/test_xs_enc_gpu" --quick > "$OUT/racecheck.log" 2>&1
echo "exit $?"; head -30 "$OUT/racecheck.log"; tail -3 "$OUT/racecheck.log"

step "benchmark"
timeout 200 "$B/o/xs_encode_bench" --check "$@" 2>&1
echo "exit $?"

if ls "$B"/dump/* >/dev/null 2>&1; then
    tar -C "$B" -cf "$OUT/dumps.tar" dump
fi
step done
