#!/usr/bin/env bash
# Live encoding at UHD60 (issue 31 item 4): `xsflow send IN.y4m --bpp B` encodes
# each frame and sends it paced, one frame ahead, to `xsflow recv` on loopback.
# Does the encoder keep up, and how much latency does it add?
#
#   bash bench/latency/live_encode.sh BUILD_DIR [VECTOR.jxs] [FRAMES] [BPP]
#
# The input: VECTOR (default the UHD 4:2:2 10-bit 3 bpp vector) decoded once and
# repeated FRAMES times (default 600: 10 s at 60 fps) into a .y4m on $XSF_BENCH_TMP
# (default /tmp: 33 MB a UHD frame). Each engine (--gpu, then --cpu with at most
# 60 frames: the C encoder is not expected to keep up) sends to its own recv
# (XSF_LIVE_ENGINES: the engines, default "gpu cpu").
# Printed per engine: the encoder's time a frame (mean, p50, p99, max; frame n+1 is
# read on a thread of its own while frame n is encoded and n-1 goes out, each a
# frame ahead at most, so the latency it adds is one encode: at most one frame
# time when the p99s of read and encode are < 1000/60 ms), the read time, the
# sender's wall time against the frames' own duration (keeping up: ratio <= 1.0x
# plus the start-up), and what recv got (whole frames, dropped, last packet ->
# picture p50/p99).
set -u
# shellcheck source=bench/latency/common.sh
. "$(dirname "$0")/common.sh"
latency_setup live_encode /tmp "$1" "${2:-}"
FRAMES=${3:-600} BPP=${4:-3}
Y=$W/live_encode.y4m
"$X" decode "$V" -o "$W/one.y4m" -q || { echo "decode of $V failed"; exit 1; }
h=$(head -1 "$W/one.y4m" | wc -c)
{
    head -1 "$W/one.y4m"
    for _ in $(seq "$FRAMES"); do tail -c +$((h + 1)) "$W/one.y4m"; done
} > "$Y"
rm -f "$W/one.y4m"
say "live encoding: $(basename "$V") decoded, $FRAMES frames, $(head -1 "$Y" | cut -c1-60), $BPP bpp, 60 fps"
say ""
say "| engine | frames | encode ms mean / p50 / p99 / max | read ms mean / p99 | send wall s (frames' own s) | recv whole / dropped | recv latency p50 / p99 us | recv first picture ms after first packet |"
say "| --- | ---: | --- | ---: | --- | --- | --- | ---: |"
one() {
    local engine=$1 n=$2 port=$((30000 + RANDOM % 20000))
    local j=${OUT:+$OUT/live_encode}
    j=${j:-$W}
    "$X" recv "127.0.0.1:$port" -o null --timeout 3 --frames "$n" --stats-json "$j/recv_$engine.json" -q &
    local rpid=$!
    sleep 1.0 # recv's start-up (its sockets are open long before this)
    local a b
    a=$(date +%s%N)
    "$X" send "$Y" --bpp "$BPP" "--$engine" --frames "$n" --fps 60 --to "127.0.0.1:$port" \
        --stats-json "$j/send_$engine.json" -q || {
        say "| $engine | send failed |"
        kill "$rpid"
        wait "$rpid"
        return
    }
    b=$(date +%s%N)
    wait "$rpid"
    local s=$j/send_$engine.json r=$j/recv_$engine.json
    enc() { grep -o "\"encode_us\": {[^}]*}" "$s" | grep -o "\"$1\": [0-9.]*" | awk '{printf "%.2f", $2 / 1000}'; }
    rd() { grep -o "\"read_us\": {[^}]*}" "$s" | grep -o "\"$1\": [0-9.]*" | awk '{printf "%.2f", $2 / 1000}'; }
    whole=$(grep -o '"frames_whole": [0-9]*' "$r" | head -1 | awk '{print $2}')
    dropped=$(grep -o '"frames_dropped": [0-9]*' "$r" | head -1 | awk '{print $2}')
    say "| $engine | $n | $(enc mean) / $(enc p50) / $(enc p99) / $(enc max) | $(rd mean) / $(rd p99) | $(calc "($b - $a) / 1e9") ($(calc "$n / 60")) | $whole / $dropped | $(lat "$r" latency_host_us 1 p50) / $(lat "$r" latency_host_us 1 p99) | $(grep -o '"first_picture_ms": [0-9.]*' "$r" | head -1 | awk '{print $2}') |"
}
for e in ${XSF_LIVE_ENGINES:-gpu cpu}; do
    if [ "$e" = gpu ]; then one gpu "$FRAMES"; else one "$e" $((FRAMES < 60 ? FRAMES : 60)); fi
done
rm -f "$Y"
