#!/usr/bin/env bash
# Runs xs/gpu_encoder.cu on the CPU by hand: a small emulation of the CUDA
# runtime and of the intrinsics it uses (cxx/cuda_runtime.h: the threads of a
# block are real threads with real barriers, warps exchange through buffers,
# blocks run one after another; the DWT is wavelet/'s C reference), then the
# GPU test test_xs_enc_gpu.c against the C encoder, byte for byte, under
# AddressSanitizer and UndefinedBehaviorSanitizer. It checks the kernels'
# logic and memory accesses where no GPU is at hand (it found the 32-bit
# wrap of the vertical-prediction row offset in enc_pack); it says nothing of
# timing, and is slow (the quick set: minutes).
# The build is CMake's target test_xs_enc_gpu_emulated (tests/xs_enc/
# CMakeLists.txt), which ctest runs as xs_enc.gpu_emulated with --quick; this
# script builds it in its own folder and runs it with other arguments.
#   tests/xs_enc/cuda_emu/run.sh [test arguments: --quick (default), --only tools ...]
#   BUILD=dir for the build folder.
set -e
R=$(cd "$(dirname "$0")/../../.." && pwd)
O=${BUILD:-/tmp/xsenc-emu-$(id -u)}
cmake -S "$R" -B "$O" -DXSF_CUDA=OFF -DXSF_BENCH=OFF >/dev/null
cmake --build "$O" --target test_xs_enc_gpu_emulated -j "$(nproc)"
cd "$R"
[ $# -gt 0 ] || set -- --quick
exec "$O/tests/xs_enc/test_xs_enc_gpu_emulated" "$@"
