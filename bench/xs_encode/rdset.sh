#!/usr/bin/env bash
# The public picture set of the rate-distortion bench (bench/xs_encode/rd_svt.sh):
# 10 photographs and 4 video frames, fetched as Debian packages (apt-get
# download, no other network), cropped and converted into .rdset/ (git-ignored;
# nothing of it is committed).
#
#   bash bench/xs_encode/rdset.sh [DIR]     # default .rdset
#
# Needs ffmpeg (apt-get install ffmpeg) and python3. What it writes, for every
# picture NAME of W x H (the source's centre, cropped to multiples of 8 and to
# at most 1920x1080; nothing is scaled):
#   DIR/NAME.ppm          RGB 8-bit (the source as decoded)
#   DIR/rgb/NAME.yuv      RGB 8-bit, planar R, G, B
#   DIR/420/NAME.yuv      4:2:0  8-bit planar (bytes)
#   DIR/422/NAME.yuv      4:2:2 10-bit planar (16-bit little-endian)
#   DIR/444/NAME.yuv      4:4:4 12-bit planar (16-bit little-endian)
#   DIR/list              "NAME W H kind" per picture
# YCbCr: BT.709 matrix, narrow ("TV") range, from the RGB picture by ffmpeg's
# swscale (accurate rounding, full chroma interpolation); the 10- and 12-bit
# pictures carry the 8-bit source's precision.
#
# Sources and licences (each file is measured here, never redistributed):
# Debian package python3-skimage (scikit-image 0.19 data, skimage/data/):
#   astronaut.png         512x512  NASA (Eileen Collins), public domain
#   coffee.png            600x400  Rachel Michetti, CC0
#   chelsea.png           451x300  Stefan van der Walt, CC0
#   rocket.jpg            640x427  SpaceX (DSCOVR launch), public domain
#   hubble_deep_field.jpg 1000x872 NASA/ESA HubbleSite, public domain
#   retina.jpg            1411x1411 Wikimedia Commons fundus photograph, CC0
# Debian package libjxl-testdata (github.com/libjxl/testdata):
#   jxl/flower/flower.png 2268x1512 the JPEG XL project authors, BSD-3-clause
#   external/wesaturate/500px/{cvo9xd_keong_macan,tmshre_riaphotographs,
#   u76c0g_bliznaca}_srgb8.png 500x500  wesaturate.com, CC0
# Debian package opencv-doc (OpenCV's samples, under OpenCV's licence in its
# debian/copyright), video frames (the clips are lossy-compressed: their
# blocks and ringing are part of the picture):
#   examples/data/vtest.avi     768x576 MPEG-4 v3, frame 100 (static camera, people)
#   examples/data/Megamind.avi  720x528 MPEG-4 ASP, frame 150 (computer animation)
#   opencv4/html/box.mp4.gz     640x480 H.264, frame 60 (hand-held, indoor objects)
#   opencv4/html/cup.mp4.gz     640x480 H.264, frame 60 (hand-held, close-up)
set -euo pipefail
cd "$(dirname "$0")/../.."
D=${1:-.rdset}
mkdir -p "$D/debs" "$D/x" "$D/rgb" "$D/420" "$D/422" "$D/444"
command -v ffmpeg >/dev/null || { echo "rdset: needs ffmpeg (apt-get install ffmpeg)" >&2; exit 1; }
for p in python3-skimage libjxl-testdata opencv-doc; do
    ls "$D"/debs/"${p}"_*.deb >/dev/null 2>&1 ||
        (cd "$D/debs" && apt-get download "$p" >/dev/null 2>&1) ||
        { echo "rdset: apt-get download $p failed (apt-get update first?)" >&2; exit 1; }
    [ -d "$D/x/$p" ] || dpkg -x "$(ls "$D"/debs/"${p}"_*.deb | head -1)" "$D/x/$p"
done
SK=$D/x/python3-skimage/usr/lib/python3/dist-packages/skimage/data
JX=$D/x/libjxl-testdata/usr/share/libjxl-testdata
CV=$D/x/opencv-doc/usr/share/doc/opencv-doc
[ -f "$D/x/box.mp4" ] || zcat "$CV/opencv4/html/box.mp4.gz" > "$D/x/box.mp4"
[ -f "$D/x/cup.mp4" ] || zcat "$CV/opencv4/html/cup.mp4.gz" > "$D/x/cup.mp4"

# name, source, frame number (- for a still), kind
set_list() {
    cat <<EOF
astronaut $SK/astronaut.png - photo
coffee $SK/coffee.png - photo
chelsea $SK/chelsea.png - photo
rocket $SK/rocket.jpg - photo
hubble $SK/hubble_deep_field.jpg - photo
retina $SK/retina.jpg - photo
flower $JX/jxl/flower/flower.png - photo
keong $JX/external/wesaturate/500px/cvo9xd_keong_macan_srgb8.png - photo
ria $JX/external/wesaturate/500px/tmshre_riaphotographs_srgb8.png - photo
bliznaca $JX/external/wesaturate/500px/u76c0g_bliznaca_srgb8.png - photo
vtest $CV/examples/data/vtest.avi 100 video
megamind $CV/examples/data/Megamind.avi 150 video
box $D/x/box.mp4 60 video
cup $D/x/cup.mp4 60 video
EOF
}

: > "$D/list.tmp"
set_list | while read -r name src frame kind; do
    IFS=, read -r w h < <(ffprobe -v error -select_streams v:0 -show_entries stream=width,height \
        -of csv=p=0 "$src" </dev/null)
    cw=$(( (w < 1920 ? w : 1920) / 8 * 8 ))
    ch=$(( (h < 1080 ? h : 1080) / 8 * 8 ))
    sel=
    [ "$frame" != - ] && sel="select=eq(n\\,$frame),"
    ffmpeg -nostdin -v error -y -i "$src" -vf "${sel}crop=$cw:$ch" -frames:v 1 -pix_fmt rgb24 "$D/$name.ppm"
    conv() {
        ffmpeg -nostdin -v error -y -i "$D/$name.ppm" -sws_flags bicubic+accurate_rnd+full_chroma_int \
            -vf "scale=out_color_matrix=bt709:out_range=tv,format=$1" -f rawvideo "$2"
    }
    conv yuv420p "$D/420/$name.yuv"
    conv yuv422p10le "$D/422/$name.yuv"
    conv yuv444p12le "$D/444/$name.yuv"
    python3 - "$D/$name.ppm" "$D/rgb/$name.yuv" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
# P6 header: magic, width, height, maxval, one whitespace byte.
fields, pos = [], 0
while len(fields) < 4:
    while data[pos:pos + 1].isspace():
        pos += 1
    end = pos
    while not data[end:end + 1].isspace():
        end += 1
    fields.append(data[pos:end])
    pos = end
px = data[pos + 1:]
with open(sys.argv[2], "wb") as f:
    for c in range(3):
        f.write(px[c::3])
PY
    echo "$name $cw $ch $kind" >> "$D/list.tmp"
    echo "rdset: $name ${cw}x$ch ($kind)"
done
mv "$D/list.tmp" "$D/list"
