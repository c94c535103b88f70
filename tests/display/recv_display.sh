#!/bin/bash
# `xsflow recv --display` as a multiviewer, rendered offscreen (--headless):
# two loopback streams of the same 5-frame clip, each sent twice, each in its
# tile. Every one of the 10 pictures a tile receives must be shown (none
# dropped), and the last one shown, the clip's frame 4, must be in each tile
# as the C decoder gives it, converted and scaled (pixel_check --tile); the
# tiles are labelled.
# usage: recv_display.sh XSFLOW VECTOR_DIR WORK_DIR PIXEL_CHECK
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3 pixel_check=$(readlink -f "$4")
mkdir -p "$work" && cd "$work" || exit 1
src=$vectors/seq_5f_422_10b.jxs
port=$((20000 + RANDOM % 20000))
rm -f mv.ppm
timeout 30 "$xsflow" recv 127.0.0.1:$port 127.0.0.1:$((port + 1)) --headless mv.ppm --no-vsync \
    --frames 10 --timeout 5 -q 2> recv.log &
rx=$!
sleep 1
"$xsflow" send "$src" --to 127.0.0.1:$port --loop 2 --fps 25 -q &
"$xsflow" send "$src" --to 127.0.0.1:$((port + 1)) --loop 2 --fps 25 -q
wait %2 2> /dev/null
wait $rx
rc=$?
if grep -q "no display\|cannot open\|without GL\|EGL" recv.log && [ $rc != 0 ]; then
    echo "skipped: no offscreen GL here: $(tail -1 recv.log)"
    exit 77
fi
[ $rc = 0 ] || { echo "FAIL: recv exit status $rc: $(tail -3 recv.log)"; exit 1; }
# Without vsync a picture is shown as it comes unless a newer one of its
# tile came in the same turn of the display thread (dropped late); at 25
# frames a second, 40 ms apart, each one is shown.
n=$(awk '/display: / { if ($4 == 10 && $7 == 0 && $10 == 0) n++ } END { print n + 0 }' recv.log)
[ "$n" = 2 ] || { echo "FAIL: not all 10 pictures of each tile were shown"; cat recv.log; exit 1; }
n=$(grep -c "frames 10 whole, 0 dropped" recv.log)
[ "$n" = 2 ] || { echo "FAIL: not 10 whole frames received on each stream"; cat recv.log; exit 1; }
# The tiles: two 16:9 pictures in a 16:9 window go side by side (the grid
# with fewer rows wins a tie), each fitted into its half keeping its aspect,
# centred: W/2 x W/2*9/16 at height (H - that) / 2.
[ -s mv.ppm ] || { echo "FAIL: recv wrote no mv.ppm"; exit 1; }
read -r w h < <(head -c 20 mv.ppm | sed -n 2p)
tw=$((w / 2)) th=$((w / 2 * 9 / 16))
ty=$(((h - th) / 2))
for tx in 0 $tw; do
    "$pixel_check" "$src" play mv.ppm --frame 4 --tile $tx,$ty,$tw,$th ||
        { echo "FAIL: the tile at x $tx is not the clip's frame 4"; exit 1; }
done
python3 - mv.ppm <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
parts = d.split(b'\n', 3)
w, h = map(int, parts[1].split())
px = parts[3]
for x0 in (0, w // 2):
    label = b''.join(px[(y * w + x0) * 3:(y * w + x0 + 120) * 3] for y in range(2, 12))
    assert max(label) > 200, "no label drawn in the tile at x %d" % x0
print("multiviewer: %dx%d, both tiles labelled" % (w, h))
PY
