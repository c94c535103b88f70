#!/usr/bin/env bash
# Everything the GPU machine checks and measures, in stages that fit the
# device tool's 10-minute calls; logs under $OUT (default /tmp/xsf-device).
#
#   bash scripts/device-check.sh [test] [memcheck] [racecheck] [synccheck] [bench]
#
#   test       ctest -L gpu: every GPU kernel against its C reference
#   all        ctest, every test (the GPU engine where the CLI tests pick it),
#              reported by scripts/ctest-report.py: passed, failed, skipped
#              by label and why
#   memcheck, racecheck, synccheck
#              compute-sanitizer on the quick sets of the four GPU tests
#   bench      bench/dwt, bench/xs_encode (with --cpu --check), bench/bpc,
#              bench/xs_decode (the tables of BENCHMARKS.md)
#   pipeline   the pipeline's tests on the GPU stage, the demo, and
#              compute-sanitizer memcheck of the GPU pipeline test
#   plbench    bench/pipeline: decode, the capture source alone and recv --pcap
#              (with .svt/SvtJpegxsDecApp when carried); plbench-live adds the
#              live loopback senders; plsource: the capture source and recv
#              --pcap only; plpixfmt: recv --pcap --pix-fmt planar16, v210 and
#              pgroup of a 1000-frame UHD capture against each format's D2H floor
#   service    compute-sanitizer (memcheck, initcheck) on the service's GPU
#              tests: the incremental decoder, the pipeline, hostile input
#   latency    bench/latency: last packet -> picture, whole frames against
#              --slices, 1 and 8 UHD60 streams (XSF_LAT_SECONDS, default 12)
#   soak       scripts/soak.sh: XSF_SOAK_STREAMS (default 2) impaired UHD60 streams on
#              the GPU (XSF_SOAK_LEGS legs, default 1: plant impairments; 2: 1 % on
#              each leg) for XSF_SOAK_SECONDS (default 480), exact counts, every
#              picture's MD5, memory, stalls (the MD5s take 3.3 cores a stream: 4
#              streams and their senders would want more than 16 cores)
#   dsbench    bench/display: decode to presented frame (EGL offscreen, interop)
#   display    display/ on the NVIDIA driver through EGL (no window system):
#              ctest -L display (the host-upload path and, label gpu, the
#              CUDA-GL interop path against the C conversion) and
#              `xsflow play --headless` with the GPU decoder
#
# Prepare here, once: `bash scripts/device-sysroot.sh download` (libpcap,
# nettle, epoxy, EGL/GL/GLFW headers for the device image, into .devdeps/),
# `mkdir -p .vec && cp ../shared/vectors/xs-uhd/* .vec/` (the UHD vectors)
# and, for the display stage, the GL loaders (device README) into .gl/:
#   mkdir -p .gl /tmp/amd64/partial; o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#   apt-get $o update; (cd .gl && apt-get $o download libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
# carry them:
#   run(command="bash scripts/device-check.sh test display", carry=[".devdeps", ".vec", ".gl"])
# The build (build-device/, Release, sm_90, warnings as errors, ~30 s on 16
# cores; incremental while the machine stays warm); "test" takes ~2.5 minutes,
# the three sanitizers ~4 (racecheck of test_gpu_decode alone ~7 with the
# whole vector set, so it gets its own time limit), "bench" ~1.5.
set -u
STAGES=" $* "
OUT=${OUT:-/tmp/xsf-device}
. scripts/device-lib.sh
# GL loaders (glvnd) into / before the build, so that the display tests find
# them; EGL picks the NVIDIA vendor library.
stage display dsbench && gl_loaders
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
B=$R/build-device

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
nvcc --version | tail -1
# Always (incremental on a warm machine: the tree sent may have changed).
if :; then
    step build
    cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DXSF_WERROR=ON -DXSF_TESTS=ON -DXSF_BENCH=ON -DXSF_GST=OFF \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DXSF_UHD_VECTORS="$R/.vec" > "$OUT/build.log" 2>&1 &&
        cmake --build "$B" -j"$(nproc)" >> "$OUT/build.log" 2>&1 ||
        { echo "BUILD FAILED"; tail -40 "$OUT/build.log"; exit 1; }
    echo built
