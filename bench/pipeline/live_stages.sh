#!/usr/bin/env bash
# Live K=16, two builds side by side: K `xsflow send --fps 60` senders of UHD
# 4:2:2 3 bpp over loopback into one `xsflow recv`, the two builds' senders and
# receivers crossed (A/A, B/B, A-send/B-recv, B-send/A-recv), REPS times,
# alternating. Per run: the receiver's and the senders' CPU seconds, frames
# dropped, and the p50/p90 (us) over every frame of every stream after the
# first 3 s of each stage of the frame log (last packet -> queued -> decode
# start -> device picture -> host picture -> delivered), so that a change in
# the end-to-end latency can be put on a stage and on a build.
#
#   bash bench/pipeline/live_stages.sh BUILD_A BUILD_B UHD_DIR
#   (REPS=2 K=16 DUR=14 by default; scripts/device-beforeafter.sh STAGE livestages;
#   PAIRS, default "A/A B/B A/B B/A": the send/recv pairs of a round, e.g.
#   "A/A A/B" for the two receivers on the same senders only)
set -u
A=$(readlink -f "$1") B=$(readlink -f "$2") V=$(readlink -f "$3")
W=${XSF_BENCH_TMP:-/dev/shm/xsf-live-stages}
K=${K:-16} DUR=${DUR:-14} REPS=${REPS:-2} PAIRS=${PAIRS:-A/A B/B A/B B/A}
mkdir -p "$W"
clip=$W/clip.jxs
[ -s "$clip" ] || for _ in $(seq 200); do cat "$V/uhd_422_10b_bpp3.jxs"; done > "$clip"

# p50/p90 of each stage, us, over the frames after the first 3 s
stats() {
    local f=$1 out="" t0 v n
    t0=$(awk -F, '$1 ~ /^[0-9]/ { if (m == "" || $6 < m) m = $6 } END { print m }' "$f")
    for spec in "total 11 6" "last-queued 7 6" "queued-start 8 7" "start-device 9 8" \
        "device-host 10 9" "host-delivered 11 10"; do
        set -- $spec
        v=$(awk -F, -v a="$2" -v b="$3" -v t0="$t0" '$1 ~ /^[0-9]/ && $6 - t0 > 3e9 { print ($a - $b) / 1e3 }' "$f" | sort -n)
        n=$(echo "$v" | wc -l)
        out+="$1 $(echo "$v" | sed -n "$((n / 2 + 1))p" | cut -d. -f1)/$(echo "$v" | sed -n "$((n * 9 / 10 + 1))p" | cut -d. -f1) "
    done
    echo "frames $n; $out"
}

# one LABEL SEND_BUILD RECV_BUILD
one() {
    local label=$1 S=$2/xsflow X=$3/xsflow base=31000 args=() pids=() rx rcpu scpu drop
    for k in $(seq 0 $((K - 1))); do args+=(127.0.0.1:$((base + k)) -o null); done
    rm -f "$W/f.csv" "$W/r.json"
    ( TIMEFORMAT='%U %S'; time "$X" recv "${args[@]}" --duration $((DUR + 3)) --timeout 0 \
        --rcvbuf 268435456 -q --stats-json "$W/r.json" --frame-log "$W/f.csv" ) > /dev/null 2> "$W/r.log" &
    rx=$!
    sleep 1
    for k in $(seq 0 $((K - 1))); do
        ( TIMEFORMAT='%U %S'; time timeout "$DUR" "$S" send "$clip" --to 127.0.0.1:$((base + k)) \
            --fps 60 --loop 100 > /dev/null ) 2> "$W/s$k.log" &
        pids+=($!)
    done
    wait "${pids[@]}" 2> /dev/null
    wait $rx
    rcpu=$(tail -1 "$W/r.log" | awk '{ print $1 + $2 }')
    scpu=$(for k in $(seq 0 $((K - 1))); do tail -1 "$W/s$k.log"; done | awk '{ s += $1 + $2 } END { print s }')
    drop=$(grep -o '"frames_dropped": [0-9]*' "$W/r.json" | awk '{ s += $2 } END { print s + 0 }')
    echo "| $label | $rcpu | $scpu | $drop | $(stats "$W/f.csv") |"
}

echo "| run (send/recv build) | recv CPU s | send CPU s | dropped | stage p50/p90 us |"
echo "| --- | --- | --- | --- | --- |"
for rep in $(seq "$REPS"); do
    for pair in $PAIRS; do
        s=$A r=$A
        [ "${pair%/*}" = B ] && s=$B
        [ "${pair#*/}" = B ] && r=$B
        one "$pair $rep" "$s" "$r"
    done
done
rm -rf "$W"
