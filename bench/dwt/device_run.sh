#!/bin/sh
# One device call for the wavelet core: build (sm_90), GPU tests, compute-
# sanitizer (memcheck + racecheck on the quick matrix), benchmark. Logs go to
# $OUT (or ./dwt-logs). Run from the repository root:
#   sh bench/dwt/device_run.sh
# About 4 minutes on an H100 (the full GPU test checks 8193x4321 against the
# C reference on the CPU).
set -u
OUT=${OUT:-dwt-logs}
mkdir -p "$OUT"
B=build-wav-device
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv | tee "$OUT/smi.txt"
cmake -S . -B $B -DXSF_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build.log" 2>&1 &&
  cmake --build $B -j16 --target test_wavelet_cuda dwt_bench >> "$OUT/build.log" 2>&1 ||
  { echo "build failed"; tail -30 "$OUT/build.log"; exit 1; }
timeout 120 $B/bench/dwt/dwt_bench 30 > "$OUT/bench.log" 2>&1; echo "bench rc=$?"
(cd $B && timeout 300 ctest -R 'wavelet_cuda' --output-on-failure) > "$OUT/ctest.log" 2>&1
echo "ctest rc=$?"; tail -6 "$OUT/ctest.log"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 \
  $B/tests/wavelet/test_wavelet_cuda quick > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$?"; tail -3 "$OUT/memcheck.log"
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 3 \
  $B/tests/wavelet/test_wavelet_cuda quick > "$OUT/racecheck.log" 2>&1
echo "racecheck rc=$?"; tail -3 "$OUT/racecheck.log"
cat "$OUT/bench.log"
