#!/usr/bin/env bash
# xsflowdec on the GPU against `xsflow decode` of the same file in the same
# run (issue 17, item 4): frames per second of
#   gst-launch-1.0 filesrc ! xsflowjxsparse ! xsflowdec ! fakesink
#   xsflow decode FILE -o /dev/null --format yuv
# on 200 frames of UHD 4:2:2 10-bit at 3 bpp (vectors/xs-uhd/uhd_422_10b_bpp3.jxs
# repeated). xsflowdec rows: its default (I422_10LE, the pictures lent
# downstream without a copy), the same format forced by caps, frames-in-flight
# at 1 and 4, zero-copy=false (each picture copied into a pool buffer), 8-bit
# output forced by caps (Y42B: converted on the decode thread), and the CPU.
# Each command
# also runs on a one-frame file, whose time (start-up, first-frame
# allocations) is subtracted: fps = 199 / (t200 - t1). Three runs each; the
# table gives the best. Logs and the table under $OUT (default
# /tmp/xsf-gst-bench).
#
# Prepare here, once:
#   bash scripts/device-sysroot.sh download        # libpcap, nettle  -> .devdeps/
#   bash scripts/device-gst-sysroot.sh download    # GStreamer        -> .gstdeps/
#   mkdir -p .vec && cp ../shared/vectors/xs-uhd/* .vec/
# then on the GPU machine:
#   run(command="bash scripts/gst-device-bench.sh", carry=[".devdeps", ".gstdeps", ".vec"])
set -u
OUT=${OUT:-/tmp/xsf-gst-bench}
. scripts/device-lib.sh
. scripts/device-gst-sysroot.sh || exit 1
# XSF_GST_SRC: the source tree to build and measure (default this one; the
# before/after comparison points it at an older tree), XSF_GST_BUILD its build
# folder, XSF_GST_BENCH_ONLY=1: the table alone, without the element checks.
SRC=$(readlink -f "${XSF_GST_SRC:-.}")
B=$(readlink -m "${XSF_GST_BUILD:-$R/build-gst-device}")

step device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
gst-launch-1.0 --version | head -1
if [ ! -e "$B/gst/libgstxsflow.so" ]; then
    step build
    gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
    cmake -S "$SRC" -B "$B" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DXSF_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DXSF_GST=ON -DXSF_TESTS=ON -DXSF_BENCH=OFF > "$OUT/build.log" 2>&1 &&
        cmake --build "$B" -j"$(nproc)" --target xsflow gstxsflow test_gst_vectors test_gst_elements \
            >> "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
fi
export GST_PLUGIN_PATH=$B/gst GST_REGISTRY=/tmp/xsf-gst-registry.bin
gst-inspect-1.0 xsflow | grep -E "^  xsflow" || { echo "the plugin does not load"; exit 1; }

if [ "${XSF_GST_BENCH_ONLY:-0}" != 1 ]; then
step "GPU checks of the elements"
# The whole log stays under $OUT (a failure's output with it).
(cd "$B" && ctest -R "^gst\.(elements|vector\.)" -j4 --output-on-failure > "$OUT/gst-ctest.log" 2>&1)
tail -4 "$OUT/gst-ctest.log"
"$B/tests/gst/test_gst_vectors" "$R/vectors/xs" hd_422_10b_bpp3 gpu
# gst.vector.fmt_yuv422_8b failed once on the GPU with the old element: 20 runs.
for _ in $(seq 20); do
    "$B/tests/gst/test_gst_vectors" "$R/vectors/xs" fmt_yuv422_8b gpu 2>&1 | tail -1
done | sort | uniq -c
fi

step input
src=$R/.vec/uhd_422_10b_bpp3.jxs
[ -e "$src" ] || { echo "no $src (copy ../shared/vectors/xs-uhd into .vec)"; exit 1; }
one=/tmp/xsf-uhd1.jxs all=/tmp/xsf-uhd200.jxs
cp "$src" $one
: > $all
for _ in $(seq 200); do cat "$src" >> $all; done
ls -l $one $all

now() { date +%s.%N; }
# seconds FILE CMD...: wall time of one run with @ replaced by FILE
seconds() {
    local f=$1; shift
    local args=("${@//@/$f}") t0 t1
    t0=$(now)
    "${args[@]}" > /dev/null 2>> "$OUT/run.log" || { echo "FAILED: ${args[*]}" >&2; echo -1; return; }
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
# fps NAME CMD...: best of three of 199 / (t200 - t1)
fps() {
    local name=$1; shift
    local best=0
    for _ in 1 2 3; do
        local t1 t200 f
        t1=$(seconds $one "$@")
        t200=$(seconds $all "$@")
        f=$(awk -v a="$t1" -v b="$t200" 'BEGIN { print (b > a && a >= 0) ? 199 / (b - a) : 0 }')
        echo "$name: one frame ${t1}s, 200 frames ${t200}s, ${f} fps" >> "$OUT/run.log"
        best=$(awk -v f="$f" -v b="$best" 'BEGIN { print (f > b) ? f : b }')
    done
    printf '%-44s %8.1f\n' "$name" "$best" | tee -a "$OUT/table.txt"
}

step "frames per second (best of 3; start-up subtracted)"
: > "$OUT/table.txt"
fps "xsflow decode (GPU)" "$B/xsflow" decode @ -o /dev/null --format yuv -q
ref=$(tail -1 "$OUT/table.txt" | awk '{print $NF}')
dec() { # NAME ELEMENT-PROPERTIES [CAPS]
    local name=$1 props=$2 caps=${3:-}
    if [ -n "$caps" ]; then
        fps "$name" gst-launch-1.0 -q filesrc location=@ blocksize=4194304 ! xsflowjxsparse ! \
            xsflowdec $props ! "$caps" ! fakesink sync=false
    else
        fps "$name" gst-launch-1.0 -q filesrc location=@ blocksize=4194304 ! xsflowjxsparse ! \
            xsflowdec $props ! fakesink sync=false
    fi
}
dec "xsflowdec device=gpu (zero copy)" "device=gpu"
dec "xsflowdec device=gpu ! I422_10LE" "device=gpu" "video/x-raw,format=I422_10LE"
dec "xsflowdec device=gpu frames-in-flight=1" "device=gpu frames-in-flight=1"
dec "xsflowdec device=gpu frames-in-flight=4" "device=gpu frames-in-flight=4"
dec "xsflowdec device=gpu zero-copy=false" "device=gpu zero-copy=false"
dec "xsflowdec device=gpu ! Y42B (8-bit)" "device=gpu" "video/x-raw,format=Y42B"
dec "xsflowdec device=cpu" "device=cpu"
if gst-inspect-1.0 svtjpegxsdec > /dev/null 2>&1; then
    fps "svtjpegxsdec" gst-launch-1.0 -q filesrc location=@ ! jpegxsparse ! svtjpegxsdec ! fakesink sync=false
else
    echo "svtjpegxsdec: not available (GStreamer 1.22 has no svtjpegxs elements)" | tee -a "$OUT/table.txt"
fi
step "ratio to xsflow decode (issue 17 asks at least 0.8)"
awk -v ref="$ref" '/xsflowdec device=gpu/ { printf "%-44s %.2f\n", $0, $NF / ref }' "$OUT/table.txt"
