#!/usr/bin/env bash
# Many streams on one GPU (issue 29 item 4): how the GPU stage schedules
# frames that are ready together, against what the library does alone.
#   1. bench/xs_decode, 1000 frames of UHD 4:2:2 10-bit 3 bpp: the library's
#      3-stage rate (the reference for the GPU stage in recv);
#   2. recv --pcap of 8 1000-frame captures at once to device memory, with
#      the decoder contexts per GPU of XSF_SCHED_CONTEXTS (default "3 6 12"):
#      the process's steady rate / the library's 3-stage rate;
#   3. live K=16 UHD60 senders on loopback (their frames aligned on the TAI
#      grid, as on a PTP plant) into one recv, pictures in host and in device
#      memory, whole-frame decode and --slices (XSF_SCHED_LIVE: "OUT|ARGS"
#      items): latency p50/p99 of the worst stream, drops.
#
#   bash bench/pipeline/sched.sh BUILD UHD_DIR
set -u
B=$(readlink -f "$1") V=$(readlink -f "$2")
W=${XSF_BENCH_TMP:-/dev/shm/xsf-pipeline}
mkdir -p "$W"
echo "## 1. the library alone"
"$B/bench/xs_decode/xs_decode_bench" --frames 1000 "$V/uhd_422_10b_bpp3.jxs" | tee "$W/xsdec.log"
echo
echo "## 2. recv --pcap, 8 captures of 1000 frames at once, device memory"
for c in ${XSF_SCHED_CONTEXTS:-3 6 12}; do
    echo "### --contexts $c"
    XSF_PIXFMT_OUT=null:device XSF_PIXFMT_STREAMS=8 XSF_PIXFMT_FORMATS=planar16 \
        XSF_PCAP_RECV_ARGS="--contexts $c" bash bench/pipeline/run.sh "$B" "$V" pixfmt |
        grep '^| planar16 | 8 '
done
echo
echo "## 3. live K=16, aligned UHD60 senders"
IFS=';' read -r -a runs <<< "${XSF_SCHED_LIVE:-null|--whole-frames;null|--slices;null:device|--whole-frames;null:device|--slices}"
for r in "${runs[@]}"; do
    echo "### -o ${r%%|*} ${r#*|}"
    XSF_LIVE_K=16 XSF_LIVE_OUT=${r%%|*} XSF_LIVE_RECV_ARGS=${r#*|} bash bench/pipeline/run.sh "$B" "$V" live |
        grep '^| 16 '
    python3 bench/pipeline/frame_log.py "$W/frames16.csv" --skip 3 | sed -n '1,14p'
done
