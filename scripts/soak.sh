#!/usr/bin/env bash
# Soak: N live streams, impaired by their senders as a plant's network impairs
# them, into one `xsflow recv` over loopback for a given time; the soak
# delivers and decodes, and fails when fewer frames come out than the
# impairment allows.
#
# Impairments (`xsflow send --loss --loss-burst --reorder --duplicate --cut
# --seed`, rtp_impairer in rtp/include/rtp.h; the first and last frame are
# sent unimpaired so that nothing is estimated at the stream's edges):
#   --legs 1 (default): what a plant sees on one path: packet loss of --loss
#     (default 1e-5 of the packets) in bursts of 1 to --burst packets (default
#     50: a loss begins at a packet with chance loss / mean burst), packets
#     held back behind the next one (--reorder) and sent twice (--duplicate),
#     1e-3 each by default, and the path cut for --cut-ms (default 100 ms) in
#     the middle of the run and restored.
#   --legs 2: the stream on two legs (SMPTE ST 2022-7, `recv A,B`, `send --to
#     A,B`), each leg impaired on its own (seeds of its own): --loss (default
#     0.01) on each, never the same packet on both (`send --exclusive-loss`;
#     --independent: independent losses, some then on both), reordering and
#     duplicates inside each leg, and the second leg cut for --cut-ms (default
#     2000 ms) and restored.
# Checks, each stream:
#   1. delivered enough: the sender's impairment record (its --stats-json)
#      says how many frames the impairment may cost: with one leg the frames
#      that lost a packet (segments_with_loss), with two the frames that lost
#      a packet on both legs (segments_lost_all_legs); the soak FAILS when
#      fewer than frames sent - that are delivered; and with one leg at least
#      --min-delivered % of the frames sent (default 99), with two legs 100 %
#      of the frames no packet of which was lost on both
#   2. the counts agree with the sender's: frames delivered + dropped = sent,
#      nothing refused or dropped by the kernel, nothing late; one leg: packets
#      received = datagrams sent, packets lost, duplicated and reordered as the
#      sender made them, frames dropped = frames that lost a packet, a cut of
#      any length included (the receiver places the first packet after it by
#      the stream's pace and timestamps, not as a sender restart); two legs:
#      packets lost = packets lost on both legs, frames dropped = frames that
#      lost one on both, each leg's packets received = its datagrams sent
#   3. every delivered picture equals the C decoder's picture of the frame it
#      stands for: the receiver writes the MD5 of each picture with its RTP
#      timestamp (`recv -o md5:FILE`), the sender states the first frame's
#      timestamp (first_timestamp), so frame n = (timestamp - first) x FPS /
#      90 kHz is frame n mod (frames in the file) of the vector, whose MD5 is
#      taken here from `xsflow decode --cpu`'s .yuv cut into frames; as many
#      MD5s as pictures delivered (the pictures go to host memory for their
#      MD5, with the GPU engine too: a download a frame; the receiver hashes
#      4 pictures of a stream at once, about 55 ms of a core each at UHD)
#   4. no stall longer than the stall limit (default one frame time, 1000 /
#      FPS), measured over the frames delivered (printed with their count; a
#      stall is the part of the gap between two deliveries that neither the
#      RTP time between the two frames nor a late sender explains,
#      pl_stream_stats.max_stall_ns), and the longest raw gap between
#      deliveries at most the frame time x (the most frames dropped in a row +
#      1) + the stall limit
#   5. memory flat: the receiver's VmRSS sampled once a second; the median of
#      the last window at most the median of the first + --rss-growth % (5),
#      and not below the first by more than 5 %; a window is a minute (a sixth
#      of the run when shorter), the first starting after WARMUP seconds. No
#      picture is allowed for: the GPU engine pins the pictures its decoders
#      and the sinks hold (the MD5 writer declares its threads' and queue's,
#      pl_sink.holds) in the first seconds; a picture allocated later is
#      growth (and a stall: it was 3.5 UHD pictures, +117 MB, and a 23 ms
#      stall in the first two-leg run, BENCHMARKS.md)
# Also printed: the receiver's CPU time over the run, as a share of one core.
# Prints one line per stream and a summary table; exits 1 when a check fails.
#
# usage: soak.sh [--xsflow PATH] [--streams N] [--minutes M | --duration S]
#                [--fps F] [--vector FILE.jxs] [--engine cpu|gpu] [--legs 1|2]
#                [--loss P] [--burst N] [--reorder P] [--duplicate P]
#                [--cut-ms MS] [--independent] [--out DIR] [--port P]
#                [--warmup S] [--mode codestream|slice] [--counts-only]
#                [--stall-limit MS] [--min-delivered PCT] [--rss-growth PCT]
#                [--recv-rt PRIO]
# --stall-limit: the longest stall allowed (default: one frame time); the CI
# run on a shared 2-core machine states its own (tests/rtp/CMakeLists.txt).
# --recv-rt: run the receiver under SCHED_RR at this priority (chrt -r; needs
# root or CAP_SYS_NICE, else the soak checks what --counts-only does and,
# when that passes, exits 77 saying what it skipped), so that its stalls
# are its own on a machine shared with other work.
# XSF_SOAK_RECV_ARGS: more options for the receiver (e.g. "--frame-log
# frames.csv": a line a delivered frame, for bench/pipeline/frame_log.py).
# --counts-only: checks 1, 2 and 3 alone (under sanitizers, whose allocator
# and speed make resident memory and timing meaningless).
# Defaults: build/xsflow, 2 streams, 60 s, 25 fps, vectors/xs/seq_5f_422_10b.jxs
# (320x180 4:2:2 10-bit, 16 packets a frame), cpu, one leg, a temporary DIR.
# The GPU soaks of issue 30 (UHD60, one frame of 2185 packets; 2 streams: the
# MD5 of every UHD picture takes 3.3 cores a stream), 30 minutes:
#   scripts/soak.sh --engine gpu --streams 2 --minutes 30 --fps 60 --vector UHD.jxs
#   scripts/soak.sh --engine gpu --streams 2 --minutes 30 --fps 60 --vector UHD.jxs --legs 2
# The first: one leg with a plant's impairments (loss 1e-5 in bursts of 1-50,
# reordering and duplicates 1e-3, a 100 ms cut), at least 99 % delivered and
# exactly the frames that lost a packet dropped; the second: two legs, 1 % on
# each never on both, leg 2 cut 2 s: 100 % delivered.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
xsflow=$root/build/xsflow streams=2 duration=60 fps=25 vector=$root/vectors/xs/seq_5f_422_10b.jxs
engine=cpu legs=1 loss= burst= reorder=0.001 duplicate=0.001 cut_ms= independent=0 out=
port=$((30000 + RANDOM % 20000)) warmup=5 mode=codestream counts_only=0 stall_limit=
min_delivered=99 rss_growth=5 recv_rt=
while [ $# -gt 0 ]; do
    case $1 in
    --counts-only) counts_only=1; shift; continue ;;
    --independent) independent=1; shift; continue ;;
    --xsflow) xsflow=$2 ;; --streams) streams=$2 ;; --duration) duration=$2 ;; --fps) fps=$2 ;;
    --minutes) duration=$(($2 * 60)) ;;
    --vector) vector=$2 ;; --engine) engine=$2 ;; --legs) legs=$2 ;; --loss) loss=$2 ;;
    --burst) burst=$2 ;; --reorder) reorder=$2 ;; --duplicate) duplicate=$2 ;;
    --cut-ms) cut_ms=$2 ;; --out) out=$2 ;; --port) port=$2 ;; --warmup) warmup=$2 ;;
    --mode) mode=$2 ;;
    --stall-limit) stall_limit=$2 ;;
    --min-delivered) min_delivered=$2 ;;
    --rss-growth) rss_growth=$2 ;;
    --recv-rt) recv_rt=$2 ;;
    *) echo "soak.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
