#!/usr/bin/env bash
# xsflow compare on the GPU machine, for COMPARISON.md: JPEG XS against
# BPC-PaCo on a UHD picture and on an 8192x8192 picture, every variant at
# 0.5..8 bpp and lossless, with the peers on the CPU where carried
# (SVT-JPEG-XS: .svt/SvtJpegxsEncApp and SvtJpegxsDecApp, built here by
# scripts/svt-build.sh; OpenJPEG: libopenjp2 from .devdeps); CSV, the table
# and the plots under $OUT.
#
#   bash scripts/compare-device.sh [test] [uhd] [8k] [cpu] [set] [set-rgb]   (default: test uhd)
#
#   test the GPU rows against the C rows (tests/compare/test_compare_gpu,
#        ctest label gpu), ~1 minute
#   uhd  the UHD 4:4:4 12-bit photograph (Volna, vectors xs-uhd
#        uhd_444_12b_bpp10_v1h5 decoded: 59.4 dB from its source), CUDA codecs
#   8k   its luma at 8 bits mirrored to 8192x8192 (one component, as the
#        BPC-PaCo thesis' Table 4.4 and bench/bpc), CUDA codecs
#   cpu  the C references on the UHD picture (one run per figure: slow)
#   set  the public set (bench/compare/set.sh --gpu: 14 pictures of
#        bench/xs_encode/rdset.sh as 4:4:4 8-bit YCbCr, 0.5..8 bpp, xs
#        default, bpc 2pass and the peers): throughput and latency per rate
#        over the set, with the quality (the same as the CPU run here);
#        its CSVs in $OUT/set-yuv444-gpu.tar.gz, the answer in set-yuv444-gpu.txt
#   set-rgb  the same on the RGB .ppm (each family's colour transform)
#
# Prepare here, once (as for scripts/device-check.sh): `bash
# scripts/device-sysroot.sh download` (.devdeps/) and `mkdir -p .vec && cp
# ../shared/vectors/xs-uhd/* .vec/`; then two calls (each within the device
# tool's 10 minutes: the first builds, ~1 min, each picture takes ~3-6 min):
#   run(command="bash scripts/compare-device.sh test uhd", carry=[".devdeps", ".vec", ".svt"])
#   run(command="bash scripts/compare-device.sh 8k", carry=[".devdeps", ".vec", ".svt"])
# (.devdeps downloaded since libopenjp2 joined it; .svt: `bash scripts/svt-build.sh` here
# leaves SVT-JPEG-XS's two static apps there, ~2 MB with its source tarball.)
# XSF_COMPARE_BPP (e.g. "0.5,1,2,3" then "4,6,8,lossless") splits a run that
# would pass the 10 minutes of one call.
# The set (prepared here: `bash bench/compare/set.sh --rdset RDSET` once
# writes .cmpset/, ~44 MB with the RGB pictures; it needs .rdset from
# bench/xs_encode/rdset.sh), one call of about 5 minutes:
#   run(command="bash scripts/compare-device.sh set", carry=[".devdeps", ".svt", ".cmpset"])
# XSF_SET_PICTURES (names of .cmpset/list, comma-separated) splits it over
# two calls; the answer over both: unpack both calls' set-yuv444-gpu.tar.gz
# into one folder and `bash bench/compare/set.sh --summary --out FOLDER`.
# Nothing is downloaded on the device. Where the device has no gnuplot, the
# plots' data and scripts are written (--gnuplot none) and drawn here:
#   cp -r FILES_AT/plots-* /tmp/ && (cd /tmp/plots-uhd && for f in *.gp; do gnuplot "$f"; done)
set -u
STAGES=" ${*:-test uhd} "
OUT=${OUT:-/tmp/xsf-compare}
. scripts/device-lib.sh
B=$R/build-device
W=/tmp/xsf-compare-pictures
mkdir -p "$W"

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv | tee "$OUT/device.txt"
nvcc --version | tail -1 | tee -a "$OUT/device.txt"
grep -m1 'model name' /proc/cpuinfo | tee -a "$OUT/device.txt"
{ git log -1 --format='tree %h %s' 2>/dev/null || echo 'tree: no git here'; } | tee -a "$OUT/device.txt"
step build
# Incremental: a build-device/ left by scripts/device-check.sh on a warm
# machine is reused, and brought up to date for the two targets used here.
if [ ! -f "$B/CMakeCache.txt" ]; then
    cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DXSF_WERROR=ON -DXSF_TESTS=ON -DXSF_BENCH=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DXSF_UHD_VECTORS="$R/.vec" > "$OUT/build.log" 2>&1 ||
        { echo "CONFIGURE FAILED"; tail -40 "$OUT/build.log"; exit 1; }
fi
if ! cmake --build "$B" -j"$(nproc)" --target xsflow test_compare_gpu >> "$OUT/build.log" 2>&1; then
    echo "BUILD FAILED"; tail -40 "$OUT/build.log"; exit 1
