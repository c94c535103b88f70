#!/usr/bin/env bash
# bench/pipeline: the commands users run, end to end on the pipeline, each
# against a floor (or a peer) measured in the same run on the same machine.
#
#   bash bench/pipeline/run.sh BUILD_DIR UHD_DIR [decode] [pcap] [pixfmt] [live] [svt=PATH]
#
#   decode  `xsflow decode` of 200-frame UHD files (tmpfs to tmpfs) against a
#           plain write loop of the same bytes (the ratio the issue names),
#           beside the same bytes copied into shared mappings of the file by
#           as many threads as the .yuv writer has (how it writes), and
#           SvtJpegxsDecApp (svt=PATH) at its best thread count on the files
#   pcap    `xsflow recv --pcap` of a 200-frame UHD60 capture as fast as it
#           reads, pictures to host memory (-o null) against the D2H floor,
#           and left in device memory (-o null:device); each also with the
#           payload copies on the receiving thread (--copy-threads 0), and
#           device memory with 6 decoder contexts and 24 frames
#   pixfmt  `xsflow recv --pcap` of a 1000-frame UHD60 capture (4:2:2 10-bit 3
#           bpp; XSF_PIXFMT_FRAMES) to host memory (-o null) with --pix-fmt F
#           for F in planar16, v210 and pgroup (XSF_PIXFMT_FORMATS): frames per
#           wall second of the whole process (start to exit), its start-up to
#           the first picture stated apart, and its steady rate, each against
#           the D2H floor of F's bytes measured just before (pipeline_floors
#           d2h); one capture, then four at once in one recv (XSF_PIXFMT_STREAMS);
#           XSF_PIXFMT_OUT=null:device leaves the pictures in device memory
#   source  the capture source alone (pipeline_pcap_source: nothing decoded)
#           with 0, 2, 4, 8 copy threads and the default
#   live    K `xsflow send --fps 60` senders over loopback UDP into one
#           `xsflow recv` of K streams (pictures to host memory) for 20 s:
#           loss, drops and latency per K, CPU time of the receiver and of
#           all senders. XSF_LIVE_K (default "1 4 8 16"), XSF_LIVE_SEND_ARGS
#           and XSF_LIVE_RECV_ARGS (extra options, e.g. "--no-gso",
#           "--gpu-sync spin") change the runs (XSF_LIVE_OUT=null:device: the
#           pictures stay in device memory); XSF_PCAP_RECV_ARGS adds options
#           to every recv --pcap of the pcap stage. Each run's per-frame stage
#           times go to $W/framesK.csv (recv --frame-log; summarize with
#           bench/pipeline/frame_log.py).
# UHD_DIR holds uhd_422_10b_bpp3.jxs and uhd_444_12b_bpp10_v1h5.jxs (one frame
# each; the 200-frame files are made from them in /dev/shm). Prints tables;
# with OUT set, also writes them to $OUT/pipeline.md.
set -u
B=$(readlink -f "$1") V=$(readlink -f "$2")
shift 2
X=$B/xsflow F=$B/bench/pipeline/pipeline_floors S=$B/bench/pipeline/pipeline_pcap_source
W=${XSF_BENCH_TMP:-/dev/shm/xsf-pipeline}
SVT=
STAGES=" "
for a in "$@"; do
    case $a in svt=*) SVT=${a#svt=} ;; *) STAGES+="$a " ;; esac
done
[ "$STAGES" = " " ] && STAGES=" decode source pcap pixfmt live "
mkdir -p "$W"
REPORT=${OUT:+$OUT/pipeline.md}
say() { echo "$*"; [ -n "$REPORT" ] && echo "$*" >> "$REPORT"; }
now() { date +%s.%N; }
calc() { awk "BEGIN { print $* }"; }
value() { grep "^$1 " | awk '{print $2}'; } # "name value unit" lines
jnum() { grep -o "\"$1\": [0-9.]*" | head -n "${2:-1}" | tail -n 1 | awk '{print $2}'; }
# jlat KEY FIELD N: FIELD (p50, p99, max) of the Nth latency object KEY (one per stream)
jlat() { grep -o "\"$1\": {[^}]*}" | sed -n "${3}p" | grep -o "\"$2\": [0-9.]*" | awk '{print $2}'; }

# pcap_row LABEL OUT NAME FRAMES RECV-ARGS...: one row of the pcap table, `xsflow recv
# RECV-ARGS` timed (its JSON in $W/NAME.json, its errors in $W/NAME.log, FRAMES the JSON's
# count of pictures; OUT null is measured against the D2H floor $d2h1). Fails where recv does.
pcap_row() {
    local label=$1 out=$2 name=$3 frames=$4 t0 t1 j n dfps wall ratio=-
    shift 4
    t0=$(now)
    # shellcheck disable=SC2086
    "$X" recv "$@" --stats-json "$W/$name.json" -q ${XSF_PCAP_RECV_ARGS:-} 2> "$W/$name.log" ||
        return 1
    t1=$(now)
    j=$(cat "$W/$name.json")
    n=$(echo "$j" | jnum "$frames")
    dfps=$(echo "$j" | jnum steady_fps)
    wall=$(calc "$t1 - $t0")
    [ "$out" = null ] && ratio=$(printf %.2f "$(calc "$dfps / $d2h1")")
    say "| $label | $n | $(printf %.2f "$wall") | $(printf %.1f "$(calc "$n / $wall")") | $(printf %.1f "$dfps") | $ratio | $(echo "$j" | jnum p50) / $(echo "$j" | jnum p99) |"
    return 0 # say's status is not the row's
}

say "# bench/pipeline $(date -u +%F)"
say "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(nproc) cores"
frames=200

make_clip() { # VECTOR -> $W/VECTOR-200.jxs
    local out=$W/$1-200.jxs
    [ -s "$out" ] || for _ in $(seq $frames); do cat "$V/$1.jxs"; done > "$out"
    echo "$out"
}

if [[ $STAGES == *" decode "* ]]; then
    say ""
    say "## xsflow decode, 200 UHD frames, /dev/shm to /dev/shm"
    say ""
    writer_threads=4 # WRITER_THREADS in pipeline/sinks.c
    say "| input | write floor fps | mmap floor fps ($writer_threads threads) | xsflow decode fps | ratio to write floor | ratio to mmap floor | SvtJpegxsDecApp best fps (threads) | ratio to SVT |"
    say "| --- | --- | --- | --- | --- | --- | --- | --- |"
    for spec in "uhd_422_10b_bpp3 33177600" "uhd_444_12b_bpp10_v1h5 49766400"; do
        set -- $spec
        clip=$(make_clip "$1")
        floor=$("$F" write "$2" $frames "$W/floor.yuv" | value write_fps)
        mfloor=$("$F" write-mmap "$2" $frames "$W/floor.yuv" $writer_threads | value write_mmap_fps)
        best=0
        for rep in 1 2 3; do
            rm -f "$W/out.yuv"
            t0=$(now)
            "$X" decode "$clip" -o "$W/out.yuv" > "$W/decode.log" || { say "decode failed"; break; }
            echo "  $1 run $rep: $(cat "$W/decode.log")"
            t1=$(now)
            fps=$(calc "$frames / ($t1 - $t0)")
            best=$(calc "($fps > $best) ? $fps : $best")
        done
        bytes=$(stat -c %s "$W/out.yuv" 2>/dev/null || echo 0)
        [ "$bytes" = $((frames * $2)) ] || say "WARNING: $1: wrote $bytes bytes, expected $((frames * $2))"
        rm -f "$W/out.yuv"
        svt_best=- svt_lp=- svt_ratio=-
        if [ -n "$SVT" ] && [ -x "$SVT" ]; then
            svt_best=0
            for lp in 8 16 32; do
                rm -f "$W/svt.yuv"
                t0=$(now)
                "$SVT" -i "$clip" -o "$W/svt.yuv" --lp $lp > "$W/svt.log" 2>&1 || { tail -3 "$W/svt.log"; break; }
                t1=$(now)
                fps=$(calc "$frames / ($t1 - $t0)")
                if [ "$(calc "($fps > $svt_best) ? 1 : 0")" = 1 ]; then svt_best=$fps svt_lp=$lp; fi
            done
            cmp -s <("$X" decode "$clip" --frames 2 -o - --format yuv -q) <(head -c $((2 * $2)) "$W/svt.yuv") ||
                say "NOTE: $1: the first two frames of SVT's output differ from ours"
            rm -f "$W/svt.yuv"
            svt_ratio=$(printf %.2f "$(calc "$best / $svt_best")")
            svt_best=$(printf %.1f "$svt_best")
        fi
        say "| $1 | $(printf %.1f "$floor") | $(printf %.1f "$mfloor") | $(printf %.1f "$best") | $(printf %.2f "$(calc "$best / $floor")") | $(printf %.2f "$(calc "$best / $mfloor")") | $svt_best ($svt_lp) | $svt_ratio |"
    done
fi

capture() { # the 200-frame UHD60 capture -> $W/uhd60.pcap
    local clip
    clip=$(make_clip uhd_422_10b_bpp3)
    [ -s "$W/uhd60.pcap" ] || "$X" send "$clip" --pcap "$W/uhd60.pcap" --fps 60 -q
}

if [[ $STAGES == *" source "* ]]; then
    say ""
    say "## the capture source alone: 200-frame UHD60 capture into a sink that decodes nothing"
    say ""
    say "| copy threads | frames | source fps (whole run) | delivery fps | Mpackets/s | ns/packet |"
    say "| --- | --- | --- | --- | --- | --- |"
    capture
    for ct in -1 2 4 8 0; do
        r=$("$S" "$W/uhd60.pcap" --copy-threads $ct --reps 5 --queue 16 2> "$W/source.log") ||
            { say "pipeline_pcap_source failed: $(tail -2 "$W/source.log")"; continue; }
        label=$ct; [ "$ct" = -1 ] && label="0 (receiving thread)"; [ "$ct" = 0 ] && label="default"
        say "| $label | $(echo "$r" | value frames) | $(echo "$r" | value source_fps) | $(echo "$r" | value delivery_fps) | $(echo "$r" | value source_mpps) | $(echo "$r" | value ns_per_packet) |"
    done
    # The receiving thread alone (copies listed, not made): the ceiling of one source.
    r=$("$S" "$W/uhd60.pcap" --headers --reps 5 2> "$W/source.log") &&
        say "| receiving thread alone (--headers) | $(echo "$r" | value frames) | $(echo "$r" | value headers_fps) | - | $(echo "$r" | value headers_mpps) | $(echo "$r" | value ns_per_packet) |"
fi

if [[ $STAGES == *" pcap "* ]]; then
    say ""
    say "## xsflow recv --pcap, 200-frame UHD60 capture (4:2:2 10-bit 3 bpp), as fast as it reads"
    say ""
    capture
    d2h=$("$F" d2h 33177600)
    d2h1=$(echo "$d2h" | value d2h_fps_1stream) d2h3=$(echo "$d2h" | value d2h_fps_3stream)
    say "D2H floor of a 33.2 MB picture (16-bit samples): $(echo "$d2h" | value d2h_gbs_1stream) GB/s = $d2h1 pictures/s (one stream), $(echo "$d2h" | value d2h_gbs_3stream) GB/s = $d2h3 (three)"
    say ""
    say "wall: the whole process, its start-up included; delivery: the process's steady rate, every stream together, from its first picture to its last (recv --stats-json process.steady_fps)"
    say ""
    say "| pictures | frames | wall s | wall fps | delivery fps | ratio to D2H floor | latency p50 / p99 us |"
    say "| --- | --- | --- | --- | --- | --- | --- |"
    for run in null null:device "null --copy-threads 0" "null:device --copy-threads 0" \
        "null:device --contexts 6 --queue 24"; do
        set -- $run
        out=$1
        shift
        label=host; [ $out = null:device ] && label=device
        [ $# -gt 0 ] && label="$label ($*)"
        pcap_row "$label" $out pcap frames_whole --pcap "$W/uhd60.pcap" -o $out "$@" ||
            say "recv failed: $(tail -2 "$W/pcap.log")"
    done
    # One receiving thread per stream: four captures at once in one recv.
    for out in null null:device; do
        args=()
        for k in 1 2 3 4; do args+=(--pcap "$W/uhd60.pcap" -o $out); done
        label="host, 4 captures at once"; [ $out = null:device ] && label="device, 4 captures at once"
        # The process's steady rate (every stream, first picture to last), never a sum of the
        # streams' own rates, each over its own span.
        pcap_row "$label" $out pcap4 process_frames "${args[@]}" ||
            say "recv x4 failed: $(tail -2 "$W/pcap4.log")"
    done
fi

# pixfmt_bytes F: the bytes of a UHD (3840x2160) 4:2:2 10-bit picture in pixel format F
# (common/include/xsf_picture.h's table).
pixfmt_bytes() {
    case $1 in
    planar16 | p210) echo $((3840 * 2160 * 2 * 2)) ;;
    v210) echo $(((3840 + 47) / 48 * 128 * 2160)) ;;
    pgroup) echo $((1920 * 5 * 2160)) ;;
    uyvy) echo $((3840 * 2160 * 2)) ;;
    p010) echo $((3840 * 2160 * 2 * 3 / 2)) ;;
    nv12 | i420) echo $((3840 * 2160 * 3 / 2)) ;;
    *) return 1 ;;
    esac
}