case $legs in
1) : "${loss:=0.00001}" "${burst:=50}" "${cut_ms:=100}" ;;
2) : "${loss:=0.01}" "${burst:=1}" "${cut_ms:=2000}" ;;
*) echo "soak.sh: --legs 1 or 2" >&2; exit 2 ;;
esac
[ -x "$xsflow" ] || { echo "soak.sh: no xsflow at $xsflow" >&2; exit 2; }
xsflow=$(readlink -f "$xsflow") vector=$(readlink -f "$vector") # the script works in DIR
# Without SCHED_RR the stalls would measure the other work: the soak runs
# with the other checks (as --counts-only), fails if they fail, and else
# exits 77 (skipped) saying what it could not check.
no_rt=
if [ -n "$recv_rt" ] && ! chrt -r "$recv_rt" true 2> /dev/null; then
    no_rt="--recv-rt $recv_rt: SCHED_RR not allowed here (needs root or CAP_SYS_NICE)"
    echo "soak.sh: $no_rt: stalls and resident memory not checked"
    recv_rt= counts_only=1
fi
[ -n "$out" ] || out=$(mktemp -d /tmp/xsflow-soak.XXXXXX)
mkdir -p "$out" && cd "$out" || exit 2
rm -f rx.json rx.log rss.log tx_*.json tx_*.log md5_*.csv ref.yuv ref.md5 ref.[0-9]*

