#!/bin/bash
# `xsflow recv --pcap ... --pix-fmt F` (the pipeline's picture request: the
# decoder writes F) gives byte for byte what `xsflow decode --pix-fmt F` writes
# (whose MD5s tests/app checks against a separate implementation of the
# formats), for every pixel format, on vectors of 4:2:2, odd-width 4:2:0 and
# R'G'B' (--colour gbr): .yuv output, md5: lines, .y4m where the format fits
# (and refused where it does not), --stats-json naming the format, an
# interlaced stream (woven, then converted by the writer), and the refusals:
# a format that does not apply to the stream (every frame refused, with the
# reason), --pix-fmt with .jxs output or the display (usage errors).
#   cpu: --cpu (the C decoder converts its own planes: xsf_picture_convert)
#   gpu: --gpu (the GPU decoder's last kernel writes the format); skipped
#        (77) where no GPU is usable
# usage: recv_pix_fmt.sh XSFLOW VECTOR_DIR WORK_DIR cpu|gpu
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3 engine=${4:-cpu}
mkdir -p "$work/$engine" && cd "$work/$engine" || exit 1
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

if [ "$engine" = gpu ]; then
    timeout 60 "$xsflow" decode "$vectors/geom_334x78_420.jxs" --gpu --md5 > /dev/null 2> gpu.log ||
        { echo "no usable GPU ($(tail -1 gpu.log)): skipped"; exit 77; }
fi
eng=--$engine

# The captures: each vector sent into a .pcap (codestream mode; slice mode for one).
capture() { # NAME VECTOR SEND_OPTIONS...
    local name=$1 vec=$2
    shift 2
    timeout 60 "$xsflow" send "$vectors/$vec" --pcap "$name.pcap" --fps 25 -q "$@"
    check $? "send $vec into $name.pcap"
}
capture s422 seq_5f_422_10b.jxs --mode slice
capture g420 geom_334x78_420.jxs
capture rgb fmt_rgb_12b.jxs

# recv --pix-fmt F of capture NAME equals decode --pix-fmt F of its vector (.yuv).
same() { # NAME VECTOR FORMAT [OPTIONS...]
    local name=$1 vec=$2 f=$3
    shift 3
    rm -f "ref-$name-$f.yuv" "rx-$name-$f.yuv"
    timeout 60 "$xsflow" decode "$vectors/$vec" "$eng" --pix-fmt "$f" -o "ref-$name-$f.yuv" -q "$@"
    check $? "$name $f: decode"
    timeout 60 "$xsflow" recv --pcap "$name.pcap" -o "rx-$name-$f.yuv" --pix-fmt "$f" "$eng" -q \
        "$@" 2> "rx-$name-$f.log"
    check $? "$name $f: recv ($(tail -1 "rx-$name-$f.log"))"
    cmp -s "ref-$name-$f.yuv" "rx-$name-$f.yuv"
    check $? "$name $f: recv's pictures differ from decode's"
}
all="planar16 planar8 v210 pgroup p210 p010 uyvy nv12 i420 rgba bgra rgb48 rgbf32"
for f in $all; do
    same s422 seq_5f_422_10b.jxs $f
    same g420 geom_334x78_420.jxs $f
done
for f in planar8 rgba bgra rgb48 rgbf32; do
    same rgb fmt_rgb_12b.jxs $f --colour gbr
done
# The sizes: v210's rows of ceil(W/48) groups of 128 bytes, pgroup's 5 bytes a pixel pair.
[ "$(stat -c %s rx-s422-v210.yuv)" = $((5 * 7 * 128 * 180)) ]
check $? "v210: 5 frames of 320x180 are $((5 * 7 * 128 * 180)) bytes"
[ "$(stat -c %s rx-s422-pgroup.yuv)" = $((5 * 160 * 5 * 180)) ]
check $? "pgroup: 5 frames of 320x180 are $((5 * 160 * 5 * 180)) bytes"

