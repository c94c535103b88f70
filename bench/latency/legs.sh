#!/usr/bin/env bash
# bench/latency/legs.sh: two legs (SMPTE ST 2022-7) against one, live over
# loopback UDP (issue 30, item 6): K streams (default 8 UHD60) received by one
# `xsflow recv`, in two phases of one invocation, back to back:
#   one leg:  each stream on one leg, unimpaired (the reference);
#   two legs: each stream on two legs (`send --to A,B`, `recv A,B`), both sent
#             at once (zero skew), 1 % of the packets lost on each leg, never
#             the same packet on both (`send --loss 0.01 --exclusive-loss`).
# For each phase: frames whole and dropped, packets lost (two legs: must be 0:
# nothing is lost on both legs), packets recovered from the other leg, the
# latency last packet -> picture in host memory (p50 / p99 / max of the stream
# with the worst p99, and the p99 over all streams' worst), and the receiving
# CPU per stream (user + system time of recv from /proc/PID/stat over the
# measured seconds, over K); then two legs against one: p99 (target: at most
# 5 % above one leg's) and CPU per stream.
#
#   bash bench/latency/legs.sh BUILD_DIR [VECTOR.jxs]
#
# VECTOR defaults to ../shared/vectors/xs-uhd/uhd_422_10b_bpp3.jxs (one
# frame, sent over and over). Environment: XSF_LEGS_STREAMS (K, default 8),
# XSF_LEGS_SECONDS (measured seconds a phase, default 20), XSF_LEGS_FPS
# (default 60), XSF_LEGS_ENGINE (gpu or cpu, default: recv's choice),
# XSF_LEGS_LOSS (default 0.01). A phase takes the measured seconds + 8.
# Locally, small: XSF_LEGS_STREAMS=2 XSF_LEGS_SECONDS=8 XSF_LEGS_FPS=50
#   bash bench/latency/legs.sh build vectors/xs/seq_5f_422_10b.jxs
# Prints a markdown table; with OUT set, also writes it to $OUT/legs.md and
# keeps each phase's JSON under $OUT/legs/. Exits 1 when the two-leg phase
# lost a frame or a packet, or a phase failed.
set -u
# shellcheck source=bench/latency/common.sh
. "$(dirname "$0")/common.sh"
latency_setup legs /dev/shm/xsf-legs "$@"
K=${XSF_LEGS_STREAMS:-8}
SECS=${XSF_LEGS_SECONDS:-20}
FPS=${XSF_LEGS_FPS:-60}
LOSS=${XSF_LEGS_LOSS:-0.01}
ENGINE=${XSF_LEGS_ENGINE:+--$XSF_LEGS_ENGINE}
WARM=4 # seconds left out at the start (pools growing, GPU contexts' first frames)
# The K-th stream's number KEY (a key of the stream's own object, before its legs).
num() { grep "\"name\": \"recv " "$1" | sed -n "${3}p" | grep -o "\"$2\": [0-9.]*" | head -1 | awk '{print $2}'; }
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2> /dev/null; }

say "# bench/latency/legs.sh $(date -u +%F)"
say "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1), $(nproc) cores;" \
    "$K x $(basename "$V") at $FPS fps, paced narrow, loopback UDP, $SECS s measured a phase" \
    "(after $WARM s), the phases back to back"