# Frames in the file: the sender loops it to fill the duration.
per_file=$("$xsflow" info "$vector" --all 2> /dev/null | grep -c '^frame [0-9]*:')
loops=$(awk -v d="$duration" -v f="$fps" -v n="${per_file:-1}" 'BEGIN { l = int(d * f / (n > 0 ? n : 1)); print (l > 0 ? l : 1) }')
frames_sent=$((loops * ${per_file:-1}))
# The impairment: the chance a loss begins (the loss rate over the mean burst),
# and the cut: the frames of --cut-ms from the middle of the stream.
begin=$(awk -v l="$loss" -v b="$burst" 'BEGIN { printf "%.6g", l / ((1 + b) / 2) }')
cut_frames=$(awk -v c="$cut_ms" -v f="$fps" 'BEGIN { n = int(c * f / 1000 + 0.5); print n }')
cut_arg=()
[ "$cut_frames" -gt 0 ] && cut_arg=(--cut "$((frames_sent / 2)):$cut_frames")
leg_arg=()
[ "$legs" = 2 ] && [ $independent = 0 ] && leg_arg=(--exclusive-loss)
# The C decoder's MD5 of each frame of the file (check 3): its .yuv cut into
# frames of equal size (one picture format throughout the file), "index md5".
if ! "$xsflow" decode "$vector" --cpu -o ref.yuv -q || [ "${per_file:-0}" -lt 1 ] ||
    [ $(($(stat -c %s ref.yuv) % per_file)) != 0 ]; then
    echo "soak.sh: cannot decode $vector into $per_file pictures of one size" >&2
    exit 2
fi
frame_bytes=$(($(stat -c %s ref.yuv) / per_file))
split -b "$frame_bytes" -d -a 6 ref.yuv ref.
md5sum ref.[0-9]* | awk '{ sub(/^ref\./, "", $2); print $2 + 0, $1 }' > ref.md5
rm -f ref.yuv ref.[0-9]*

# Stream k: leg 1 on port + 4k, leg 2 on port + 4k + 2.
dest() { # K: the stream's legs, comma-joined
    local a="127.0.0.1:$(($port + 4 * $1))"
    [ "$legs" = 2 ] && a="$a,127.0.0.1:$(($port + 4 * $1 + 2))"
    echo "$a"
}
args=()
for ((k = 0; k < streams; k++)); do
    args+=("$(dest $k)" -o "md5:md5_$k.csv")
