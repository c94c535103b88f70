#!/usr/bin/env bash
# Installs the Debian 12 packages that xsflow needs to build and test, and
# only those that are missing (so a second run installs nothing). Needs root
# or sudo when something is missing; never asks a question.
#
# The CUDA toolkit (nvcc) is optional and not installed here: the GPU kernels
# are built when CMake finds nvcc.
set -euo pipefail

packages=(
    cmake make gcc libc6-dev pkg-config # build
    dpkg-dev file                       # cpack -G DEB's dependencies (dpkg-shlibdeps; tests/install)
    clang libclang-rt-14-dev            # sanitizers and libFuzzer (scripts/test.sh)
    clang-format                        # the formatting check (scripts/check-format.sh)
    libpcap-dev                         # reading captures (rtp/)
    nettle-dev                          # MD5 of decoded pictures (app/)
    xz-utils                            # the reference outputs vectors/xs/*.yuv.xz
    tshark                              # dissecting RTP captures in tests
    iproute2                            # network namespaces for receive tests
    libepoxy-dev libegl-dev libgl-dev libglfw3-dev # display/: GL loading, EGL and GL headers, windows
    libegl-mesa0 libgl1-mesa-dri        # display/ tests: Mesa's software OpenGL (EGL surfaceless)
    xvfb xauth                          # display/ window test (xvfb-run)
    gnuplot-nox                         # xsflow compare --plot (SVG and PNG)
    libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev # the GStreamer plugin (gst/)
    gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good # its tests
    libmicrohttpd-dev libcjson-dev libavahi-client-dev # the NMOS node (nmos/): HTTP, JSON, DNS-SD
    libcurl4-openssl-dev                # nmos/: registration client; its tests' HTTP client
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages are installed"
    exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "install-deps: root or sudo is needed to install: ${missing[*]}" >&2
        exit 1
    fi
    sudo=(sudo)
fi
# tshark asks whether non-root users may capture: noninteractive keeps the default (no).
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" </dev/null
echo "install-deps: done"
