#!/bin/bash
# The plugin as media engineers use it: gst-inspect-1.0 and gst-launch-1.0
# loading libgstxsflow.so from the build tree.
#   - gst-inspect-1.0 xsflow lists the five elements, each inspects cleanly
#   - videotestsrc ! xsflowenc ! xsflowdec: lossless is exact (8 and 10 bits,
#     interlaced too); lossy gives every frame as the C decoder does (xsflow
#     decode --cpu of the same codestreams) and close to its source (PSNR)
#   - filesrc ! xsflowjxsparse ! xsflowjxspay ! udpsink -> udpsrc !
#     xsflowjxsdepay ! filesink over loopback, both packetization modes:
#     the received codestreams are the sent file, byte for byte
#   - xsflow send -> udpsrc ! xsflowjxsdepay, and xsflowjxspay -> xsflow recv
#   - two legs (SMPTE ST 2022-7): xsflow send --to A,B -> two udpsrc into
#     xsflowjxsdepay's sink and sink_1 (gst/README.md's pipeline); one leg sending
# Traffic goes to 127.0.0.1 only. Skips (77) without gst-launch-1.0.
# usage: launch.sh PLUGIN_DIR XSFLOW VECTOR_DIR WORK_DIR
set -u
plugin_dir=$(cd "$1" && pwd) xsflow=$(readlink -f "$2") vectors=$(cd "$3" && pwd) work=$4
for tool in gst-launch-1.0 gst-inspect-1.0; do
    command -v $tool >/dev/null || { echo "SKIP: $tool not installed (gstreamer1.0-tools)"; exit 77; }
done
mkdir -p "$work" && cd "$work" || exit 1
export GST_PLUGIN_PATH=$plugin_dir GST_REGISTRY=$PWD/registry.bin GST_REGISTRY_FORK=no
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
src=$vectors/seq_5f_422_10b.jxs
launch() { timeout 60 gst-launch-1.0 -q "$@"; }
# wait_port PORT: until a UDP socket is bound to PORT (at most 15 s).
wait_port() {
    for _ in $(seq 150); do
        ss -Huln 2>/dev/null | grep -q ":$1 " && { sleep 0.2; return; }
        sleep 0.1
    done
}

# 1. Inspection.
gst-inspect-1.0 xsflow > inspect.txt 2> inspect.err
check $? "gst-inspect-1.0 xsflow: $(cat inspect.err)"
for e in xsflowdec xsflowenc xsflowjxsparse xsflowjxspay xsflowjxsdepay; do
    grep -q "^  $e: " inspect.txt
    check $? "gst-inspect-1.0 xsflow does not list $e"
    gst-inspect-1.0 $e > /dev/null 2> inspect-$e.err && ! grep -q -i "critical\|warning" inspect-$e.err
    check $? "gst-inspect-1.0 $e: $(cat inspect-$e.err)"
done
grep -q "5 elements" inspect.txt
check $? "gst-inspect-1.0 xsflow: not 5 elements"

# 2. Round trips from a test source.
for caps in "format=I420,width=320,height=240" "format=I422_10LE,width=352,height=288" \
            "format=Y444,width=128,height=96,interlace-mode=interleaved"; do
    rm -f in.raw out.raw
    launch videotestsrc num-buffers=5 pattern=smpte ! "video/x-raw,$caps" ! tee name=t \
        t. ! queue ! filesink location=in.raw \
        t. ! queue ! xsflowenc lossless=true ! xsflowdec ! filesink location=out.raw
    check $? "lossless round trip $caps: pipeline"
    [ -s in.raw ] && cmp -s in.raw out.raw
    check $? "lossless round trip $caps: the decoded frames differ from the source"
done
# Lossy: a moving picture (each frame differs, so a lost, repeated or
# reordered frame shows), the codestreams kept. Every decoded frame must be
# the C decoder's picture of the same codestream (xsflow decode --cpu) and
# close to its source frame (PSNR); byte counts alone pass an all-zero output.
rm -f in.raw out.raw enc.jxs ref.yuv
launch videotestsrc num-buffers=5 pattern=smpte horizontal-speed=8 ! \
    "video/x-raw,format=I422_10LE,width=320,height=240" ! tee name=t \
    t. ! queue ! filesink location=in.raw \
    t. ! queue ! xsflowenc bits-per-pixel=3 ! tee name=e \
    e. ! queue ! filesink location=enc.jxs \
    e. ! queue ! xsflowjxsparse ! xsflowdec ! filesink location=out.raw
check $? "lossy round trip: pipeline"
"$xsflow" decode enc.jxs -o ref.yuv --cpu -q
check $? "lossy round trip: xsflow decode --cpu of xsflowenc's codestreams"
# frames.py SOURCE DECODED REFERENCE FRAME_BYTES FRAMES: 10-bit little-endian samples.
python3 - in.raw out.raw ref.yuv $((320 * 240 * 2 * 2)) 5 << 'PY'
import array, math, sys
src, out, ref = (open(p, "rb").read() if __import__("os").path.exists(p) else b"" for p in sys.argv[1:4])
size, frames = int(sys.argv[4]), int(sys.argv[5])
bad = 0
for name, data in (("source", src), ("decoded", out), ("C decoder", ref)):
    if len(data) != size * frames:
        print("FAIL: %s: %d bytes, %d frames of %d expected" % (name, len(data), frames, size))
        bad = 1