done
# shellcheck disable=SC2086 # XSF_SOAK_RECV_ARGS: extra recv options, word-split
${recv_rt:+chrt -r "$recv_rt"} "$xsflow" recv "${args[@]}" "--$engine" --timeout 5 --stats-json rx.json ${XSF_SOAK_RECV_ARGS:-} 2> rx.log &
rx=$!
# VmRSS and the CPU time so far (user + system, clock ticks) once a second
# while the receiver runs.
(
    t=0
    while kill -0 $rx 2> /dev/null; do
        kb=$(awk '/^VmRSS:/ { print $2 }' /proc/$rx/status 2> /dev/null)
        ticks=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' /proc/$rx/stat 2> /dev/null)
        [ -n "$kb" ] && echo "$t $kb ${ticks:-0}"
        sleep 1
        t=$((t + 1))
    done
) > rss.log &
sampler=$!
sleep 1
# The senders are load generators: niced, so that on a machine with few cores the
# receiver, not they, gets the CPU when both want it (their own lateness is not
# counted against the receiver anyway, see check 4).
senders=()
for ((k = 0; k < streams; k++)); do
    nice -n 10 "$xsflow" send "$vector" --to "$(dest $k)" --fps "$fps" --loop "$loops" \
        --mode "$mode" --loss "$begin" --loss-burst "$burst" --reorder "$reorder" \
        --duplicate "$duplicate" "${cut_arg[@]}" "${leg_arg[@]}" --seed $((1000 + 2 * k)) \
        --ssrc $((0x50a0 + k)) --stats-json "tx_$k.json" -q 2> "tx_$k.log" &
    senders+=($!)
done
fail=0
for p in "${senders[@]}"; do wait "$p" || { echo "soak.sh: a sender failed" >&2; fail=1; }; done
wait $rx || { echo "soak.sh: recv failed: $(tail -3 rx.log)" >&2; fail=1; }
wait $sampler 2> /dev/null

