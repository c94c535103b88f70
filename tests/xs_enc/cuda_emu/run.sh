#!/usr/bin/env bash
# Runs xs/gpu_encoder.cu on the CPU by hand: an emulation of the CUDA
# runtime and of the intrinsics it uses (the threads of a block are fibers,
# warps exchange at their primitives, blocks run one after another; the DWT
# is wavelet/'s C reference), then the
# GPU test test_xs_enc_gpu.c against the C encoder, byte for byte, under
# AddressSanitizer and UndefinedBehaviorSanitizer. It checks the kernels'
# logic and memory accesses where no GPU is at hand (it found the 32-bit
# wrap of the vertical-prediction row offset in enc_pack); it says nothing of
# timing (the quick set: seconds; all of it: minutes).
# The build is CMake's target test_xs_enc_gpu_emulated (tests/xs_enc/
# CMakeLists.txt) on the shared emulation of tests/cuda_emu (every thread a
# fiber), which ctest runs as xs_enc.gpu_emulated with --quick and without
# sanitizers; this script builds it in its own folder with them
# (XSF_CUDA_EMU_SANITIZE) and runs it with other arguments.
#   tests/xs_enc/cuda_emu/run.sh [test arguments: --quick (default), --only tools ...]
#   BUILD=dir for the build folder.
set -e
R=$(cd "$(dirname "$0")/../../.." && pwd)
O=${BUILD:-/tmp/xsenc-emu-$(id -u)}
cmake -S "$R" -B "$O" -DXSF_CUDA=OFF -DXSF_BENCH=OFF -DXSF_CUDA_EMU_SANITIZE=ON >/dev/null
cmake --build "$O" --target test_xs_enc_gpu_emulated -j "$(nproc)"
cd "$R"
[ $# -gt 0 ] || set -- --quick
exec "$O/tests/xs_enc/test_xs_enc_gpu_emulated" "$@"