if [[ $STAGES == *" pixfmt "* ]]; then
    n=${XSF_PIXFMT_FRAMES:-1000}
    say ""
    say "## xsflow recv --pcap --pix-fmt F, $n-frame UHD60 capture (4:2:2 10-bit 3 bpp) to host memory, as fast as it reads"
    say ""
    clip=$W/uhd_422_10b_bpp3-$n.jxs
    [ -s "$clip" ] || for _ in $(seq "$n"); do cat "$V/uhd_422_10b_bpp3.jxs"; done > "$clip"
    [ -s "$W/uhd60-$n.pcap" ] || "$X" send "$clip" --pcap "$W/uhd60-$n.pcap" --fps 60 -q
    say "wall: the whole process, from its start to its exit (start-up included); start-up: from its start to its first picture (recv --stats-json process.first_picture_s); steady: its rate from the first picture to the last (process.steady_fps). Floor: pinned D2H copies of the format's bytes, one stream (three in brackets), measured just before each row."
    say ""
    say "| pixel format | captures | bytes a picture | D2H floor fps | frames | wall s | start-up s | wall fps | wall / floor | steady fps | steady / floor |"
    say "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    for k in 1 ${XSF_PIXFMT_STREAMS:-4}; do
        for f in ${XSF_PIXFMT_FORMATS:-planar16 v210 pgroup}; do
            bytes=$(pixfmt_bytes "$f") || { say "no size for $f"; continue; }
            d2h=$("$F" d2h "$bytes")
            floor=$(echo "$d2h" | value d2h_fps_1stream) floor3=$(echo "$d2h" | value d2h_fps_3stream)
            args=()
            for _ in $(seq "$k"); do args+=(--pcap "$W/uhd60-$n.pcap" -o "${XSF_PIXFMT_OUT:-null}" --pix-fmt "$f"); done
            t0=$(now)
            # shellcheck disable=SC2086
            if ! "$X" recv "${args[@]}" --stats-json "$W/pixfmt.json" -q ${XSF_PCAP_RECV_ARGS:-} \
                2> "$W/pixfmt.log"; then
                say "| $f | $k | recv failed: $(tail -2 "$W/pixfmt.log" | tr '\n' ' ') |"
                continue
            fi
            t1=$(now)
            j=$(cat "$W/pixfmt.json")
            frames_out=$(echo "$j" | jnum process_frames)
            wall=$(calc "$t1 - $t0")
            wfps=$(calc "$frames_out / $wall")
            sfps=$(echo "$j" | jnum steady_fps)
            wr=- sr=- # the ratios, where the floor was measured (a build with CUDA)
            [ -n "$floor" ] && wr=$(printf %.2f "$(calc "$wfps / $floor")") &&
                sr=$(printf %.2f "$(calc "$sfps / $floor")")
            say "| $f | $k | $bytes | ${floor:--} (${floor3:--}) | $frames_out | $(printf %.2f "$wall") | $(echo "$j" | jnum first_picture_s) | $(printf %.1f "$wfps") | $wr | $(printf %.1f "$sfps") | $sr |"
        done
    done
