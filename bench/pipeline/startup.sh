#!/usr/bin/env bash
# Start-up of the commands users run, whole process, wall clock (issue 29 item 3):
# `xsflow decode` of one UHD frame on the GPU (every GPU, the first only) and with
# --cpu, of a 200-frame file, and `xsflow recv --pcap` of a 2-frame capture.
# Each figure is the median of RUNS runs (5 by default) with the spread.
#
#   bash bench/pipeline/startup.sh BUILD_DIR UHD_DIR
set -u
B=$1 V=$2
X=$B/xsflow
RUNS=${XSF_STARTUP_RUNS:-5}
W=$(mktemp -d /dev/shm/xsf-startup.XXXXXX)
trap 'rm -rf "$W"' EXIT
one=$V/uhd_422_10b_bpp3.jxs
cat "$one" "$one" > "$W/two.jxs"
for i in $(seq 200); do cat "$one"; done > "$W/u200.jxs"
"$X" send "$W/two.jxs" --pcap "$W/two.pcap" --fps 60 -q 2> /dev/null ||
    "$X" send "$W/two.jxs" --pcap "$W/two.pcap" --fps 60 --clock free -q

# runs LABEL CMD...: RUNS wall times of CMD in ms; prints median, min, max
runs() {
    local label=$1
    shift
    local t=()
    for r in $(seq "$RUNS"); do
        local a b
        a=$(date +%s%N)
        "$@" > "$W/out.log" 2>&1 || { echo "| $label | failed: $(tail -1 "$W/out.log") |"; return; }
        b=$(date +%s%N)
        t+=($(((b - a) / 1000000)))
    done
    local s
    s=$(printf '%s\n' "${t[@]}" | sort -n)
    printf '| %s | %s | %s | %s |\n' "$label" "$(echo "$s" | sed -n "$(((RUNS + 1) / 2))p")" \
        "$(echo "$s" | head -1)" "$(echo "$s" | tail -1)"
}
echo "persistence mode: $(nvidia-smi --query-gpu=persistence_mode --format=csv,noheader 2> /dev/null | tr '\n' ' ')"
echo
echo "| command | median ms | min | max |"
echo "| --- | ---: | ---: | ---: |"
[ -x "$B/bench/pipeline/pipeline_first_frame" ] &&
    runs "floor: a process that makes one CUDA context and decodes 4 frames (pipeline_first_frame)" \
        "$B/bench/pipeline/pipeline_first_frame" "$one" "$one" 1
runs "decode 1 UHD frame (default GPUs)" "$X" decode "$one" -o "$W/o.yuv" -q
runs "decode 1 UHD frame --gpus 0" "$X" decode "$one" -o "$W/o.yuv" --gpus 0 -q
runs "decode 1 UHD frame --cpu" "$X" decode "$one" -o "$W/o.yuv" --cpu -q
runs "decode 1 UHD frame --gpu (waits for the GPU: no C decoder meanwhile)" "$X" decode "$one" -o "$W/o.yuv" --gpu -q
runs "decode 200 UHD frames (default GPUs)" "$X" decode "$W/u200.jxs" -o /dev/null --format yuv -q
runs "decode 200 UHD frames --gpus 0" "$X" decode "$W/u200.jxs" -o /dev/null --format yuv --gpus 0 -q
runs "recv --pcap 2-frame capture" "$X" recv --pcap "$W/two.pcap" -o null -q
runs "recv --pcap 2-frame capture --cpu" "$X" recv --pcap "$W/two.pcap" -o null --cpu -q
echo
echo "start-up phases of one decode (where the build prints them):"
"$X" decode "$one" -o "$W/o.yuv" 2>&1 | grep -iA12 "start-up" | head -16
"$X" decode "$W/u200.jxs" -o /dev/null --format yuv 2>&1 | grep -iA12 "start-up" | head -16
[ -x "$B/bench/pipeline/pipeline_first_frame" ] && "$B/bench/pipeline/pipeline_first_frame" "$one" "$one" 1 2>&1 | head -12
echo "recv --pcap (2 frames):"
"$X" recv --pcap "$W/two.pcap" -o null 2>&1 | grep -iE "start-up|process" | head -6
