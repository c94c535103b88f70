#!/usr/bin/env bash
# From a fresh Debian 12 machine to a decoded picture: installs what is
# missing, builds the xsflow program in build/, and runs `xsflow demo`, which
# decodes the JPEG XS codestream built into the program, checks it against
# the conformance MD5 and writes the picture to build/xsflow-demo.y4m.
# Arguments go to the demo instead (e.g. a file name: picture.ppm).
#
# Environment: BUILD_DIR (default build), XSF_CUDA (AUTO, ON or OFF; default
# AUTO: the GPU kernels are built when nvcc is found).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

bash "$root/scripts/install-deps.sh"
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DXSF_CUDA="${XSF_CUDA:-AUTO}"
cmake --build "$build" -j"$(nproc)" --target xsflow
echo
if [ $# -eq 0 ]; then
    set -- "$build/xsflow-demo.y4m"
fi
"$build/xsflow" demo "$@"