# num LINE KEY: the number after the first "KEY": in one line of JSON.
num() { grep -o "\"$2\": [0-9.e+-]*" <<< "$1" | head -1 | awk '{ print $2 }'; }
# nth LINE KEY N: the number after the Nth "KEY": in one line of JSON (the
# receiver's legs: leg N; the sender's impairment, its first leg's counts
# first: leg N - 1).
nth() { grep -o "\"$2\": [0-9.e+-]*" <<< "$1" | sed -n "$3p" | awk '{ print $2 }'; }
counts_fail=0
check() { # VALUE WANT WHAT
    if [ "$1" != "$2" ]; then echo "  FAIL: $3: $1, expected $2"; fail=1; counts_fail=1; fi
}
frame_ms=$(awk -v f="$fps" 'BEGIN { printf "%.3f", 1000 / f }')
limit_ms=${stall_limit:-$frame_ms}
tot_frames=0 tot_delivered=0 tot_allowed=0 tot_lost=0 tot_md5=0 worst_stall=0 stall_over=0
for ((k = 0; k < streams; k++)); do
    tx=$(cat "tx_$k.json" 2> /dev/null)
    line=$(grep -F "\"name\": \"recv $(dest $k)\"" rx.json 2> /dev/null)
    if [ -z "$tx" ] || [ -z "$line" ]; then
        echo "stream $k: no figures (tx_$k.json or rx.json missing)"
        fail=1
        continue
    fi
    frames=$(num "$tx" frames) datagrams=$(num "$tx" datagrams) lost=$(num "$tx" lost)
    dup=$(num "$tx" duplicated) reo=$(num "$tx" reordered) hit=$(num "$tx" segments_with_loss)
    cut_pk=$(num "$tx" packets_cut) cut_seg=$(num "$tx" segments_cut) bursts=$(num "$tx" bursts)
    lost_both=$(num "$tx" lost_all_legs) hit_both=$(num "$tx" segments_lost_all_legs)
    delivered=$(num "$line" frames_delivered) dropped=$(num "$line" frames_dropped)
    missing=$(num "$line" missing_packets) stall=$(num "$line" max_stall_ms)
    gapms=$(num "$line" max_delivery_gap_ms) rx_lost=$(num "$line" packets_lost)
    if [ "$legs" = 1 ]; then
        allowed=$hit
        echo "stream $k: sent $frames frames ($datagrams datagrams; lost $lost packets:" \
            "$((lost - ${cut_pk:-0})) in $bursts bursts, $cut_pk in a cut of $cut_seg frames; reordered $reo, duplicated $dup;" \
            "$hit frames lost a packet); received $delivered whole, $dropped dropped ($missing" \
            "for missing packets); longest stall $stall ms over $delivered frames (longest gap" \
            "between deliveries $gapms ms)"
    else
        allowed=$hit_both
        lost2=$(nth "$tx" lost 3) hit1=$(nth "$tx" segments_with_loss 2)
        hit2=$(nth "$tx" segments_with_loss 3)
        cut_pk=$(nth "$tx" packets_cut 3) cut_seg=$(nth "$tx" segments_cut 3)
        echo "stream $k: sent $frames frames on 2 legs (leg 1 lost $lost packets in $hit1" \
            "frames, leg 2 $lost2 in $hit2 frames, a cut of $cut_seg frames among them; on both" \
            "$lost_both packets in $hit_both frames); received $delivered whole, $dropped" \
            "dropped; $(num "$line" packets_recovered) packets recovered, $rx_lost lost; longest" \
            "stall $stall ms over $delivered frames (longest gap $gapms ms)"
    fi
    check "$(num "$tx" complete)$(grep -c '"complete": true' "tx_$k.json")" 1 "the sender ran to its end"
    check "$(num "$line" packets_refused)" 0 "packets refused"
    check "$(num "$line" kernel_drops)" 0 "kernel drops (losses the sender did not make)"
    # Check 2.
    check $((delivered + dropped)) "$frames" "frames delivered + dropped"
    check "$(num "$line" packets_late)" 0 "packets late"
    if [ "$legs" = 1 ]; then
        check "$(num "$line" packets)" "$datagrams" "packets received"
        check "$rx_lost" "$lost" "packets lost"
        check "$(num "$line" packets_lost_edge)" 0 "packets lost at the edges"
        check "$(num "$line" packets_duplicated)" "$dup" "packets duplicated"
        check "$(num "$line" packets_reordered)" "$reo" "packets reordered"
        check "$missing" "$hit" "frames dropped for missing packets"
        check "$dropped" "$hit" "frames dropped (any reason)"
    elif [ "$legs" = 2 ]; then
        check "$rx_lost" "$lost_both" "packets lost (on both legs)"
        check "$dropped" "$hit_both" "frames dropped (a packet lost on both legs)"
        for leg in 1 2; do
            check "$(nth "$line" packets_received "$leg")" "$(nth "$tx" datagrams $((leg + 2)))" \
                "leg $leg: packets received"
            check "$(nth "$line" packets_lost $((leg + 1)))" "$(nth "$tx" lost $((leg + 1)))" \
                "leg $leg: packets lost"
        done
    fi
    # Where frames were dropped for want of a free one, say so: the decode stage or the
    # sink (the MD5 threads) fell behind and held the stream's pool (frames_in_pool).
    nobuf=$(num "$line" no_frame)
    if [ "${nobuf:-0}" -gt 0 ]; then
        echo "  ($nobuf of the frames dropped for want of a free frame: the decoders or the sink" \
            "fell behind and held all $(num "$line" frames_in_pool) frames of the pool)"
    fi
    # Check 1: what the impairment allows.
    floor=$((frames - allowed))
    if [ "${delivered:-0}" -lt "$floor" ]; then
        echo "  FAIL: $delivered frames delivered of $frames, fewer than the $floor the impairment" \
            "lets through (it hit $allowed)"
        fail=1
    fi
    if [ "$legs" = 1 ] && ! awk -v d="${delivered:-0}" -v s="$frames" -v m="$min_delivered" \
        'BEGIN { exit !(d >= s * m / 100) }'; then
        echo "  FAIL: $delivered frames delivered of $frames, fewer than $min_delivered %" \
            "(the impairment hit $allowed frames: lower --loss, --burst or --cut-ms if that is more)"
        fail=1
    fi
    # Check 3, and the frames dropped in a row for check 4: each line of
    # md5_k.csv is a delivered picture (in the order the MD5s were done:
    # sorted here); its frame number from its timestamp.
    read -r pictures wrong run bad <<< "$(tail -n +2 "md5_$k.csv" 2> /dev/null | sort -t, -k1,1n |
        awk -F'[ ,]' -v ts0="$(num "$tx" first_timestamp)" -v fps="$fps" -v n="$per_file" '
        FNR == NR { ref[$1] = $2; next }
        {
            d = $2 - ts0; if (d < 0) d += 4294967296
            f = int(d * fps / 90000 + 0.5)
            if (pictures++ && f - last - 1 > run) run = f - last - 1
            last = f
            if ($3 != ref[f % n]) { wrong++; if (bad == "") bad = "picture " $1 " (frame " f ", of the file " f % n "): " $3 ", the C decoder " ref[f % n] }
        }
        END { printf "%d %d %d %s\n", pictures, wrong, run, bad == "" ? "-" : bad }' ref.md5 - 2> /dev/null)"
    check "${pictures:-0}" "$delivered" "pictures whose MD5 was written (md5_$k.csv)"
    if [ "${wrong:-1}" != 0 ]; then
        echo "  FAIL: ${wrong:-?} delivered pictures differ from the C decoder's; the first: $bad"
        fail=1
    fi
    # Check 4.
    if [ $counts_only = 0 ] && ! awk -v s="$stall" -v f="$limit_ms" 'BEGIN { exit !(s < f) }'; then
        echo "  FAIL: a stall of $stall ms, longer than the limit ($limit_ms ms; a frame is $frame_ms ms)"
        fail=1
    fi
    gap_limit=$(awk -v f="$frame_ms" -v r="${run:-0}" -v l="$limit_ms" 'BEGIN { printf "%.3f", f * (r + 1) + l }')
    if [ $counts_only = 0 ] && ! awk -v g="$gapms" -v l="$gap_limit" 'BEGIN { exit !(g <= l) }'; then
        echo "  FAIL: a gap of $gapms ms between deliveries, longer than a frame time x (${run:-0}" \
            "frames dropped in a row + 1) + the limit ($gap_limit ms)"
        fail=1
    fi
    echo "  $pictures pictures checked against the C decoder's ($wrong differ); at most ${run:-0}" \
        "frames dropped in a row; the impairment lets through $floor, $delivered delivered"
    worst_stall=$(awk -v a="$worst_stall" -v b="$stall" 'BEGIN { print (b > a ? b : a) }')
    stall_over=$((stall_over + ${delivered:-0}))
    tot_frames=$((tot_frames + frames)) tot_delivered=$((tot_delivered + delivered))
    tot_allowed=$((tot_allowed + allowed)) tot_lost=$((tot_lost + rx_lost))
    tot_md5=$((tot_md5 + ${pictures:-0}))
