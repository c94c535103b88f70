#!/usr/bin/env bash
# From a fresh Debian 12 machine to a decoded picture: installs what is
# missing, builds the xsflow program (and the GStreamer plugin) in build/, and runs `xsflow demo`, which
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
# The program, and the GStreamer plugin where GStreamer's development files are
# (gst/README.md; XSF_GST=AUTO says in the configure output why not).
targets=(xsflow)
if cmake --build "$build" --target help | grep -E '^(\.\.\. )?gstxsflow(:|$)' > /dev/null; then
    targets+=(gstxsflow)
fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
echo
if [ $# -eq 0 ]; then
    set -- "$build/xsflow-demo.y4m"
fi
"$build/xsflow" demo "$@"
