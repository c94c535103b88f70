#!/usr/bin/env bash
# One call on the GPU machine for BPC-PaCo: build the library, the GPU test
# and the benchmark with nvcc and gcc directly (the device image lacks the
# libpcap and nettle the top-level CMake requires), run the GPU test (GPU
# against C, byte for byte), compute-sanitizer (memcheck, racecheck,
# synccheck) on its quick set, then the benchmark. Logs in $OUT.
#   bash bench/bpc/device_run.sh [all|test|bench] [PHOTO.ppm]
# `all` takes about 6-9 minutes on an H100 (build 1-2, GPU test ~1,
# sanitizers 1-2 each, benchmark ~2); `test` and `bench` split it in two calls.
set -u
OUT=${OUT:-/tmp/bpc-out}
mkdir -p "$OUT"
R=$(pwd)
B=/tmp/bpcdev
STAGE=${1:-all}
PHOTO=${2:-}
LOG="$OUT/run.log"
rm -rf "$B" && mkdir -p "$B/o"
exec > >(tee -a "$LOG") 2>&1
step() { echo; echo "==== $* ($(date +%T))"; }

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
nvcc --version | tail -1

step build
INC="-I$R/common -I$R/wavelet -I$R/bpc"
NVW="nvcc -arch=sm_90 -std=c++17 -O3 -lineinfo $INC"
NVB="nvcc -arch=sm_90 -std=c++17 -O3 -lineinfo -fmad=false $INC"
CC="gcc -O3 -std=c11 $INC -I/usr/local/cuda/include"
cd "$B/o" || exit 1
pids=()
for f in "$R"/wavelet/*.cu; do $NVW -c "$f" -o "w_$(basename "$f").o" & pids+=($!); done
for f in "$R"/bpc/*.cu; do
    $NVB -Xptxas -v -c "$f" -o "b_$(basename "$f").o" > "$OUT/ptxas_$(basename "$f" .cu).log" 2>&1 & pids+=($!)
done
for f in "$R"/wavelet/*.c "$R"/common/xsf.c; do $CC -c "$f" -o "c_$(basename "$f").o" & pids+=($!); done
for f in "$R"/bpc/*.c; do
    [ "$(basename "$f")" = gpu_stub.c ] && continue
    $CC -c "$f" -o "b_$(basename "$f").o" & pids+=($!)
done
ok=1
for p in "${pids[@]}"; do wait "$p" || ok=0; done
cat "$OUT"/ptxas_*.log > "$OUT/ptxas.log"; rm -f "$OUT"/ptxas_*.log
[ $ok = 1 ] || { echo "BUILD FAILED"; cat "$OUT/ptxas.log"; exit 1; }
grep -A2 "encode_kernel\|decode_kernel" "$OUT/ptxas.log" | grep -i "registers\|stack"
ar rcs libbpc.a ./*.o
$CC -c "$R/tests/bpc/test_bpc_gpu.c" -o t.o && nvcc -arch=sm_90 -o test_bpc_gpu t.o libbpc.a -lm -lpthread || exit 1
$CC -c "$R/bench/bpc/bpc_bench.c" -o bb.o && nvcc -arch=sm_90 -o bpc_bench bb.o libbpc.a -lm -lpthread || exit 1
cd "$R" || exit 1

if [ "$STAGE" != bench ]; then
step "GPU test (GPU against C)"
timeout 200 "$B/o/test_bpc_gpu" $PHOTO > "$OUT/gpu_test.log" 2>&1
echo "test rc=$?"; grep -v "^  corruption" "$OUT/gpu_test.log" | tail -12

step "compute-sanitizer (quick)"
for tool in memcheck racecheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 "$B/o/test_bpc_gpu" quick > "$OUT/$tool.log" 2>&1
    echo "$tool rc=$?"; tail -2 "$OUT/$tool.log"
done

fi

if [ "$STAGE" != test ]; then
step benchmark
timeout 240 "$B/o/bpc_bench" ${PHOTO:+--photo $PHOTO} > "$OUT/bench.log" 2>&1
echo "bench rc=$?"
cat "$OUT/bench.log"
fi
