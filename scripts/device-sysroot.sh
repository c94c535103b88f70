# The build dependencies that the GPU machine's image lacks (libpcap, nettle,
# pkg-config where missing; for display/: libepoxy, the EGL, GL and GLFW
# headers, GLFW and the X libraries it needs; for compare's JPEG 2000 peer:
# OpenJPEG's header and library), as Debian 12 packages
# unpacked into a sysroot rather than into /. The GL runtime loaders
# (libEGL, libOpenGL: glvnd) are another matter: they go into / from .gl/
# (scripts/device-check.sh, per the device README).
#
# Here (a Debian 12 machine with network), once:
#   bash scripts/device-sysroot.sh download     # fills .devdeps/ (git-ignored)
# On the GPU machine (carry .devdeps), before configuring with CMake:
#   . scripts/device-sysroot.sh                 # unpacks into /tmp/sysroot, sets
#                                               # PKG_CONFIG_*, LD_LIBRARY_PATH, PATH
# The loader gets a folder with libpcap, libnettle, libepoxy and libglfw only
# (and libdbus and the X libraries where the image lacks them), so that the
# compilers keep the image's own libgmp. CMAKE_PREFIX_PATH points CMake's
# find_path/find_library (display/) into the sysroot.
_xsf_debs=".devdeps"
if [ "${1:-}" = download ]; then
    set -e
    mkdir -p "$_xsf_debs"
    (cd "$_xsf_debs" && apt-get download libpcap0.8-dev libpcap-dev libpcap0.8 libdbus-1-dev libdbus-1-3 \
        nettle-dev libnettle8 libhogweed6 libgmp-dev libgmp10 pkgconf pkgconf-bin libpkgconf3 pkg-config \
        libepoxy-dev libepoxy0 libegl-dev libgl-dev libglfw3-dev libglfw3 \
        libx11-6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0 libopenjp2-7 libopenjp2-7-dev)
    ls "$_xsf_debs"
    exit 0
fi
_xsf_s=/tmp/sysroot
_xsf_l=$_xsf_s/usr/lib/x86_64-linux-gnu
if [ ! -d $_xsf_s/rt ]; then
    ls "$_xsf_debs"/*.deb >/dev/null 2>&1 || { echo "device-sysroot: no packages in $_xsf_debs (run 'download' first)" >&2; return 1; }
    mkdir -p $_xsf_s/rt
    for f in "$_xsf_debs"/*.deb; do dpkg -x "$f" $_xsf_s; done
    cp -a $_xsf_l/libpcap.so.0.8* $_xsf_l/libpcap.so.1* $_xsf_l/libnettle.so.8* $_xsf_s/rt/
    # OpenJPEG, xsflow compare's JPEG 2000 peer (loaded at run time), where carried.
    ldconfig -p | grep -q 'libopenjp2.so.7 ' || cp -a $_xsf_l/libopenjp2.so.7* $_xsf_l/libopenjp2.so.2* $_xsf_s/rt/ 2>/dev/null || true
    ldconfig -p | grep -q 'libdbus-1.so.3 ' || cp -a $_xsf_s/lib/x86_64-linux-gnu/libdbus-1.so.3* $_xsf_s/rt/
    if [ -e $_xsf_l/libepoxy.so.0 ]; then
        cp -a $_xsf_l/libepoxy.so.0* $_xsf_l/libglfw.so.3* $_xsf_s/rt/
        for _xsf_x in libX11.so.6 libxcb.so.1 libXau.so.6 libXdmcp.so.6 libbsd.so.0 libmd.so.0; do
            ldconfig -p | grep -q "$_xsf_x " ||
                cp -a $_xsf_l/$_xsf_x* $_xsf_s/rt/ 2>/dev/null || cp -a $_xsf_s/lib/x86_64-linux-gnu/$_xsf_x* $_xsf_s/rt/
        done
    fi
fi
export CMAKE_PREFIX_PATH=$_xsf_s/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export PKG_CONFIG_SYSROOT_DIR=$_xsf_s
export PKG_CONFIG_LIBDIR=$_xsf_l/pkgconfig:$_xsf_s/usr/share/pkgconfig
export LD_LIBRARY_PATH=$_xsf_s/rt:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
if ! command -v pkg-config >/dev/null 2>&1; then
    mkdir -p $_xsf_s/bin
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s/usr/bin/pkgconf "$@"\n' "$_xsf_l" "$_xsf_s" > $_xsf_s/bin/pkg-config
    chmod +x $_xsf_s/bin/pkg-config
    export PATH=$_xsf_s/bin:$PATH
    export PKG_CONFIG=$_xsf_s/bin/pkg-config
fi
