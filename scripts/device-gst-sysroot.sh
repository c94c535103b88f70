# GStreamer for the GPU machine, whose image has none: the runtime (core,
# base libraries, gst-launch-1.0) and the development files the plugin
# (gst/) builds against, as Debian 12 packages unpacked into a sysroot, the
# sibling of scripts/device-sysroot.sh (source that one first).
#
# Here (a Debian 12 machine with network), once:
#   bash scripts/device-gst-sysroot.sh download   # fills .gstdeps/ (git-ignored)
# On the GPU machine (carry .gstdeps and .devdeps):
#   . scripts/device-sysroot.sh && . scripts/device-gst-sysroot.sh
# It unpacks into device-sysroot.sh's /tmp/sysroot (one PKG_CONFIG_SYSROOT_DIR
# for both), adds to PKG_CONFIG_LIBDIR, LD_LIBRARY_PATH,
# PATH, GST_PLUGIN_SYSTEM_PATH and GST_PLUGIN_SCANNER there, and writes empty
# pkg-config files for Requires.private modules it does not carry (the
# plugin links dynamically; their flags are not needed).
_xsf_gdebs=".gstdeps"
if [ "${1:-}" = download ]; then
    set -e
    mkdir -p "$_xsf_gdebs"
    (cd "$_xsf_gdebs" && apt-get download \
        libgstreamer1.0-0 libgstreamer1.0-dev gstreamer1.0-tools \
        libgstreamer-plugins-base1.0-0 libgstreamer-plugins-base1.0-dev gstreamer1.0-plugins-base \
        libglib2.0-0 libglib2.0-dev libglib2.0-dev-bin liborc-0.4-0 liborc-0.4-dev libunwind8 libdw1 \
        libelf1 libffi8 libpcre2-8-0 libmount1 libblkid1 libselinux1 libcap2 libzstd1 liblzma5 libbz2-1.0)
    ls "$_xsf_gdebs"
    exit 0
fi
_xsf_g=/tmp/sysroot
_xsf_gl=$_xsf_g/usr/lib/x86_64-linux-gnu
if [ ! -d $_xsf_g/gst-rt ]; then
    ls "$_xsf_gdebs"/*.deb >/dev/null 2>&1 || { echo "device-gst-sysroot: no packages in $_xsf_gdebs (run 'download' first)" >&2; return 1; }
    mkdir -p $_xsf_g/gst-rt $_xsf_g/stubs
    for f in "$_xsf_gdebs"/*.deb; do dpkg -x "$f" $_xsf_g; done
    cp -a $_xsf_gl/libgst*.so* $_xsf_gl/liborc-0.4.so.0* $_xsf_g/gst-rt/
    for _xsf_x in libglib-2.0.so.0 libgobject-2.0.so.0 libgmodule-2.0.so.0 libgio-2.0.so.0 libunwind.so.8 \
                  libdw.so.1 libelf.so.1 libffi.so.8 libpcre2-8.so.0; do
        ldconfig -p | grep -q "$_xsf_x " ||
            cp -L $_xsf_gl/$_xsf_x* $_xsf_g/gst-rt/ 2>/dev/null || cp -L $_xsf_g/lib/x86_64-linux-gnu/$_xsf_x* $_xsf_g/gst-rt/
    done
fi
export PKG_CONFIG_SYSROOT_DIR=$_xsf_g
export PKG_CONFIG_LIBDIR=$_xsf_gl/pkgconfig:$_xsf_g/usr/share/pkgconfig:$_xsf_g/stubs
export LD_LIBRARY_PATH=$_xsf_g/gst-rt:${LD_LIBRARY_PATH:-}
export PATH=$_xsf_g/usr/bin:$PATH
export GST_PLUGIN_SYSTEM_PATH=$_xsf_gl/gstreamer-1.0
export GST_PLUGIN_SCANNER=$_xsf_g/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner
# Stubs for what pkg-config wants and the sysroot lacks.
for _xsf_i in 1 2 3 4 5 6 7 8; do
    _xsf_m=$(pkg-config --cflags gstreamer-video-1.0 gstreamer-rtp-1.0 gstreamer-check-1.0 gio-2.0 2>&1 >/dev/null |
        sed -n "s/.*Package '\([^']*\)'.*not found.*/\1/p" | head -1)
    [ -n "$_xsf_m" ] || break
    printf 'Name: %s\nDescription: stub\nVersion: 99\n' "$_xsf_m" > $_xsf_g/stubs/$_xsf_m.pc
done