# md5: one line a picture, the MD5 of the bytes delivered: a one-frame stream's is the file's.
for f in v210 pgroup; do
    timeout 60 "$xsflow" recv --pcap g420.pcap -o "md5:g420-$f.md5" --pix-fmt $f "$eng" -q 2> /dev/null
    check $? "g420 $f: recv -o md5:"
    want=$(md5sum < "ref-g420-$f.yuv" | cut -d' ' -f1)
    [ "$(tail -n +2 "g420-$f.md5" | cut -d, -f3)" = "$want" ]
    check $? "g420 $f: md5: line $(tail -1 "g420-$f.md5"), the picture's MD5 $want"
done

# .y4m: i420 as decode writes it; v210 refused (exit 1, nothing left behind).
timeout 60 "$xsflow" decode "$vectors/seq_5f_422_10b.jxs" "$eng" --pix-fmt i420 -o ref.y4m -q
timeout 60 "$xsflow" recv --pcap s422.pcap -o rx.y4m --pix-fmt i420 "$eng" -q 2> /dev/null &&
    cmp -s ref.y4m rx.y4m
check $? "i420 .y4m: recv's differs from decode's"
timeout 60 "$xsflow" recv --pcap s422.pcap -o v210.y4m --pix-fmt v210 "$eng" -q 2> v210-y4m.log
rc=$?
[ $rc = 1 ] && [ ! -e v210.y4m ]
check $? "v210 .y4m: exit $rc, expected 1 and no file ($(tail -1 v210-y4m.log))"

# --stats-json names the format.
timeout 60 "$xsflow" recv --pcap s422.pcap -o null --pix-fmt pgroup "$eng" -q \
    --stats-json stats.json 2> /dev/null
check $? "null sink: recv"
grep -q '"pix_fmt": "pgroup"' stats.json
check $? "--stats-json: no \"pix_fmt\": \"pgroup\" in $(head -c 200 stats.json)"

# A format that does not apply: v210 of an R'G'B' stream: every frame refused, the reason said.
timeout 60 "$xsflow" recv --pcap rgb.pcap -o x.yuv --pix-fmt v210 --colour gbr "$eng" 2> refused.log \
    > /dev/null
rc=$?
[ $rc = 1 ] && grep -q "v210 does not apply .*R'G'B'" refused.log
check $? "v210 of R'G'B': exit $rc, expected 1 and the reason: $(grep -m1 "apply" refused.log)"

# Usage errors: a pixel format for .jxs output or for the display.
timeout 30 "$xsflow" recv --pcap s422.pcap -o x.jxs --pix-fmt v210 2> jxs.log
rc=$?
[ $rc = 2 ] && grep -q "codestreams" jxs.log
check $? "--pix-fmt with .jxs: exit $rc, expected 2: $(tail -1 jxs.log)"
timeout 30 "$xsflow" recv --pcap s422.pcap --display --pix-fmt v210 2> dsp.log
rc=$?
[ $rc = 2 ] && grep -q "display shows planar16" dsp.log
check $? "--pix-fmt with --display: exit $rc, expected 2: $(tail -1 dsp.log)"
timeout 30 "$xsflow" recv --pcap s422.pcap -o x.yuv --pix-fmt yuyv 2> unknown.log
rc=$?
[ $rc = 2 ] && grep -q "v210" unknown.log
check $? "--pix-fmt yuyv: exit $rc, expected 2 and the names: $(tail -1 unknown.log)"

# Interlaced: the fields woven, then converted (as decode --interlaced --pix-fmt).
cat "$vectors/seq_5f_422_10b.jxs" "$vectors/seq_5f_422_10b.jxs" > fields.jxs # five frames
timeout 60 "$xsflow" send fields.jxs --pcap fields.pcap --interlaced --fps 25 -q
check $? "send the fields"
timeout 60 "$xsflow" decode fields.jxs --interlaced "$eng" --pix-fmt p010 -o ref-fields.yuv -q &&
    timeout 60 "$xsflow" recv --pcap fields.pcap -o rx-fields.yuv --pix-fmt p010 "$eng" -q \
        2> /dev/null &&
    cmp -s ref-fields.yuv rx-fields.yuv
check $? "interlaced p010: recv's woven frames differ from decode's"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
