#!/usr/bin/env bash
# bench/latency: end-to-end latency of `xsflow recv`, per stream, on one clock
# (CLOCK_REALTIME; the last packet's time is the kernel's receive timestamp):
#   last packet -> picture in device memory, last packet -> picture in host
#   memory, first packet -> picture ready,
# for a UHD60 4:2:2 10-bit 3 bpp stream sent by `xsflow send` paced as
# ST 2110-21 narrow over loopback UDP, in both packetization modes, whole
# frames (recv) against slices decoded as they arrive (recv --slices), with
# one stream and with K streams at once (default 8).
#
#   bash bench/latency/run.sh BUILD_DIR [VECTOR.jxs]
#
# VECTOR defaults to ../shared/vectors/xs-uhd/uhd_422_10b_bpp3.jxs (one
# frame; sent over and over). Environment: XSF_LAT_SECONDS (per run, default
# 20), XSF_LAT_STREAMS (default "1 8"), XSF_LAT_MODES (default "codestream
# slice"). Targets (issue 16, H100): device <= 500 us and host <= 1000 us
# after the last packet (p99). Prints a markdown table; with OUT set, also
# writes it to $OUT/latency.md and keeps each run's JSON under $OUT/latency/.
set -u
# shellcheck source=bench/latency/common.sh
. "$(dirname "$0")/common.sh"
latency_setup latency /dev/shm/xsf-latency "$@"
SECONDS_RUN=${XSF_LAT_SECONDS:-20}
num() { grep -o "\"$2\": [0-9.]*" "$1" | sed -n "${3}p" | awk '{print $2}'; }

say "# bench/latency $(date -u +%F)"
say "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(nproc) cores;" \
    "$(basename "$V") at 60 fps, paced narrow, loopback UDP, ${SECONDS_RUN} s a run"
say ""
say "Latency in microseconds, p50 / p99 / max; with several streams, the stream with the worst p99."
say "Device and host: from the last packet of a frame; ready: from its first packet (host picture)."
say "The first 3 s of each run (start-up) are left out of the latencies (recv --warmup)."
say ""
say "| packetization | decoding | streams | frames whole | dropped | device p50 / p99 / max | host p50 / p99 / max | first packet -> ready p50 / p99 | targets (device p99 <= 500, host p99 <= 1000) |"
say "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
frames=$(((SECONDS_RUN + 3) * 60 + 60))
run=0
for mode in ${XSF_LAT_MODES:-codestream slice}; do
    for K in ${XSF_LAT_STREAMS:-1 8}; do
        for slices in 0 1; do
            run=$((run + 1))
            base=$((31000 + run * 20))
            json=$W/lat-$mode-$K-$slices.json
            rm -f "$json"
            args=()
            for k in $(seq 0 $((K - 1))); do args+=(127.0.0.1:$((base + k)) -o null); done
            extra=()
            # (recv decodes live streams by slices by default: the whole-frame rows ask.)
            if [ $slices = 1 ]; then extra+=(--slices); else extra+=(--whole-frames); fi
            # The first 3 s (pinned frame buffers growing to UHD, GPU contexts' first
            # frames) are left out of the latencies.
            "$X" recv "${args[@]}" "${extra[@]}" --duration $((SECONDS_RUN + 7)) --timeout 0 --warmup 4.5 \
                --rcvbuf 268435456 --stats-json "$json" -q 2> "$W/recv.log" &
            rx=$!
            sleep 1.5 # the receiver's sockets are open and its GPU contexts made
            pids=()
            for k in $(seq 0 $((K - 1))); do
                timeout $((SECONDS_RUN + 6)) "$X" send "$V" --to 127.0.0.1:$((base + k)) --fps 60 \
                    --mode $mode --loop $frames -q &
                pids+=($!)
            done
            wait "${pids[@]}" 2> /dev/null
            wait $rx || { say "| $mode | recv failed: $(tail -1 "$W/recv.log") |"; continue; }
            [ -n "${OUT:-}" ] && cp "$json" "$OUT/latency/"
            whole=0 dropped=0 worst=1 w99=-1
            for k in $(seq 1 "$K"); do
                whole=$((whole + $(num "$json" frames_whole "$k")))
                dropped=$((dropped + $(num "$json" frames_dropped "$k")))
                h99=$(lat "$json" latency_host_us "$k" p99)
                if [ "$(calc "($h99 > $w99) ? 1 : 0")" = 1 ]; then w99=$h99 worst=$k; fi
            done
            d50=$(lat "$json" latency_device_us $worst p50) d99=$(lat "$json" latency_device_us $worst p99)
            dmax=$(lat "$json" latency_device_us $worst max)
            h50=$(lat "$json" latency_host_us $worst p50) h99=$(lat "$json" latency_host_us $worst p99)
            hmax=$(lat "$json" latency_host_us $worst max)
            f50=$(lat "$json" latency_first_packet_us $worst p50)
            f99=$(lat "$json" latency_first_packet_us $worst p99)
            ok_d=$(calc "($d99 <= 500) ? \"met\" : \"missed\"") ok_h=$(calc "($h99 <= 1000) ? \"met\" : \"missed\"")
            [ "$(lat "$json" latency_device_us $worst count)" = 0 ] && ok_d="not measured (no GPU)"
            label=whole; [ $slices = 1 ] && label="slices (--slices)"
            say "| $mode | $label | $K | $whole | $dropped | $d50 / $d99 / $dmax | $h50 / $h99 / $hmax | $f50 / $f99 | device $ok_d, host $ok_h |"
        done
    done
done
