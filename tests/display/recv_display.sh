#!/bin/bash
# `xsflow recv --display` as a multiviewer, rendered offscreen (--headless):
# two loopback streams of the same clip, each in its tile; the last picture
# shown must put the same picture in both tiles, not black, labelled.
# usage: recv_display.sh XSFLOW VECTOR_DIR WORK_DIR
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3
mkdir -p "$work" && cd "$work" || exit 1
src=$vectors/seq_5f_422_10b.jxs
port=$((20000 + RANDOM % 20000))
rm -f mv.ppm
timeout 30 "$xsflow" recv 127.0.0.1:$port 127.0.0.1:$((port + 1)) --headless mv.ppm --no-vsync \
    --frames 10 --timeout 5 -q 2> recv.log &
rx=$!
sleep 1
"$xsflow" send "$src" --to 127.0.0.1:$port --loop 2 --fps 50 -q &
"$xsflow" send "$src" --to 127.0.0.1:$((port + 1)) --loop 2 --fps 50 -q
wait %2 2> /dev/null
wait $rx
rc=$?
if grep -q "no display\|cannot open\|without GL\|EGL" recv.log && [ $rc != 0 ]; then
    echo "skipped: no offscreen GL here: $(tail -1 recv.log)"
    exit 77
fi
[ $rc = 0 ] || { echo "FAIL: recv exit status $rc: $(tail -3 recv.log)"; exit 1; }
# Without vsync a picture is shown at once, or replaced by a newer one that
# came in the same turn of the display thread (counted as dropped late):
# every one of the 10 pictures of each tile is one or the other.
n=$(awk '/display: / { shown = $4; late = $7; full = $10; if (shown + late + full == 10 && shown > 0) n++ }
    END { print n + 0 }' recv.log)
[ "$n" = 2 ] || { echo "FAIL: the display's counts do not add up to 10 pictures per tile"; cat recv.log; exit 1; }
python3 - mv.ppm <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
parts = d.split(b'\n', 3)
w, h = map(int, parts[1].split())
px = parts[3]
assert len(px) == w * h * 3, "size"
def tile(x0):
    rows = [px[(y * w + x0) * 3:(y * w + x0 + w // 2) * 3] for y in range(h // 4, 3 * h // 4)]
    return b''.join(rows)
left, right = tile(0), tile(w // 2)
assert left == right, "the two tiles differ"
assert sum(left) > len(left) * 20, "the tiles are black"
label = b''.join(px[(y * w) * 3:(y * w + 120) * 3] for y in range(2, 12))
assert max(label) > 200, "no label drawn"
print("multiviewer: %dx%d, two identical tiles, labelled" % (w, h))
PY
