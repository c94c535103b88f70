#!/usr/bin/env bash
# Precinct coding against bitplane coding over the public picture set
# (bench/xs_encode/rdset.sh: 10 photographs and 4 video frames): `xsflow
# compare` on every picture at every rate for the four families, one CSV per
# picture, then the set's answer per rate (scripts/compare-tables.py --set):
# each family's mean PSNR, PSNR-Y and MS-SSIM, the winner and on how many
# pictures each family wins, and the spread over the pictures of the best
# precinct row (xsflow's JPEG XS, SVT-JPEG-XS) minus the best bitplane row
# (BPC-PaCo, OpenJPEG); with --gpu also throughput and latency.
#
#   bash bench/compare/set.sh [options]
#     --rdset DIR      the public set (default .rdset; bench/xs_encode/rdset.sh
#                      makes it); read only to prepare --inputs
#     --inputs DIR     the prepared inputs (default .cmpset), made from --rdset
#                      when missing (needs ffmpeg): list ("NAME W H kind"),
#                      yuv444/NAME.yuv and rgb/NAME.ppm; ~44 MB, carried to the
#                      GPU machine instead of the set
#     --form F         yuv444 (default): 4:4:4 8-bit YCbCr (BT.709, narrow
#                      range, converted from the set's RGB .ppm by ffmpeg as
#                      rdset.sh converts): three components and no colour
#                      transform in any family, so every family codes the same
#                      samples; rgb: the .ppm, each family with its own colour
#                      transform (xsflow JPEG XS RCT, BPC-PaCo and OpenJPEG
#                      ICT, SVT-JPEG-XS none)
#     --cpu | --gpu    xsflow's C references (default; quality only, the GPU
#                      codecs give the same bytes) or its CUDA codecs (adds
#                      throughput and latency); the peers run on the CPU
#     --bpp LIST       default 0.5,1,2,3,4,6,8
#     --codecs LIST    default xs-default,bpc-2pass,svt,opj
#     --pictures LIST  names from the list (default all), e.g. to split a
#                      device run over two calls
#     --time-ms MS     timed repeats per figure (default 0 with --cpu, 100
#                      with --gpu)
#     --jobs N         pictures at once (default 1; --gpu: always 1)
#     --out DIR        the CSVs (default INPUTS/out-FORM-PATH); a picture whose
#                      CSV is there is not measured again (--again: it is)
#     --summary        only print the summary of the CSVs in --out
#   Environment: XSFLOW (default build/xsflow), SVT (folder of
#   SvtJpegxsEncApp and SvtJpegxsDecApp, default .svt: scripts/svt-build.sh).
#   OpenJPEG: libopenjp2.so.7 (a build with openjpeg.h). A missing peer is
#   left out with one line (xsflow compare's rule); the summary says which
#   families it saw.
set -euo pipefail
cd "$(dirname "$0")/../.."
RDSET=.rdset
INPUTS=.cmpset
FORM=yuv444
PATHOPT=cpu
BPP=0.5,1,2,3,4,6,8
CODECS=xs-default,bpc-2pass,svt,opj
PICTURES=
TIME_MS=
JOBS=1
OUT=
AGAIN=0
SUMMARY_ONLY=0
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --rdset) RDSET=$2; shift ;;
    --inputs) INPUTS=$2; shift ;;
    --form) FORM=$2; shift ;;
    --cpu) PATHOPT=cpu ;;
    --gpu) PATHOPT=gpu ;;
    --bpp) BPP=$2; shift ;;
    --codecs) CODECS=$2; shift ;;
    --pictures) PICTURES=$2; shift ;;
    --time-ms) TIME_MS=$2; shift ;;
    --jobs) JOBS=$2; shift ;;
    --out) OUT=$2; shift ;;
    --again) AGAIN=1 ;;
    --summary) SUMMARY_ONLY=1 ;;
    *) usage ;;
    esac
    shift
