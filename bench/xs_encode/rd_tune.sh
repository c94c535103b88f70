#!/usr/bin/env bash
# The encoder's two tunes against each other: `xsflow encode --tune psnr`
# (the default) and `--tune visual` (xs/ENCODER.md, "Weights"), on the
# public set of bench/xs_encode/rdset.sh, every stream decoded by xsflow's C
# decoder (`xsflow decode --cpu`) and measured by rd_metrics: PSNR-Y (Cb, Cr
# and the 6:1:1 YCbCr PSNR beside it), SSIM and MS-SSIM of the luma (the
# code of `xsflow compare`).
#
#   bash bench/xs_encode/rd_tune.sh [options]
#     --set DIR        the picture set (default .rdset; made by rdset.sh when missing)
#     --out DIR        results (default SET/out): tune_points.txt
#     --formats LIST   of 420 (8-bit), 422 (10-bit), 444 (12-bit) (default all three)
#     --bpps LIST      default "1 2 3 4 6 8"
#     --pictures LIST  names of the set's list (default every picture)
#     --table          print the table from tune_points.txt only
#   Environment: XSFLOW (default build/xsflow), RDM (rd_metrics, default
#   build/bench/xs_encode/rd_metrics), JOBS (default 2).
#
# Table per format: BD-rate of visual against psnr (Bjontegaard, cubic fit of
# log-rate per picture over the rates, mean over the pictures; negative: the
# visual tune needs fewer bits for the same quality) on PSNR-Y, on the 6:1:1
# PSNR, on SSIM and on MS-SSIM, the last two as dB of 1 - value
# (-10 log10(1 - SSIM)), so that the fit sees a quality that keeps rising;
# then the mean of every metric at each rate for both tunes. A lossless
# point (PSNR 999, or SSIM 1) is left out of the fits; a picture needs 4
# points.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=bench/xs_encode/rd_common.sh
. bench/xs_encode/rd_common.sh
FORMATS="420 422 444"
PICTURES=
tune_option() {
    RD_TAKEN=2
    case $1 in
    --pictures) PICTURES=$2 ;;
    *) return 1 ;;
    esac
}
rd_args rd_tune 2,28p tune_option "$@"
rd_points_file tune_points.txt

# One point: FMT NAME W H BPP TUNE; prints "FMT NAME BPP TUNE BYTES BUDGET Y Cb
# Cr ALL SSIM MSSSIM" (or an ERROR line).
point() {
    local fmt=$1 name=$2 w=$3 h=$4 bpp=$5 tune=$6 d tmp ok=1 p='' s=''
    d=$(fmt_depth "$fmt")
    tmp=$(mktemp -d)
    local ref=$SET/$fmt/$name.yuv
    if "$XSFLOW" encode "$ref" -o "$tmp/c.jxs" --bpp "$bpp" --size "${w}x$h" --sampling "$fmt" \
        --depth "$d" --tune "$tune" --threads 1 -q >"$tmp/log" 2>&1 &&
        "$XSFLOW" decode "$tmp/c.jxs" -o "$tmp/d.yuv" --cpu --threads 1 -q >"$tmp/dlog" 2>&1; then
        ok=0
        p=$("$RDM" psnr "$ref" "$tmp/d.yuv" "$w" "$h" "$fmt" "$d")
        s=$("$RDM" ssim "$ref" "$tmp/d.yuv" "$w" "$h" "$fmt" "$d")
    fi
    rd_point_result $ok "$fmt $name $bpp $tune" "$tmp" "$w" "$h" "$bpp" "$p $s"
}
export -f point

rd_need rd_tune "$RDM" "$XSFLOW"
in_pictures() { [ -z "$PICTURES" ] || [[ " $PICTURES " == *" $1 "* ]]; }

if [ $TABLE_ONLY = 0 ]; then
    jobs=$(mktemp)
    for fmt in $FORMATS; do
        while read -r name w h _; do
            in_pictures "$name" || continue
            for b in $BPPS; do
                for tune in psnr visual; do
                    echo "$fmt $name $w $h $b $tune"
                done
            done
        done < "$SET/list"
    done > "$jobs"
    rd_run_points "$jobs"
fi

