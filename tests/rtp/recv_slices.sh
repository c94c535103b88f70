#!/bin/bash
# `xsflow recv --slices` over loopback UDP, both packetization modes: the
# decoded .yuv equals a run without --slices and `xsflow decode`'s, every
# frame is handed to the decoder before it is whole, and --stats-json
# reports the latencies per stream (last packet -> device, -> host, first
# packet -> ready). Traffic goes to loopback only.
# usage: recv_slices.sh XSFLOW VECTOR_DIR WORK_DIR
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3
mkdir -p "$work" && cd "$work" || exit 1
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
src=$vectors/seq_5f_422_10b.jxs
cat "$src" "$src" > clip.jxs
timeout 60 "$xsflow" decode clip.jxs -o ref.yuv -q
check $? "decode"
port=$((20000 + RANDOM % 20000))

run() { # NAME MODE RECV_OPTIONS...
    local name=$1 mode=$2
    shift 2
    port=$((port + 1))
    rm -f "$name.yuv" "$name.json"
    timeout 30 "$xsflow" recv 127.0.0.1:$port -o "$name.yuv" --frames 10 --timeout 10 -q \
        --stats-json "$name.json" "$@" 2> "$name.log" &
    local rx=$!
    sleep 0.5
    timeout 30 "$xsflow" send "$src" --to 127.0.0.1:$port --loop 2 --fps 100 --mode "$mode" -q
    check $? "$name: send"
    wait $rx
    check $? "$name: recv ($(tail -1 "$name.log"))"
}

for mode in codestream slice; do
    run whole-$mode $mode
    run slices-$mode $mode --slices
    cmp -s ref.yuv "whole-$mode.yuv"
    check $? "$mode: recv differs from xsflow decode"
    cmp -s "whole-$mode.yuv" "slices-$mode.yuv"
    check $? "$mode: recv --slices differs from recv"
    grep -q '"frames_partial_submitted": 10,' "slices-$mode.json"
    check $? "$mode: not every frame was handed over partially: $(grep -o '"frames_partial_submitted": [0-9]*' "slices-$mode.json")"
    grep -q '"frames_partial_submitted": 0,' "whole-$mode.json"
    check $? "$mode: frames handed over partially without --slices"
    for key in latency_us latency_first_packet_us latency_host_us latency_device_us; do
        grep -q "\"$key\": {\"count\": " "slices-$mode.json"
        check $? "$mode: --stats-json has no $key"
    done
    grep -q '"latency_host_us": {"count": 10,' "slices-$mode.json"
    check $? "$mode: host latency not measured for every frame"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