say ""
say "Dropped and lost: besides the edges (the receiver stops while the senders send)."
say ""
say "| phase | streams | frames whole | dropped | packets lost | recovered | host latency p50 / p99 / max (us, worst stream) | receiving CPU a stream (% of a core) |"
say "| --- | --- | --- | --- | --- | --- | --- | --- |"
frames=$(((SECS + WARM + 3) * FPS))
fail=0
declare -A P99 CPU
for legs in 1 2; do
    base=$((32000 + legs * 100))
    json=$W/legs-$legs.json
    rm -f "$json"
    args=()
    dests=()
    for k in $(seq 0 $((K - 1))); do
        d=127.0.0.1:$((base + 4 * k))
        [ $legs = 2 ] && d=$d,127.0.0.1:$((base + 4 * k + 2))
        dests+=("$d")
        args+=("$d" -o null)
    done
    # shellcheck disable=SC2086 # ENGINE: empty or one option
    "$X" recv "${args[@]}" $ENGINE --duration $((SECS + WARM + 2)) --timeout 0 --warmup $WARM \
        --rcvbuf 268435456 --stats-json "$json" -q 2> "$W/recv-$legs.log" &
    rx=$!
    sleep 1.5 # the receiver's sockets are open and its GPU contexts made
    pids=()
    for k in $(seq 0 $((K - 1))); do
        imp=()
        [ $legs = 2 ] && imp=(--loss "$LOSS" --exclusive-loss --seed $((100 + 2 * k)))
        timeout $((SECS + WARM + 4)) "$X" send "$V" --to "${dests[$k]}" --fps "$FPS" \
            --loop $frames "${imp[@]}" -q 2> /dev/null &
        pids+=($!)
    done
    # The receiver's CPU time over the measured seconds (after the warm-up).
    sleep $((WARM - 1))
    t0=$(ticks $rx) s0=$(date +%s.%N)
    sleep "$SECS"
    t1=$(ticks $rx) s1=$(date +%s.%N)
    wait "${pids[@]}" 2> /dev/null
    if ! wait $rx || [ ! -s "$json" ]; then
        say "| $legs leg(s) | recv failed: $(tail -1 "$W/recv-$legs.log") |"
        fail=1
        continue
    fi
    [ -n "${OUT:-}" ] && cp "$json" "$OUT/legs/"
    whole=0 dropped=0 lost=0 rec=0 worst=1 w99=-1
    for k in $(seq 1 "$K"); do
        n_whole=$(num "$json" frames_whole "$k") n_dropped=$(num "$json" frames_dropped "$k")
        n_lost=$(num "$json" packets_lost "$k") n_rec=$(num "$json" packets_recovered "$k")
        # The receiver stops while the senders send: what it cut at its end is not counted.
        e_lost=$(num "$json" packets_lost_edge "$k") e_dropped=$(num "$json" frames_dropped_edge "$k")
        whole=$((whole + ${n_whole:-0})) dropped=$((dropped + ${n_dropped:-0} - ${e_dropped:-0}))
        lost=$((lost + ${n_lost:-0} - ${e_lost:-0})) rec=$((rec + ${n_rec:-0}))
        h99=$(lat "$json" latency_host_us "$k" p99)
        if [ "$(calc "(${h99:-0} > $w99) ? 1 : 0")" = 1 ]; then w99=$h99 worst=$k; fi
    done
    h50=$(lat "$json" latency_host_us $worst p50) hmax=$(lat "$json" latency_host_us $worst max)
    cpu=$(calc "100 * (${t1:-0} - ${t0:-0}) / $(getconf CLK_TCK) / ($s1 - $s0) / $K")
    P99[$legs]=$w99 CPU[$legs]=$cpu
    say "| $legs leg$([ $legs = 2 ] && echo "s, $LOSS lost on each, never on both, zero skew") | $K | $whole | $dropped | $lost | $rec | $h50 / $w99 / $hmax | $(printf %.1f "$cpu") |"
    if [ $legs = 2 ] && { [ "$dropped" != 0 ] || [ "$lost" != 0 ]; }; then
        say "FAIL: two legs lost $lost packets, dropped $dropped frames (nothing is lost on both)"
        fail=1
    fi
done
if [ -n "${P99[1]:-}" ] && [ -n "${P99[2]:-}" ]; then
    r=$(calc "(${P99[1]} > 0 ? 100 * (${P99[2]} - ${P99[1]}) / ${P99[1]} : 0)")
    c=$(calc "(${CPU[1]} > 0 ? ${CPU[2]} / ${CPU[1]} : 0)")
    say ""
    say "Two legs against one: host p99 $(printf %+.1f "$r") % (target: at most +5 %)," \
        "$(calc "(${r} <= 5) ? \"met\" : \"missed\""); receiving CPU a stream $(printf %.1f "${CPU[2]}") %" \
        "against $(printf %.1f "${CPU[1]}") % of a core (x $(printf %.2f "$c"))."
fi
exit $fail