done
case $FORM in yuv444 | rgb) ;; *) echo "set.sh: --form yuv444 or rgb" >&2; exit 2 ;; esac
OUT=${OUT:-$INPUTS/out-$FORM-$PATHOPT}
XSFLOW=${XSFLOW:-build/xsflow}
SVT=${SVT:-.svt}
[ -n "$TIME_MS" ] || { [ "$PATHOPT" = gpu ] && TIME_MS=100 || TIME_MS=0; }
[ "$PATHOPT" = gpu ] && JOBS=1

summary() {
    local csvs=("$OUT"/*.csv)
    [ -e "${csvs[0]}" ] || { echo "set.sh: no CSV in $OUT" >&2; exit 1; }
    python3 scripts/compare-tables.py --set "${csvs[@]}"
}
if [ "$SUMMARY_ONLY" = 1 ]; then
    summary
    exit 0
fi

# The inputs: 4:4:4 8-bit YCbCr as rdset.sh makes its other YCbCr files,
# and the RGB .ppm as they are.
if [ ! -s "$INPUTS/list" ]; then
    [ -s "$RDSET/list" ] || { echo "set.sh: no $RDSET/list: bash bench/xs_encode/rdset.sh $RDSET first" >&2; exit 1; }
    command -v ffmpeg >/dev/null || { echo "set.sh: preparing $INPUTS needs ffmpeg" >&2; exit 1; }
    mkdir -p "$INPUTS/yuv444" "$INPUTS/rgb"
    while read -r name w h kind; do
        cp "$RDSET/$name.ppm" "$INPUTS/rgb/$name.ppm"
        ffmpeg -nostdin -v error -y -i "$RDSET/$name.ppm" -sws_flags bicubic+accurate_rnd+full_chroma_int \
            -vf "scale=out_color_matrix=bt709:out_range=tv,format=yuv444p" -f rawvideo "$INPUTS/yuv444/$name.yuv"
        echo "set.sh: $name ${w}x$h ($kind)"
    done < "$RDSET/list"
    cp "$RDSET/list" "$INPUTS/list"
fi

[ -x "$XSFLOW" ] || { echo "set.sh: no $XSFLOW (build the xsflow target, or set XSFLOW)" >&2; exit 1; }
peers=()
[ -x "$SVT/SvtJpegxsEncApp" ] && peers+=(--svt-enc "$SVT/SvtJpegxsEncApp")
mkdir -p "$OUT"
# One picture: its CSV, its table and its log; the CSV appears only when the
# run succeeded (a stopped run leaves no CSV, so it is measured again).
one() {
    local name=$1 w=$2 h=$3
    local csv=$OUT/$name.csv
    [ "$AGAIN" = 0 ] && [ -s "$csv" ] && return 0
    local in=("$INPUTS/rgb/$name.ppm")
    [ "$FORM" = yuv444 ] && in=("$INPUTS/yuv444/$name.yuv" --size "${w}x$h" --sampling 444 --depth 8)
    if "$XSFLOW" compare "${in[@]}" --"$PATHOPT" --time-ms "$TIME_MS" --bpp "$BPP" --codecs "$CODECS" \
        "${peers[@]}" --csv "$csv.part" > "$OUT/$name.txt" 2> "$OUT/$name.log"; then
        mv "$csv.part" "$csv"
        echo "set.sh: $name done"
    else
        echo "set.sh: $name FAILED (rc $?): $(tail -1 "$OUT/$name.log")" >&2
        rm -f "$csv.part"
        return 1
    fi
}
failed=0
running=0
while read -r name w h kind; do
    if [ -n "$PICTURES" ] && [[ ",$PICTURES," != *",$name,"* ]]; then
        continue
    fi
    one "$name" "$w" "$h" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait -n || failed=$((failed + 1))
        running=$((running - 1))
    fi
done < "$INPUTS/list"
while [ "$running" -gt 0 ]; do
    wait -n || failed=$((failed + 1))
    running=$((running - 1))
done
grep -h "^xsflow compare: " "$OUT"/*.log 2>/dev/null | sort -u || true
[ "$failed" = 0 ] || echo "set.sh: $failed picture(s) failed" >&2
summary
[ "$failed" = 0 ]
