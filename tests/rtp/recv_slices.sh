#!/bin/bash
# `xsflow recv --slices` (sub-frame latency: each frame's slices decoded as
# they arrive) over loopback UDP. Traffic goes to loopback only.
#   cpu: the CPU engine decodes whole frames only (the C decoder has no
#        incremental interface), so --slices is refused there with a
#        message, with --cpu and, where no GPU is usable, without it; recv
#        without --slices equals `xsflow decode`.
#   gpu: (skipped, 77, where no GPU is usable) in both packetization modes
#        the decoded .yuv equals a run with --whole-frames and `xsflow
#        decode`'s, every frame is handed to the decoder before it is whole
#        (with --slices, and without it: the default for a live stream),
#        the frame log shows every frame after the stream's start-up begun
#        decoding before its last packet came (decode_start_ns <
#        last_packet_ns), and --stats-json
#        reports the latencies (last packet -> device, -> host, first packet
#        -> ready).
# usage: recv_slices.sh XSFLOW VECTOR_DIR WORK_DIR cpu|gpu
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3 engine=${4:-cpu}
mkdir -p "$work/$engine" && cd "$work/$engine" || exit 1
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
src=$vectors/seq_5f_422_10b.jxs
cat "$src" "$src" > clip.jxs
port=$((20000 + RANDOM % 20000))

# Whether the GPU engine can run here: recv --gpu refuses to start without one (with
# one it runs, and exits 1 for want of a frame: nobody sends).
t0=$(date +%s%N)
timeout 60 "$xsflow" recv 127.0.0.1:$port -o null --gpu --duration 0.2 --timeout 0.2 -q 2> gpu.log
gpu=$?
# How long recv takes to start here (its CUDA contexts: 0.3-0.7 s on one or two H200s): the
# sender starts after that, so that the frames after the stream's start-up are there to check.
startup=$(awk -v ns=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.2f", ns / 1e9 + 0.3 }')
[ $gpu = 1 ] && grep -q "no frame: no packet came" gpu.log && gpu=0
refusal="--slices: sub-frame decoding runs on the GPU engine only"

run() { # NAME MODE RECV_OPTIONS...
    local name=$1 mode=$2
    shift 2
    port=$((port + 1))
    rm -f "$name.yuv" "$name.json" "$name.csv"
    timeout 30 "$xsflow" recv 127.0.0.1:$port -o "$name.yuv" --frames 10 --timeout 10 -q \
        --stats-json "$name.json" --frame-log "$name.csv" "$@" 2> "$name.log" &
    local rx=$!
    sleep "$startup"
    timeout 30 "$xsflow" send "$src" --to 127.0.0.1:$port --loop 2 --fps 100 --mode "$mode" -q
    check $? "$name: send"
    wait $rx
    check $? "$name: recv ($(tail -1 "$name.log"))"
}

if [ "$engine" = cpu ]; then
    timeout 60 "$xsflow" decode clip.jxs --cpu -o ref.yuv -q
    check $? "decode"
    # Refused before anything is opened: exit 2 and the reason, with --cpu ...
    timeout 30 "$xsflow" recv 127.0.0.1:$((port + 100)) -o x.yuv --slices --cpu --timeout 1 2> refused.log
    rc=$?
    [ $rc = 2 ] && grep -qF -- "$refusal" refused.log
    check $? "recv --slices --cpu: exit $rc, expected 2 and \"$refusal\": $(head -1 refused.log)"
    # ... and where the engine falls back to the CPU (no usable GPU).
    if [ $gpu != 0 ]; then
        timeout 30 "$xsflow" recv 127.0.0.1:$((port + 101)) -o x.yuv --slices --timeout 1 2> refused.log
        rc=$?
        [ $rc = 2 ] && grep -qF -- "$refusal" refused.log
        check $? "recv --slices on the CPU fallback: exit $rc, expected 2 and \"$refusal\": $(head -1 refused.log)"
    fi
    for mode in codestream slice; do
        run whole-$mode $mode --cpu
        cmp -s ref.yuv "whole-$mode.yuv"
        check $? "$mode: recv --cpu differs from xsflow decode"
    done
    echo "$pass passed, $fail failed"
    [ "$fail" = 0 ]
    exit
fi

if [ $gpu != 0 ]; then
    echo "no usable GPU ($(tail -1 gpu.log)): skipped"
    exit 77
fi
timeout 60 "$xsflow" decode clip.jxs --cpu -o ref.yuv -q
check $? "decode"
for mode in codestream slice; do
    run whole-$mode $mode --gpu --whole-frames
    run slices-$mode $mode --gpu --slices
    run default-$mode $mode --gpu
    cmp -s "whole-$mode.yuv" "default-$mode.yuv"
    check $? "$mode: recv (by slices, the default for a live stream) differs from recv --whole-frames"
    grep -q '"frames_partial_submitted": 10,' "default-$mode.json"
    check $? "$mode: a live stream is not decoded by slices by default: $(grep -o '"frames_partial_submitted": [0-9]*' "default-$mode.json")"
    cmp -s ref.yuv "whole-$mode.yuv"
    check $? "$mode: recv differs from xsflow decode"
    cmp -s "whole-$mode.yuv" "slices-$mode.yuv"
    check $? "$mode: recv --slices differs from recv"
    grep -q '"frames_partial_submitted": 10,' "slices-$mode.json"
    check $? "$mode: not every frame was handed over partially: $(grep -o '"frames_partial_submitted": [0-9]*' "slices-$mode.json")"
    grep -q '"frames_partial_submitted": 0,' "whole-$mode.json"
    check $? "$mode: frames handed over partially with --whole-frames"
    # The frame log: a line a frame; decoding began (decode_start_ns, column 8)
    # before the last packet came (last_packet_ns, column 6). Frames whose
    # first packet came before the pipeline queued its first frame
    # (queued_ns, column 7) wait for the stream's start-up (the decoder and
    # its pools configured from the first header: 10-20 ms on an H200, the
    # first two frames at 100 fps), so the promise is for the frames after
    # that: every one of them, and at least 5 of the 10.
    frames=$(awk 'END { print NR - 1 }' "slices-$mode.csv")
    read -r steady early < <(awk -F, 'NR > 1 { q[NR] = $7; f[NR] = $5; s[NR] = $8; l[NR] = $6
        if (!t || $7 < t) t = $7 }
        END { for (i in q) if (f[i] > t) { n++; if (s[i] > 0 && s[i] < l[i]) e++ }
              print n + 0, e + 0 }' "slices-$mode.csv")
    [ "$frames" = 10 ] && [ "$steady" -ge 5 ] && [ "$early" = "$steady" ]
    check $? "$mode: recv --slices began decoding $early of the $steady frames after start-up before their last packet (want all, and at least 5; $frames frames logged)"
    for key in latency_us latency_first_packet_us latency_host_us latency_device_us; do
        grep -q "\"$key\": {\"count\": " "slices-$mode.json"
        check $? "$mode: --stats-json has no $key"
    done
    grep -q '"latency_host_us": {"count": 10,' "slices-$mode.json"
    check $? "$mode: host latency not measured for every frame"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