# ---- The table ----
# Columns of a point: 7 Y, 8 Cb, 9 Cr, 10 ALL, 11 SSIM, 12 MS-SSIM; added: 13
# the 6:1:1 PSNR, 14 SSIM dB, 15 MS-SSIM dB (999 where lossless).
DB=$(mktemp)
awk 'function db(v) { return v >= 1 ? 999 : -10 * log(1 - v) / log(10) }
     NF >= 12 { y = 10 ^ (-$7 / 10); b = 10 ^ (-$8 / 10); r = 10 ^ (-$9 / 10)
                $13 = ($7 >= 999 && $8 >= 999 && $9 >= 999) ? 999 : sprintf("%.4f", -10 * log((6 * y + b + r) / 8) / log(10))
                $14 = sprintf("%.4f", db($11)); $15 = $12 == "nan" ? "nan" : sprintf("%.4f", db($12)); print }' \
    "$POINTS" > "$DB"
# A picture's rate-distortion pairs (visual against psnr) of column c, none
# for a picture left out (--pictures).
bd_pairs() { # picture fmt c
    in_pictures "$1" || return 0
    awk -v f="$2" -v n="$1" -v c="$3" '
        $1 == f && $2 == n && $c != "nan" && $c < 999 {
            if ($4 == "psnr") { ra[$3] = $5 * 8; pa[$3] = $c }
            if ($4 == "visual") { rt[$3] = $5 * 8; pt[$3] = $c } }
        END { for (b in pt) if (b in pa) print ra[b], pa[b], rt[b], pt[b] }' "$DB"
}
# Mean BD-rate (visual against psnr) of column c over the format's pictures.
bd_mean() { rd_bd_mean "%+.2f %% (%d pictures)" bd_pairs "$@"; } # fmt c
for fmt in $FORMATS; do
    grep -q "^$fmt " "$DB" || continue
    case $fmt in
    420) title="4:2:0 8-bit" ;;
    422) title="4:2:2 10-bit" ;;
    444) title="4:4:4 12-bit" ;;
    esac
    echo
    echo "### $title: --tune visual against --tune psnr"
    echo
    echo "| metric | BD-rate of visual vs psnr |"
    echo "|---|---|"
    echo "| PSNR-Y | $(bd_mean "$fmt" 7) |"
    echo "| PSNR 6:1:1 (Y, Cb, Cr) | $(bd_mean "$fmt" 13) |"
    echo "| SSIM (dB of 1 - SSIM) | $(bd_mean "$fmt" 14) |"
    echo "| MS-SSIM (dB of 1 - MS-SSIM) | $(bd_mean "$fmt" 15) |"
    echo
    echo "Mean over the pictures at each rate: PSNR-Y (Cb, Cr) dB, SSIM, MS-SSIM (a lossless picture counts 100 dB):"
    echo
    awk -v f="$fmt" 'function cap(v) { return v > 100 ? 100 : v }
        $1 == f { k = $4 SUBSEP $3; y[k] += cap($7); cb[k] += cap($8); cr[k] += cap($9)
                  s[k] += $11; if ($12 != "nan") { m[k] += $12; nm[k]++ } n[k]++; B[$3] = 1 }
        END {
            nb = 0; for (b in B) bl[++nb] = b + 0
            for (i = 1; i <= nb; i++) for (j = i + 1; j <= nb; j++) if (bl[j] < bl[i]) { t = bl[i]; bl[i] = bl[j]; bl[j] = t }
            print "| bpp | psnr: PSNR-Y (Cb, Cr) | SSIM | MS-SSIM | visual: PSNR-Y (Cb, Cr) | SSIM | MS-SSIM |"
            print "|---|---|---|---|---|---|---|"
            for (i = 1; i <= nb; i++) {
                printf "| %g |", bl[i]
                for (t = 1; t <= 2; t++) { l = t == 1 ? "psnr" : "visual"; k = l SUBSEP bl[i]
                    if (!(k in n)) { printf " - | - | - |"; continue }
                    printf " %.2f (%.1f, %.1f) | %.4f | %s |", y[k] / n[k], cb[k] / n[k], cr[k] / n[k], s[k] / n[k],
                        nm[k] ? sprintf("%.5f", m[k] / nm[k]) : "-" }
                print "" } }' "$DB"
    over=$(awk -v f="$fmt" '$1 == f && $5 > $6 { n++ } END { print n + 0 }' "$DB")
    echo
    echo "Streams over their budget: $over"
done
echo
echo "Per point (format picture bpp tune bytes budget Y Cb Cr ALL SSIM MS-SSIM): $POINTS"
rm -f "$DB"
