#!/usr/bin/env bash
# Before and after a change, on one machine in one device call: builds an
# older tree and this one, then runs each named stage with both builds, the
# older first, with this tree's bench scripts (the commands' behaviour must
# not have changed, so the same script drives both). Logs and tables under
# $OUT/before and $OUT/after.
#
#   bash scripts/device-beforeafter.sh BEFORE_DIR STAGE...
#
#   xsdec     bench/xs_decode on the UHD vectors (1000 frames)
#   pldecode  bench/pipeline decode (`xsflow decode` of 200-frame UHD files)
#   pcap      bench/pipeline pcap (`xsflow recv --pcap`)
#   live16    bench/pipeline live with K=16 senders
#   livestages bench/pipeline/live_stages.sh: live K=16, the builds' senders and receivers
#             crossed, alternating, the latency per stage of the frame log
#   latency   bench/latency, one stream, both packetizations, whole and --slices
#   display   bench/display (EGL on the NVIDIA driver; carry .gl)
#   gst       scripts/gst-device-bench.sh's table (carry .gstdeps)
#   startup   bench/pipeline/startup.sh: decode and recv --pcap start-up, whole process
#   firstpic  bench/pipeline/first_picture.sh: a stream's first picture, warm and cold recv
#
# REPS=N (default 1) runs each stage N times, alternating before and after
# within each round, so that a row's spread from run to run is seen beside
# the difference between the builds; round r's log is LABEL.rR.log.
#
# Prepare here: BEFORE_DIR is a copy of the older commit, e.g.
#   rm -rf .before && mkdir .before && git archive 8170898 | tar -x -C .before
# plus what scripts/device-check.sh says (.devdeps, .vec, .gl; .gstdeps for gst), then
#   run(command="bash scripts/device-beforeafter.sh .before xsdec pldecode",
#       carry=[".before", ".devdeps", ".vec", ".gl"])
# The builds (build-ba-before/, build-ba-after/) stay while the machine is warm.
set -u
BEFORE=$(readlink -f "$1")
shift
STAGES=" $* "
OUT=${OUT:-/tmp/xsf-device}
. scripts/device-lib.sh
mkdir -p "$OUT/before" "$OUT/after"
stage display && gl_loaders
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
nproc

# build WHICH SRC
build() {
    local which=$1 src=$2 b=$R/build-ba-$1
    cmake -S "$src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DXSF_TESTS=OFF -DXSF_BENCH=ON -DXSF_GST=OFF \
        -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/$which/build.log" 2>&1 &&
        cmake --build "$b" -j"$(nproc)" >> "$OUT/$which/build.log" 2>&1 ||
        { echo "$which: BUILD FAILED"; tail -30 "$OUT/$which/build.log"; exit 1; }
    echo "$which built: $(git -C "$src" log -1 --format=%h 2> /dev/null || echo "$src")"
}
if [ "$STAGES" != " gst " ]; then # the GStreamer stage builds trees of its own
    step build
    build before "$BEFORE" &
    build after "$R" &
    wait %1 && wait %2 || exit 1
fi

# each LABEL CMD...: runs CMD with each build, before first (WHICH before or
# after, SRC its source tree, B its build, OUT its log folder); its output
# goes to $OUT/WHICH/LABEL.log and to the terminal.
REPS=${REPS:-1}
each() {
    local label=$1 src log
    shift
    for r in $(seq "$REPS"); do
        for which in before after; do
            src=$R
            [ $which = before ] && src=$BEFORE
            log=$OUT/$which/$label.log
            [ "$REPS" -gt 1 ] && log=$OUT/$which/$label.r$r.log
            echo "---- $label: $which, round $r of $REPS"
            WHICH=$which SRC=$src B=$R/build-ba-$which OUT=$OUT/$which bash -c "$*" 2>&1 | tee "$log"
        done
    done
}
# both NAME TITLE CMD: the stage NAME, where it was asked for, with each build.
both() {
    stage "$1" || return 0
    step "$2"
    each "$1" "$3"
}

V=$R/.vec
both xsdec "bench/xs_decode" 'timeout 120 "$B/bench/xs_decode/xs_decode_bench" --frames 1000 '"$V"'/uhd_*.jxs'
both startup "start-up" 'timeout 240 bash bench/pipeline/startup.sh "$B" '"$V"
both firstpic "first pictures" 'timeout 280 bash bench/pipeline/first_picture.sh "$B" '"$V"
both pldecode "bench/pipeline decode" 'timeout 200 bash bench/pipeline/run.sh "$B" '"$V"' decode'
both pcap "bench/pipeline pcap" 'timeout 240 bash bench/pipeline/run.sh "$B" '"$V"' pcap'
both live16 "bench/pipeline live, K=16" 'XSF_LIVE_K=16 timeout 200 bash bench/pipeline/run.sh "$B" '"$V"' live'
if stage livestages; then # one run of both builds, crossed: not each build alone
    step "live K=16 per stage, A = before, B = after"
    bash bench/pipeline/live_stages.sh "$R/build-ba-before" "$R/build-ba-after" "$V" 2>&1 | tee "$OUT/livestages.log"
fi
both latency "bench/latency, one stream" 'XSF_LAT_STREAMS=1 XSF_LAT_SECONDS=${XSF_LAT_SECONDS:-10} timeout 280 bash bench/latency/run.sh "$B" '"$V"'/uhd_422_10b_bpp3.jxs | grep -v "^send:"'
both display "bench/display" 'XSF_EGL_PLATFORM=device timeout 200 "$B/bench/display/display_bench" '"$V"'/uhd_422_10b_bpp3.jxs vectors/xs/hd_422_10b_bpp3.jxs 600'
# The GStreamer stage builds each tree itself (scripts/gst-device-bench.sh), the table alone.
both gst "GStreamer" 'XSF_GST_SRC=$SRC XSF_GST_BUILD='"$R"'/build-ba-gst-$WHICH XSF_GST_BENCH_ONLY=1 OUT=$OUT/gst bash scripts/gst-device-bench.sh 2>&1 | tail -14'
step done