fi

if stage test; then
    step "ctest -L gpu"
    (cd "$B" && timeout 400 ctest -L gpu -j2 --output-on-failure) > "$OUT/ctest_gpu.log" 2>&1
    echo "ctest rc=$?"
    grep -E "tests passed|tests failed|\*\*\*|Not Run|Skipped" "$OUT/ctest_gpu.log" | tail -15
fi

if stage all; then
    step "ctest, every test"
    (cd "$B" && timeout 560 ctest -j8 --output-on-failure --output-junit "$OUT/ctest_all.xml") \
        > "$OUT/ctest_all.log" 2>&1
    echo "ctest rc=$?"
    python3 scripts/ctest-report.py "$B" "$OUT/ctest_all.xml" --name "device, every test" |
        tee "$OUT/ctest_all_report.txt"
fi

san() {
    local tool=$1 limit=$2
    shift 2
    timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" > "$OUT/san.tmp" 2>&1
    local rc=$?
    echo "$tool $(basename "$1") rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san.tmp" | tail -1)" |
        tee -a "$OUT/sanitize.log"
    [ $rc = 0 ] || head -40 "$OUT/san.tmp" >> "$OUT/sanitize.log"
}
for tool in memcheck racecheck synccheck; do
    stage $tool || continue
    step "$tool"
    san $tool 150 "$B/tests/wavelet/test_wavelet_cuda" quick
    san $tool 150 "$B/tests/xs_enc/test_xs_enc_gpu" --quick
    san $tool 150 "$B/tests/bpc/test_bpc_gpu" quick
    san $tool 480 "$B/tests/xs/test_gpu_decode" "$R/vectors/xs"
done

if stage bench; then
    # bench/bpc's photograph: a conformance vector decoded, 12 -> 8 bits.
    photo=$OUT/fallenleaf_1920x1080.ppm
    "$B/xsflow" decode vectors/xs/hd_444_12b_bpp6_v1.jxs -o /tmp/photo16.ppm --cpu -q &&
        python3 - /tmp/photo16.ppm "$photo" <<'PY'
import re, sys
d = open(sys.argv[1], 'rb').read()
m = re.match(rb'P6\s+(\d+)\s+(\d+)\s+(\d+)\s', d)
w, h, mx = map(int, m.groups())
shift = mx.bit_length() - 8
px = d[m.end():]
out = bytes(min(255, ((px[i] << 8) | px[i + 1]) >> shift) for i in range(0, len(px), 2))
open(sys.argv[2], 'wb').write(b'P6\n%d %d\n255\n' % (w, h) + out)
PY
    step dwt_bench
    timeout 100 "$B/bench/dwt/dwt_bench" 30 > "$OUT/dwt.log" 2>&1
    echo "rc=$?"; cat "$OUT/dwt.log"
    step xs_encode_bench
    timeout 160 "$B/bench/xs_encode/xs_encode_bench" --gpu --cpu --check --frames 200 --streams 2 \
        --uhd "$R/.vec" > "$OUT/xsenc.log" 2>&1
    echo "rc=$?"; cat "$OUT/xsenc.log"
    step bpc_bench
    timeout 200 "$B/bench/bpc/bpc_bench" --photo "$photo" > "$OUT/bpc.log" 2>&1
    echo "rc=$?"; cat "$OUT/bpc.log"
    step xs_decode_bench
    timeout 120 "$B/bench/xs_decode/xs_decode_bench" --frames 1000 "$R"/.vec/uhd_*.jxs > "$OUT/xsdec.log" 2>&1
    echo "rc=$?"; cat "$OUT/xsdec.log"
