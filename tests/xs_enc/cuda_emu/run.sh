#!/usr/bin/env bash
# Runs xs/gpu_encoder.cu on the CPU: a small emulation of the CUDA runtime
# and of the intrinsics it uses (cxx/cuda_runtime.h: the threads of a block
# are real threads with real barriers, warps exchange through buffers, blocks
# run one after another; the DWT is wavelet/'s C reference), then the GPU
# test test_xs_enc_gpu.c against the C encoder, byte for byte, under
# AddressSanitizer and UndefinedBehaviorSanitizer. It checks the kernels'
# logic and memory accesses where no GPU is at hand (it found the 32-bit
# wrap of the vertical-prediction row offset in enc_pack); it says nothing of
# timing, and is slow (the quick set: minutes).
#   tests/xs_enc/cuda_emu/run.sh [test arguments: --quick (default), --only tools ...]
#   SAN="" to build without sanitizers, BUILD=dir for the objects.
set -e
R=$(cd "$(dirname "$0")/../../.." && pwd)
E=$R/tests/xs_enc/cuda_emu
O=${BUILD:-/tmp/xsenc-emu-$(id -u)}
SAN=${SAN--fsanitize=address,undefined -fno-omit-frame-pointer}
mkdir -p "$O"
python3 "$E/prep.py" "$R/xs/gpu_encoder.cu" "$O/gpu_encoder_emu.cpp"
CXX="g++ -std=c++20 -O1 -g $SAN -I$E/cxx -I$R/xs -I$R/common -I$R/wavelet"
CC="gcc -std=c11 -O1 -g $SAN -DXSF_HAVE_CUDA=1 -I$R/xs -I$R/common -I$R/wavelet"
$CXX -c "$O/gpu_encoder_emu.cpp" -o "$O/ge.o"
$CXX -c "$E/emu_rt.cpp" -o "$O/rt.o"
for f in "$R"/xs/*.c "$R"/wavelet/*.c "$R"/common/xsf.c; do
    $CC -c "$f" -o "$O/c_$(basename "$f").o" &
done
wait
$CC -I"$E/c" -c "$R/tests/xs_enc/test_xs_enc_gpu.c" -o "$O/t.o"
g++ $SAN -o "$O/test_xs_enc_gpu_emu" "$O/t.o" "$O/ge.o" "$O/rt.o" "$O"/c_*.o -lm -lpthread
cd "$R"
[ $# -gt 0 ] || set -- --quick
exec "$O/test_xs_enc_gpu_emu" "$@"