done

# Check 5: RSS, median of the first window (after the warm-up) against the last.
# The warm-up lasts at least until the sequence numbers went once through the
# receiver's windows (8192 packets with two legs: the merge's reorder window
# covers 50 ms at 160,000 packets/s; its pages are touched as numbers come),
# and 2 s more.
ppf=$(awk -v d="$(num "$(cat tx_0.json 2> /dev/null)" datagrams)" -v f="$frames_sent" 'BEGIN { print (f > 0 && d > 0 ? d / f : 1) }')
warmup=$(awk -v w="$warmup" -v p="$ppf" -v f="$fps" -v l="$legs" 'BEGIN {
    t = (l == 2 ? 8192 : 512) / (p * f) + 2; t = int(t) == t ? t : int(t) + 1
    print (t > w ? t : w) }')
rss=$(awk -v w0="$warmup" -v d="$duration" '
    { t[NR] = $1; v[NR] = $2 }
    function median(a, b,    n, i, j, x, s) {
        n = 0
        for (i = 1; i <= NR; i++) if (t[i] >= a && t[i] < b) s[++n] = v[i]
        for (i = 2; i <= n; i++) { x = s[i]; for (j = i - 1; j >= 1 && s[j] > x; j--) s[j + 1] = s[j]; s[j + 1] = x }
        return n ? s[int((n + 1) / 2)] : 0
    }
    END {
        win = d / 6 < 60 ? d / 6 : 60
        if (win < 2) win = 2
        end = 1 + d
        first = median(w0, w0 + win); last = median(end - win, end)
        printf "%d %d %.2f", first, last, first ? 100 * (last - first) / first : 0
    }' rss.log)
read -r rss_first rss_last rss_pct <<< "$rss"
rss_bound=$(awk -v a="${rss_first:-0}" -v g="$rss_growth" 'BEGIN { printf "%d", a * (1 + g / 100) }')
growth_pictures=$(awk -v a="${rss_first:-0}" -v b="${rss_last:-0}" -v f="$frame_bytes" 'BEGIN { printf "%.1f", (b - a) * 1024 / f }')
echo "RSS (after a warm-up of $warmup s): first window ${rss_first} KiB, last window ${rss_last} KiB (${rss_pct} %," \
    "$growth_pictures pictures); bound $rss_bound KiB (+ $rss_growth %)"
cpu=$(awk -v hz="$(getconf CLK_TCK)" 'END { if (NR > 1 && $1 > 0) printf "%.0f", 100 * $3 / hz / $1; else print "?" }' rss.log)
echo "receiver CPU: ${cpu} % of one core over the run ($(nproc) cores here)"
if [ $counts_only = 1 ]; then
    echo "  (counts only: resident memory and stalls not checked)"
elif [ "${rss_first:-0}" = 0 ] || ! awk -v a="$rss_first" -v b="$rss_last" -v x="$rss_bound" \
    'BEGIN { exit !(b <= x && b >= a * 0.95) }'; then
    echo "  FAIL: resident memory grew beyond $rss_bound KiB or fell by more than 5 % (or was not sampled)"
    fail=1
fi

pct=$(awk -v d="$tot_delivered" -v s="$tot_frames" 'BEGIN { printf "%.3f", s ? 100 * d / s : 0 }')
if [ "$legs" = 1 ]; then
    what="1 leg: loss $loss in bursts of 1-$burst, reorder $reorder, dup $duplicate, cut $cut_ms ms"
else
    what="2 legs: loss $loss each ($([ $independent = 0 ] && echo never on both || echo independent)), reorder $reorder, dup $duplicate, leg 2 cut $cut_ms ms"
fi
echo
echo "| streams | duration | fps | impairment | frames sent | delivered | impairment allows | MD5 checked | counts agree | RSS first -> last | longest stall (over frames) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
echo "| $streams x $(basename "$vector") ($engine) | ${duration} s | $fps | $what |" \
    "$tot_frames | $tot_delivered ($pct %) | $((tot_frames - tot_allowed)) | $tot_md5 |" \
    "$([ $counts_fail = 0 ] && echo yes || echo NO) (packets lost $tot_lost) |" \
    "${rss_first} -> ${rss_last} KiB (${rss_pct} %) | ${worst_stall} ms over $stall_over (limit ${limit_ms} ms) |"
[ $fail = 0 ] && echo "soak: PASS ($out)" || echo "soak: FAIL ($out; rx.log, rss.log, tx_*.json)"
if [ $fail = 0 ] && [ -n "$no_rt" ]; then
    echo "soak: stalls and resident memory skipped: $no_rt"
    exit 77
fi
exit $fail