if bad:
    sys.exit(1)
for i in range(frames):
    a = array.array("H", src[i * size:(i + 1) * size])
    b = array.array("H", out[i * size:(i + 1) * size])
    if out[i * size:(i + 1) * size] != ref[i * size:(i + 1) * size]:
        print("FAIL: frame %d: xsflowdec's picture is not the C decoder's" % i)
        bad = 1
    se = sum((x - y) * (x - y) for x, y in zip(a, b))
    psnr = 10 * math.log10(1023 * 1023 * len(a) / se) if se else 99
    print("frame %d: PSNR %.1f dB against the source" % (i, psnr))
    if psnr < 35:
        print("FAIL: frame %d: PSNR %.1f dB, 35 expected at 3 bits a pixel" % (i, psnr))
        bad = 1
sys.exit(bad)
PY
check $? "lossy round trip: the decoded frames"

port=$((20000 + RANDOM % 20000))
cat "$src" "$src" > twice.jxs
rtp_caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=JXSV"

# receive_gst NAME PORT FRAMES: udpsrc ! xsflowjxsdepay ! filesink NAME.jxs in the
# background, until FRAMES frames have been written (identity ends the stream
# at the buffer after them, so the senders send the file twice).
receive_gst() {
    rm -f "$1.jxs"
    launch udpsrc address=127.0.0.1 port=$2 caps="$rtp_caps" buffer-size=8388608 ! xsflowjxsdepay ! \
        identity eos-after=$(($3 + 1)) ! filesink location="$1.jxs" 2> "$1.log" &
    rx=$!
    wait_port $2
}

# 3. Payloader to depayloader over loopback.
for mode in codestream slice; do
    port=$((port + 1))
    receive_gst gst-$mode $port 5
    launch filesrc location=twice.jxs ! xsflowjxsparse ! xsflowjxspay packetization-mode=$mode ! \
        udpsink host=127.0.0.1 port=$port
    check $? "gst $mode: send"
    wait $rx
    check $? "gst $mode: receive ($(cat gst-$mode.log))"
    cmp -s "$src" gst-$mode.jxs
    check $? "gst $mode: the received codestreams differ from the file"
done

# 4. xsflow send to xsflowjxsdepay.
for mode in codestream slice; do
    port=$((port + 1))
    receive_gst send-$mode $port 5
    timeout 30 "$xsflow" send "$src" --to 127.0.0.1:$port --mode $mode --fps 100 --loop 2 -q
    check $? "xsflow send $mode"
    wait $rx
    check $? "xsflow send $mode -> xsflowjxsdepay ($(cat send-$mode.log))"
    cmp -s "$src" send-$mode.jxs
    check $? "xsflow send $mode -> xsflowjxsdepay: the codestreams differ"
done

# 5. xsflowjxspay to xsflow recv.
for mode in codestream slice; do
    port=$((port + 1))
    rm -f recv-$mode.jxs
    timeout 30 "$xsflow" recv 127.0.0.1:$port -o recv-$mode.jxs --frames 5 --timeout 10 -q 2> recv-$mode.log &
    rx=$!
    wait_port $port
    launch filesrc location="$src" ! xsflowjxsparse ! xsflowjxspay packetization-mode=$mode pt=112 ! \
        udpsink host=127.0.0.1 port=$port
    check $? "xsflowjxspay $mode: send"
    wait $rx
    check $? "xsflowjxspay $mode -> xsflow recv ($(tail -1 recv-$mode.log))"
    cmp -s "$src" recv-$mode.jxs
    check $? "xsflowjxspay $mode -> xsflow recv: the codestreams differ"
done

# 6. Two legs (SMPTE ST 2022-7): gst/README.md's pipeline on loopback, one udpsrc a
# leg into xsflowjxsdepay's sink and sink_1, from xsflow send on both legs, then on one
# (the other leg's source gets nothing: a leg down from the start).
for legs in 2 1; do
    port=$((port + 2)) a=$port b=$((port + 1))
    rm -f dup-$legs.jxs
    launch xsflowjxsdepay name=d ! identity eos-after=6 ! filesink location=dup-$legs.jxs \
        udpsrc address=127.0.0.1 port=$a buffer-size=8388608 caps="$rtp_caps" ! d.sink \
        udpsrc address=127.0.0.1 port=$b buffer-size=8388608 caps="$rtp_caps" ! d.sink_1 \
        2> dup-$legs.log &
    rx=$!
    wait_port $a
    wait_port $b
    to=127.0.0.1:$a,127.0.0.1:$b
    [ $legs = 1 ] && to=127.0.0.1:$b
    timeout 30 "$xsflow" send "$src" --to $to --fps 100 --loop 2 -q
    check $? "xsflow send --to $to"
    wait $rx
    check $? "two-leg xsflowjxsdepay, $legs leg(s) sending ($(cat dup-$legs.log))"
    cmp -s "$src" dup-$legs.jxs
    check $? "two-leg xsflowjxsdepay, $legs leg(s) sending: the codestreams differ"
done

echo "launch: $pass passed, $fail failed"
[ $fail = 0 ]