fi

if [[ $STAGES == *" live "* ]]; then
    say ""
    say "## live: K xsflow send --fps 60 (UHD 4:2:2 10-bit 3 bpp) into one xsflow recv over loopback, 20 s"
    say ""
    say "send options: ${XSF_LIVE_SEND_ARGS:-(defaults)}; recv options: ${XSF_LIVE_RECV_ARGS:-(defaults)}"
    say ""
    say "| K | frames whole | dropped | packets lost | kernel drops | latency p50 / p99 / max us (worst stream) | its wait / decode p99 us | recv CPU s (user+sys) | send CPU s (all senders) | send calls, late (all senders) |"
    say "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    clip=$(make_clip uhd_422_10b_bpp3)
    for K in ${XSF_LIVE_K:-1 4 8 16}; do
        base=$((30000 + K * 100))
        args=()
        for k in $(seq 0 $((K - 1))); do args+=(127.0.0.1:$((base + k)) -o "${XSF_LIVE_OUT:-null}"); done
        # The receiver (its per-second lines kept in live$K.log): TIMEFORMAT prints its CPU
        # time last.
        # shellcheck disable=SC2086
        ( TIMEFORMAT='%U %S'; time "$X" recv "${args[@]}" --duration 24 --timeout 0 --rcvbuf 268435456 \
            --stats-json "$W/live$K.json" --frame-log "$W/frames$K.csv" ${XSF_LIVE_RECV_ARGS:-} ) \
            > "$W/live$K.out" 2> "$W/live$K.log" &
        rx=$!
        sleep 1
        pids=()
        for k in $(seq 0 $((K - 1))); do
            # shellcheck disable=SC2086
            ( TIMEFORMAT='%U %S'; time timeout 21 "$X" send "$clip" --to 127.0.0.1:$((base + k)) \
                --fps 60 --loop 100 ${XSF_LIVE_SEND_ARGS:-} > "$W/send$K-$k.out" ) 2> "$W/send$K-$k.log" &
            pids+=($!)
        done
        wait "${pids[@]}" 2> /dev/null
        wait $rx
        j=$(cat "$W/live$K.json" 2> /dev/null)
        whole=0 dropped=0 lost=0 kd=0 p50=0 p99=0 max=0 w99=0 d99=0
        for k in $(seq 1 "$K"); do
            whole=$((whole + $(echo "$j" | jnum frames_whole "$k")))
            dropped=$((dropped + $(echo "$j" | jnum frames_dropped "$k")))
            lost=$((lost + $(echo "$j" | jnum packets_lost "$k")))
            kd=$((kd + $(echo "$j" | jnum kernel_drops "$k")))
            s50=$(echo "$j" | jlat latency_us p50 "$k") s99=$(echo "$j" | jlat latency_us p99 "$k")
            smax=$(echo "$j" | jlat latency_us max "$k")
            [ "$(calc "($s99 > $p99) ? 1 : 0")" = 1 ] && p50=$s50 p99=$s99 max=$smax \
                w99=$(echo "$j" | jlat wait_us p99 "$k") d99=$(echo "$j" | jlat decode_us p99 "$k")
        done
        cpu=$(tail -1 "$W/live$K.log" | awk '{print $1 + $2}')
        scpu=$(for k in $(seq 0 $((K - 1))); do tail -1 "$W/send$K-$k.log"; done |
            awk '{ s += $1 + $2 } END { print s }')
        # "N send calls (...), M of them late": late = more than one burst at once.
        calls=$(cat "$W"/send$K-*.out 2> /dev/null |
            sed -n 's/^\([0-9]*\) send calls.*, \([0-9]*\) of them late.*/\1 \2/p' |
            awk '{ c += $1; l += $2 } END { printf "%d, %d", c, l }')
        say "| $K | $whole | $dropped | $lost | $kd | $p50 / $p99 / $max | $w99 / $d99 | $cpu | $scpu | $calls |"
    done
fi
rm -f "$W"/out.yuv "$W"/svt.yuv