fi
if stage pipeline; then
    step "pipeline on the GPU"
    (cd "$B" && timeout 300 ctest -R "pipeline|app.cli.demo|rtp.cli_loopback|xs.cli" -j4 --output-on-failure) \
        > "$OUT/ctest_pipeline.log" 2>&1
    echo "ctest rc=$?"
    grep -E "tests passed|tests failed|\*\*\*|Not Run|Skipped" "$OUT/ctest_pipeline.log" | tail -15
    "$B/xsflow" demo /tmp/demo.y4m 2>&1 | tee "$OUT/demo.log"
    san memcheck 240 "$B/tests/pipeline/test_pipeline" "$R/vectors/xs" gpu
    cat "$OUT/sanitize.log" 2>/dev/null | tail -5
fi
if stage service; then
    step "compute-sanitizer on the service's GPU tests"
    san memcheck 300 "$B/tests/xs/test_gpu_incremental" "$R/vectors/xs"
    san initcheck 300 "$B/tests/xs/test_gpu_incremental" "$R/vectors/xs"
    san memcheck 240 "$B/tests/pipeline/test_hostile" "$R/vectors/xs" gpu
    stage pipeline || san memcheck 240 "$B/tests/pipeline/test_pipeline" "$R/vectors/xs" gpu
fi
if stage latency; then
    step "bench/latency"
    XSF_LAT_SECONDS=${XSF_LAT_SECONDS:-12} timeout 500 bash bench/latency/run.sh "$B" \
        "$R/.vec/uhd_422_10b_bpp3.jxs" 2>&1 | tee "$OUT/latency.log" | grep -v "^send:"
fi
if stage soak; then
    step "soak"
    timeout $((${XSF_SOAK_SECONDS:-480} + 100)) bash scripts/soak.sh --xsflow "$B/xsflow" --engine gpu \
        --streams "${XSF_SOAK_STREAMS:-2}" --duration "${XSF_SOAK_SECONDS:-480}" --fps 60 \
        --vector "$R/.vec/uhd_422_10b_bpp3.jxs" \
        --legs "${XSF_SOAK_LEGS:-1}" \
        --out "$OUT/soak" 2>&1 | tee "$OUT/soak.log" | tail -30
fi
if stage plbench plbench-live plsource plpixfmt; then
    step "bench/pipeline"
    pl_stages=
    stage plbench && pl_stages="decode source pcap"
    stage plsource && pl_stages="source pcap"
    stage plbench-live && pl_stages="$pl_stages live"
    stage plpixfmt && pl_stages="$pl_stages pixfmt"
    svt=; [ -x "$R/.svt/SvtJpegxsDecApp" ] && svt="svt=$R/.svt/SvtJpegxsDecApp"
    timeout 500 bash bench/pipeline/run.sh "$B" "$R/.vec" $pl_stages $svt 2>&1 | tee "$OUT/plbench.log"
fi
if stage dsbench; then
    step "bench/display"
    XSF_EGL_PLATFORM=device timeout 200 "$B/bench/display/display_bench" "$R/.vec/uhd_422_10b_bpp3.jxs" \
        vectors/xs/hd_422_10b_bpp3.jxs 600 2>&1 | tee "$OUT/display_bench.log"
fi
if stage display; then
    step "display: EGL on the NVIDIA driver, CUDA-GL interop"
    ls -l /usr/local/nvidia/share/glvnd/egl_vendor.d/ 2>&1 | tail -2
    (cd "$B" && XSF_EGL_PLATFORM=device timeout 300 ctest -L display --output-on-failure -V) > "$OUT/display.log" 2>&1
    echo "ctest rc=$?"
    grep -E "rendered through|largest|passed|failed|skipped|Skipped|\*\*\*" "$OUT/display.log" | tail -15
    for v in fmt_yuv422_10b hd_444_12b_bpp6_v1; do
        XSF_EGL_PLATFORM=device "$B/xsflow" play "vectors/xs/$v.jxs" --gpu --headless "$OUT/play_${v}_gpu.ppm"
        XSF_EGL_PLATFORM=device "$B/xsflow" play "vectors/xs/$v.jxs" --cpu --headless "$OUT/play_${v}_cpu.ppm"
        cmp "$OUT/play_${v}_gpu.ppm" "$OUT/play_${v}_cpu.ppm" && echo "$v: GPU/interop and CPU/upload pictures identical"
    done
fi
step done