fi
echo built
X=$B/xsflow
# The peers: SVT-JPEG-XS where carried (else PATH), OpenJPEG where the
# sysroot gave the build openjpeg.h and the loader libopenjp2.
peers=()
[ -x "$R/.svt/SvtJpegxsEncApp" ] && peers+=(--svt-enc "$R/.svt/SvtJpegxsEncApp")
[ -n "${XSF_COMPARE_BPP:-}" ] && peers+=(--bpp "$XSF_COMPARE_BPP")
grep -q 'XSF_OPENJPEG_INCLUDE_DIR:PATH=.*openjpeg' "$B/CMakeCache.txt" && echo "OpenJPEG peer: built in" ||
    echo "OpenJPEG peer: not built in (no openjpeg.h in the sysroot: download .devdeps again)"
plot_tool=gnuplot
command -v gnuplot >/dev/null 2>&1 || { plot_tool=none; echo "no gnuplot here: plot data and scripts only"; }

if stage test; then
    step "GPU rows against C rows"
    timeout 300 "$B/tests/compare/test_compare_gpu" > "$OUT/test_compare_gpu.log" 2>&1
    echo "rc=$?"; tail -5 "$OUT/test_compare_gpu.log"
fi
# The public set: NAME (yuv444 or rgb); set.sh's CSVs and its answer under $OUT.
set_run() {
    local form=$1
    step "the public set, $form (bench/compare/set.sh --gpu)"
    [ -s "$R/.cmpset/list" ] || { echo "no .cmpset/list: run bench/compare/set.sh here first, carry .cmpset"; return; }
    local svt=$R/.svt
    [ -x "$svt/SvtJpegxsEncApp" ] || svt=/nonexistent
    XSFLOW=$X SVT=$svt timeout 560 bash bench/compare/set.sh --gpu --form "$form" --inputs "$R/.cmpset" \
        --out "$OUT/set-$form-gpu" ${XSF_SET_PICTURES:+--pictures "$XSF_SET_PICTURES"} \
        > "$OUT/set-$form-gpu.txt" 2> "$OUT/set-$form-gpu.log"
    echo "rc=$?"
    # One archive of the CSVs: the device tool brings back only so many files.
    tar -czf "$OUT/set-$form-gpu.tar.gz" -C "$OUT" "set-$form-gpu" && rm -rf "$OUT/set-$form-gpu"
    cat "$OUT/set-$form-gpu.log" "$OUT/set-$form-gpu.txt"
}
stage set && set_run yuv444
stage set-rgb && set_run rgb
stage uhd 8k cpu || { step "done"; exit 0; }

step pictures
uhd=$W/volna-uhd-444-12b.y4m
big=$W/volna-luma-8192x8192-8b.pgm
if [ ! -s "$uhd" ]; then
    "$X" decode "$R/.vec/uhd_444_12b_bpp10_v1h5.jxs" -o "$uhd" --cpu -q || { echo "no UHD picture (.vec?)"; exit 1; }
fi
if [ ! -s "$big" ]; then
    # Luma (12-bit little-endian after the Y4M headers) to 8 bits, mirrored
    # left-right and top-bottom until it fills 8192x8192.
    python3 - "$uhd" "$big" <<'PY' || { echo "no 8192x8192 picture"; exit 1; }
import sys
d = open(sys.argv[1], 'rb').read()
head = d.index(b'\n')
tags = d[:head].split()
w = int([t for t in tags if t.startswith(b'W')][0][1:])
h = int([t for t in tags if t.startswith(b'H')][0][1:])
start = d.index(b'FRAME\n', head) + 6
y = d[start:start + 2 * w * h]
rows = []
for r in range(h):
    row = y[2 * w * r:2 * w * (r + 1)]
    rows.append(bytes(min(255, (row[2 * i] | row[2 * i + 1] << 8) >> 4) for i in range(w)))
N = int(sys.argv[3]) if len(sys.argv) > 3 else 8192
def fill(seq, n):
    out, k = seq[:0], 0
    while len(out) < n:
        out += seq if k % 2 == 0 else seq[::-1]
        k += 1
    return out[:n]
wide = [fill(r, N) for r in rows]
tall = fill(wide, N)
with open(sys.argv[2], 'wb') as f:
    f.write(b'P5\n%d %d\n255\n' % (N, N))
    for r in tall:
        f.write(r)
PY
fi
ls -l "$uhd" "$big"

# One compare run: NAME PICTURE PATH [extra options]
compare() {
    local name=$1 pic=$2 path=$3
    shift 3
    step "compare $name ($path)"
    timeout 560 "$X" compare "$pic" --"$path" --csv "$OUT/compare-$name.csv" --plot "$OUT/plots-$name" \
        --gnuplot "$plot_tool" -v "${peers[@]}" "$@" > "$OUT/compare-$name.txt" 2> "$OUT/compare-$name.log"
    local rc=$?
    echo "rc=$rc"
    grep -E "MISMATCH|xsflow: " "$OUT/compare-$name.log" | grep -v "^xsflow compare: " | head -5
    grep -E "^xsflow compare: (SVT-JPEG-XS|OpenJPEG)" "$OUT/compare-$name.log"
    cat "$OUT/compare-$name.txt"
}
stage uhd && compare uhd "$uhd" gpu --time-ms 300
stage 8k && compare 8k "$big" gpu --time-ms 300
stage cpu && compare uhd-cpu "$uhd" cpu --time-ms 0
step "done"
ls -l "$OUT"
