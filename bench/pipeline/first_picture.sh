#!/usr/bin/env bash
# First pictures (issue 29 item 3), measured as recv reports them:
#   warm  recv runs (its pipeline ready), then K senders start: each stream's
#         first picture after its first packet (--stats-json first_picture_ms:
#         from the source's first frame taken, which an RTP source takes at its
#         first packet, to the first picture in host memory)
#   cold  K senders run, then recv starts: the first picture after the process
#         started (process.first_picture_s), RUNS runs
# UHD 4:2:2 10-bit 3 bpp, 60 fps, loopback, narrow pacing, host pictures.
#
#   bash bench/pipeline/first_picture.sh BUILD_DIR UHD_DIR [K...]   (default K: 1 16)
set -u
B=$1 V=$2
shift 2
KS=${*:-1 16}
X=$B/xsflow
RUNS=${XSF_FIRST_RUNS:-5}
one=$V/uhd_422_10b_bpp3.jxs
W=$(mktemp -d /tmp/xsf-first.XXXXXX)
# shellcheck disable=SC2046
trap 'kill $(jobs -p) 2> /dev/null; rm -rf "$W"' EXIT
senders() { # K PORT0 SECONDS
    local k
    for k in $(seq 0 $(($1 - 1))); do
        "$X" send "$one" --loop $(($3 * 60)) --fps 60 --to "127.0.0.1:$(($2 + 2 * k))" -q &
    done
}
addrs() { # K PORT0: each stream's source and its output
    local k a=()
    for k in $(seq 0 $(($1 - 1))); do a+=("127.0.0.1:$(($2 + 2 * k))" -o null); done
    echo "${a[@]}"
}
med() { sort -n | awk '{v[NR] = $1} END {if (NR) printf "%s (%s-%s)", v[int((NR + 1) / 2)], v[1], v[NR]}'; }
echo "| K | warm: first picture ms after the stream's first packet, median over streams (min-max) | cold: first picture s after recv started, median of $RUNS (min-max) |"
echo "| ---: | --- | --- |"
for K in $KS; do
    p0=$((30000 + RANDOM % 20000))
    # shellcheck disable=SC2046 # the addresses, one word each
    "$X" recv $(addrs "$K" "$p0") --timeout 2 --stats-json "$W/warm.json" -q &
    r=$!
    sleep 1.5
    senders "$K" "$p0" 2
    wait $r
    wait
    warm=$(grep -o '"first_picture_ms": [0-9.]*' "$W/warm.json" | awk '{print $2}' | med)
    cold=()
    for _ in $(seq "$RUNS"); do
        p0=$((30000 + RANDOM % 20000))
        senders "$K" "$p0" 4
        sleep 0.5
        # shellcheck disable=SC2046
        "$X" recv $(addrs "$K" "$p0") --frames 30 --stats-json "$W/cold.json" -q
        cold+=("$(grep -o '"first_picture_s": [0-9.]*' "$W/cold.json" | awk '{print $2}')")
        # shellcheck disable=SC2046 # the senders' pids
        kill $(jobs -p) 2> /dev/null
        wait 2> /dev/null
    done
    echo "| $K | $warm | $(printf '%s\n' "${cold[@]}" | med) |"
done
