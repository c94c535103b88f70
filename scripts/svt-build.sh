#!/usr/bin/env bash
# SVT-JPEG-XS's encoder and decoder apps (SvtJpegxsEncApp, SvtJpegxsDecApp),
# built from their public source, statically linked, into .svt/ (git-ignored):
# the peer rows of `xsflow compare` (--svt-enc .svt/SvtJpegxsEncApp) and
# bench/pipeline/run.sh (svt=.svt/SvtJpegxsDecApp). Nothing of SVT-JPEG-XS is
# committed.
#
#   bash scripts/svt-build.sh fetch      # here (network): .svt/src.tar.gz of
#                                        # OpenVisualCloud/SVT-JPEG-XS at $SVT_REF
#                                        # (default 0.10.0's commit, below) and
#                                        # .svt/nasm*.deb (Debian 12)
#   bash scripts/svt-build.sh [SRC]      # builds; SRC: a source folder or a
#                                        # .tar.gz of one (default .svt/src.tar.gz,
#                                        # fetched first when missing)
#
# On the GPU machine (no network): run `fetch` here, carry .svt, and there
#   bash scripts/svt-build.sh            # ~2 min on 16 cores
# or build here and carry .svt with the two binaries (they are static).
# The assembler: nasm (or yasm) from PATH, else the carried .svt/nasm*.deb
# unpacked into .svt/nasm/.
set -euo pipefail
cd "$(dirname "$0")/.."
D=.svt
# SVT-JPEG-XS 0.10.0 (the version that made vectors/xs); any later commit builds the same way.
SVT_REF=${SVT_REF:-8e50180}
SVT_URL=${SVT_URL:-https://github.com/OpenVisualCloud/SVT-JPEG-XS.git}
mkdir -p "$D"

fetch() {
    local tmp
    tmp=$(mktemp -d)
    git clone -q "$SVT_URL" "$tmp/svt"
    git -C "$tmp/svt" archive --format=tar.gz --prefix=svt/ "$SVT_REF" > "$D/src.tar.gz"
    rm -rf "$tmp"
    (cd "$D" && apt-get download nasm >/dev/null 2>&1) || echo "svt-build: no nasm package downloaded (apt-get download nasm)"
    ls -l "$D"
}

if [ "${1:-}" = fetch ]; then
    fetch
    exit 0
fi
SRC=${1:-$D/src.tar.gz}
if [ "$SRC" = "$D/src.tar.gz" ] && [ ! -f "$SRC" ]; then
    fetch
fi
extracted=
if [ -f "$SRC" ]; then
    extracted=1
    rm -rf "$D/src"
    mkdir -p "$D/src"
    tar -xzf "$SRC" -C "$D/src" --strip-components=1
    SRC=$D/src
fi
[ -f "$SRC/CMakeLists.txt" ] || { echo "svt-build: $SRC is not an SVT-JPEG-XS source tree" >&2; exit 1; }
if ! command -v nasm >/dev/null 2>&1 && ! command -v yasm >/dev/null 2>&1; then
    deb=$(ls "$D"/nasm*.deb 2>/dev/null | head -1 || true)
    [ -n "$deb" ] || { echo "svt-build: no nasm or yasm (apt-get install nasm, or 'fetch' here and carry .svt)" >&2; exit 1; }
    rm -rf "$D/nasm" && dpkg -x "$deb" "$D/nasm"
    export PATH=$PWD/$D/nasm/usr/bin:$PATH
fi
# Its -Werror meets gcc 12's link-time maybe-uninitialized warnings in the apps: warnings stay warnings.
cmake -S "$SRC" -B "$D/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DBUILD_APPS=ON \
    -DCMAKE_C_FLAGS="-Wno-error" -DCMAKE_EXE_LINKER_FLAGS="-Wno-error" \
    > "$D/build.log" 2>&1 || { tail -20 "$D/build.log"; exit 1; }
cmake --build "$D/build" -j"$(nproc)" >> "$D/build.log" 2>&1 || { tail -30 "$D/build.log"; exit 1; }
for app in SvtJpegxsEncApp SvtJpegxsDecApp; do
    f=$(find "$SRC/Bin" "$D/build" -name "$app" -type f -perm -u+x 2>/dev/null | head -1)
    [ -n "$f" ] || { echo "svt-build: $app was not built (see $D/build.log)" >&2; exit 1; }
    cp "$f" "$D/$app"
done
# What stays: the two binaries, the source tarball and the log (small to carry).
rm -rf "$D/build"
[ -n "$extracted" ] && rm -rf "$D/src"
ls -l "$D"/SvtJpegxs*App
echo "svt-build: xsflow compare --svt-enc $D/SvtJpegxsEncApp (SvtJpegxsDecApp next to it checks and times decoding)"
