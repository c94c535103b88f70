#!/bin/bash
# Timing on the plant's clock over loopback UDP, sender and receiver on this
# host's one clock: `xsflow send` stamps each frame with its instant on the TAI
# grid and paces it from there (narrow: its packets over the frame period);
# `xsflow recv --ptp` reads each frame's RTP timestamp back as its capture
# instant. Capture-to-picture and last-packet-to-picture latency differ by the
# frame's last packet's time after its capture, which must lie within
# [0, frame period + margin] for every frame (frame log, --stats-json). An SDP
# naming PTP without --ptp: measured too, with one warning. Traffic goes to
# loopback only.
# usage: ptp_loopback.sh XSFLOW VECTOR_DIR WORK_DIR
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3
mkdir -p "$work" && cd "$work" || exit 1
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
src=$vectors/seq_5f_422_10b.jxs
port=$((20000 + RANDOM % 20000))
# 25 fps: a frame period of 40 ms; the margin (20 ms) absorbs the sender's late wake-ups
# and the receiver's scheduling on a loaded machine, and is less than the frame period, so
# a frame stamped one frame off the grid, or clocks a second apart, fail.
period_ns=40000000 margin_ns=20000000

rm -f frames.csv stats.json
timeout 30 "$xsflow" recv 127.0.0.1:$port --ptp -o null --frames 20 --timeout 5 \
    --frame-log frames.csv --stats-json stats.json -q 2> recv.log &
rx=$!
sleep 0.5
timeout 30 "$xsflow" send "$src" --to 127.0.0.1:$port --loop 4 --fps 25 -q
check $? "send"
wait $rx
check $? "recv ($(tail -1 recv.log))"
# Columns: 6 last_packet_ns, 14 capture_ns.
awk -F, -v p=$period_ns -v m=$margin_ns '
    NR == 1 { if ($14 != "capture_ns") bad++; next }
    { n++; d = $6 - $14; if ($14 <= 0 || d < 0 || d > p + m) { bad++; print "frame " $2 ": last packet " d " ns after capture" } }
    END { exit !(n == 20 && !bad) }' frames.csv
check $? "frame log: 20 frames, each one's last packet within [0, $((period_ns + margin_ns))] ns of its capture"
# --stats-json: both latencies over the 20 frames, capture to picture the longer.
python3 - stats.json $period_ns $margin_ns <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["streams"][0]
lat, cap = s["latency_us"], s["latency_capture_us"]
p, m = int(sys.argv[2]) / 1000, int(sys.argv[3]) / 1000
ok = (lat["count"] == cap["count"] == 20 and s["frames_capture_after_picture"] == 0 and
      0 <= cap["p50"] - lat["p50"] <= p + m)
sys.exit(0 if ok else 1)
PY
check $? "stats json: $(python3 -c 'import json,sys; s=json.load(open("stats.json"))["streams"][0]; print(s["latency_us"], s["latency_capture_us"])' 2> /dev/null)"

# An SDP naming PTP (send's default), no --ptp: one warning, the latency measured.
port=$((port + 1))
"$xsflow" send "$src" --pcap /dev/null --to 127.0.0.1:$port --sdp ptp.sdp --fps 25 -q
grep -q "^a=ts-refclk:ptp=IEEE1588-2008:traceable" ptp.sdp && grep -q "^a=mediaclk:direct=0" ptp.sdp
check $? "SDP: $(grep 'ts-refclk\|mediaclk' ptp.sdp | tr '\r\n' '  ')"
timeout 30 "$xsflow" recv --sdp ptp.sdp -o null --frames 5 --timeout 5 --stats-json sdp.json \
    -q 2> sdp.log &
rx=$!
sleep 0.5
timeout 30 "$xsflow" send "$src" --to 127.0.0.1:$port --fps 25 -q
wait $rx
check $? "recv --sdp ($(tail -1 sdp.log))"
[ "$(grep -c 'warning: the SDP.s timestamps are on PTP' sdp.log)" = 1 ] &&
    python3 -c 'import json; s=json.load(open("sdp.json"))["streams"][0]; exit(s["latency_capture_us"]["count"] != 5)'
check $? "one warning, 5 frames measured: $(cat sdp.log)"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
