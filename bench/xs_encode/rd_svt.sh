#!/usr/bin/env bash
# Rate-distortion of xsflow's default JPEG XS encoder against SVT-JPEG-XS's, on
# the public set of bench/xs_encode/rdset.sh, every stream decoded by ONE
# independent decoder (SVT-JPEG-XS's SvtJpegxsDecApp) and measured by
# rd_metrics (PSNR and Bjontegaard rate; no xsflow code on the measuring side).
#
#   bash bench/xs_encode/rd_svt.sh [options]
#     --set DIR        the picture set (default .rdset; made by rdset.sh when missing)
#     --out DIR        results (default .rdset/out): points.txt, svt_search_FMT.txt
#     --formats LIST   of 420 (8-bit), 422 (10-bit), 444 (12-bit), rgb (8-bit)
#                      (default all four)
#     --bpps LIST      default "1 2 3 4 6 8"
#     --only LABELS    run only these configurations (comma list), keep the
#                      other points of points.txt (SVT's do not change: after
#                      one full run, --only xs re-measures xsflow alone)
#     --search         search SVT's options per format first (below)
#     --table          print the table from points.txt only
#   Environment: XSFLOW (default build/xsflow), XSFLOW_BEFORE (a second xsflow,
#   labelled "before"; optional), SVT (folder of SvtJpegxsEncApp and
#   SvtJpegxsDecApp, default .svt: scripts/svt-build.sh), RDM (rd_metrics,
#   default build/bench/xs_encode/rd_metrics), JOBS (default 2).
#
# Configurations (labels):
#   xs          xsflow encode, default options (--bpp B only)
#   before      the same with $XSFLOW_BEFORE
#   xs-NAME     xsflow encode $XS_OPTS (experiments: --only xs-NAME)
#   svt-def     SvtJpegxsEncApp, its defaults
#   svt-tools   SvtJpegxsEncApp --coding-signs 2 --coding-vpred 1 --quantization 1
#   svt-search  SvtJpegxsEncApp with the options --search found for the format:
#               coordinate descent from svt-tools over --coding-signs 0..2,
#               --coding-sigf 0..1, --coding-vpred 0..2, --quantization 0..1,
#               --rc 0..3, --decomp_v 0..2, --decomp_h 3..5, by the mean PSNR
#               of 4 pictures (coffee, hubble, vtest, keong) at 2 and 6 bpp,
#               repeated until no option changes.
#   "SVT best" at each point is the best PSNR of svt-def, svt-tools and svt-search.
# Metric: PSNR-Y for YCbCr (Cb, Cr and the 6:1:1 weighted YCbCr PSNR are
# reported beside it), PSNR over R, G and B together for RGB. Rate: the
# stream's bytes * 8 / (W * H); every stream must be within floor(bpp*W*H/8)
# bytes (a violation is printed and counted). BD-rate: per picture, over the
# six rates, then the mean over the pictures; worst: the lowest per-point
# PSNR difference (xs - SVT best) in dB. A lossless picture (4:2:0 8-bit at 6
# and 8 bpp often is) counts 100 dB in the per-point comparison and the means,
# and is left out of the BD-rate fits (a picture needs 4 lossy points).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=bench/xs_encode/rd_common.sh
. bench/xs_encode/rd_common.sh
FORMATS="420 422 444 rgb"
ONLY=
SEARCH=0
svt_option() {
    RD_TAKEN=2
    case $1 in
    --only) ONLY=$2 ;;
    --search) SEARCH=1 RD_TAKEN=1 ;;
    *) return 1 ;;
    esac
}
rd_args rd_svt 2,43p svt_option "$@"
rd_points_file points.txt
export XSFLOW_BEFORE=${XSFLOW_BEFORE:-} SVT=${SVT:-.svt}

SVT_TOOLS="--coding-signs 2 --coding-vpred 1 --quantization 1"

# fmt -> sampling, SVT colour format (the depth: fmt_depth, rd_common.sh)
fmt_sampling() { case $1 in 420) echo 420 ;; 422) echo 422 ;; *) echo 444 ;; esac; }
fmt_svt() { case $1 in 420) echo yuv420 ;; 422) echo yuv422 ;; 444) echo yuv444 ;; rgb) echo rgb ;; esac; }
export -f fmt_sampling fmt_svt

# One point: FMT NAME W H BPP LABEL [SVT options...]; prints
# "FMT NAME BPP LABEL BYTES BUDGET Y Cb Cr ALL" (or an ERROR line).
point() {
    local fmt=$1 name=$2 w=$3 h=$4 bpp=$5 label=$6
    shift 6
    local s d tmp rc=0
    s=$(fmt_sampling "$fmt")
    d=$(fmt_depth "$fmt")
    tmp=$(mktemp -d)
    local ref=$SET/$fmt/$name.yuv
    case $label in
    xs* | before)
        local bin=$XSFLOW
        [ "$label" = before ] && bin=$XSFLOW_BEFORE
        if [ "$fmt" = rgb ]; then
            "$bin" encode "$SET/$name.ppm" -o "$tmp/c.jxs" --bpp "$bpp" -q "$@" || rc=$?
        else
            "$bin" encode "$ref" -o "$tmp/c.jxs" --bpp "$bpp" --size "${w}x$h" --sampling "$s" \
                --depth "$d" -q "$@" || rc=$?
        fi
        ;;
    *)
        "$SVT/SvtJpegxsEncApp" -i "$ref" -w "$w" -h "$h" --input-depth "$d" \
            --colour-format "$(fmt_svt "$fmt")" --bpp "$bpp" -n 1 --lp 1 -v 0 -b "$tmp/c.jxs" \
            "$@" >"$tmp/log" 2>&1 || rc=$?
        ;;
    esac
    local ok=1 m=''
    if [ $rc = 0 ] && "$SVT/SvtJpegxsDecApp" -i "$tmp/c.jxs" -o "$tmp/d.yuv" -v 0 >"$tmp/dlog" 2>&1; then
        ok=0
        m=$("$RDM" psnr "$ref" "$tmp/d.yuv" "$w" "$h" "$s" "$d")
    fi
    rd_point_result $ok "$fmt $name $bpp $label" "$tmp" "$w" "$h" "$bpp" "$m" "encode status $rc; "
}
export -f point

rd_need rd_svt "$SVT/SvtJpegxsEncApp" "$SVT/SvtJpegxsDecApp" "$RDM" "$XSFLOW"

# Mean PSNR (the format's metric) of SVT with options $2 on the search pictures.
search_score() {
    local fmt=$1 opts=$2 col
    col=7
    [ "$fmt" = rgb ] && col=10
    for name in coffee hubble vtest keong; do
        read -r _ w h _ < <(grep "^$name " "$SET/list")
        for b in 2 6; do
            echo "$fmt $name $w $h $b svt-x $opts"
        done
    done | sed 's/ *$//' | xargs -P "$JOBS" -L 1 bash -c 'point "$@"' _ |
        awk -v c=$col '/^ERROR/ { bad = 1 } !/^ERROR/ { s += $c; n++ }
            END { if (bad || n == 0) print -1; else printf "%.4f\n", s / n }'
}

if [ $SEARCH = 1 ]; then
    for fmt in $FORMATS; do
        declare -A cur=([coding-signs]=2 [coding-sigf]=1 [coding-vpred]=1 [quantization]=1 [rc]=0
                        [decomp_v]=2 [decomp_h]=5)
        opts_of() { local o k; o=; for k in coding-signs coding-sigf coding-vpred quantization rc decomp_v decomp_h; do o="$o --$k ${cur[$k]}"; done; echo "$o"; }
        best=$(search_score "$fmt" "$(opts_of)")
        echo "rd_svt search $fmt: start$(opts_of): $best"
        changed=1
        while [ $changed = 1 ]; do
            changed=0
            for k in coding-signs coding-sigf coding-vpred quantization rc decomp_v decomp_h; do
                case $k in
                coding-signs | coding-vpred | decomp_v) vals="0 1 2" ;;
                coding-sigf | quantization) vals="0 1" ;;
                rc) vals="0 1 2 3" ;;
                decomp_h) vals="3 4 5" ;;
                esac
                keep=${cur[$k]}
                for v in $vals; do
                    [ "$v" = "$keep" ] && continue
                    cur[$k]=$v
                    sc=$(search_score "$fmt" "$(opts_of)")
                    echo "rd_svt search $fmt: --$k $v: $sc"
                    if awk -v a="$sc" -v b="$best" 'BEGIN { exit !(a > b + 0.0005) }'; then
                        best=$sc
                        keep=$v
                        changed=1
                    fi
                done
                cur[$k]=$keep
            done
        done
        echo "$(opts_of)" > "$OUT/svt_search_$fmt.txt"
        echo "rd_svt search $fmt: best$(opts_of): $best"
        unset cur
    done
fi

if [ $TABLE_ONLY = 0 ]; then
    labels=${ONLY:-xs,before,svt-def,svt-tools,svt-search}
    jobs=$(mktemp)
    for fmt in $FORMATS; do
        for label in ${labels//,/ }; do
            opts=
            case $label in
            xs-*) opts=${XS_OPTS:-} ;;
            before) [ -n "$XSFLOW_BEFORE" ] || continue ;;
            svt-tools) opts=$SVT_TOOLS ;;
            svt-search)
                [ -f "$OUT/svt_search_$fmt.txt" ] || { echo "rd_svt: no search for $fmt (--search)" >&2; continue; }
                opts=$(cat "$OUT/svt_search_$fmt.txt")
                ;;
            esac
            while read -r name w h _; do
                for b in $BPPS; do
                    echo "$fmt $name $w $h $b $label $opts"
                done
            done < "$SET/list"
        done
    done | sed 's/ *$//' > "$jobs" # (xargs -L joins a line ending in a blank to the next)
    rd_run_points "$jobs"
fi

# ---- The table ----
for fmt in $FORMATS; do
    case $fmt in
    420) title="4:2:0 8-bit, PSNR-Y" ;;
    422) title="4:2:2 10-bit, PSNR-Y" ;;
    444) title="4:4:4 12-bit, PSNR-Y" ;;
    rgb) title="RGB 8-bit, PSNR over R, G, B" ;;
    esac
    echo
    echo "### $title"
    [ -f "$OUT/svt_search_$fmt.txt" ] && echo "svt-search:$(cat "$OUT/svt_search_$fmt.txt")"
    echo
    # A picture's rate-distortion pairs: test vs anchor over the bpps.
    bd_pairs() { # picture test anchor column
        awk -v f="$fmt" -v n="$1" -v t="$2" -v a="$3" -v c="$4" '
            function m(l) { return l == "svt-best" }
            $1 == f && $2 == n {
                r = $5 * 8; val = $c
                if (val >= 100) next # lossless (rd_metrics prints 999): no rate-distortion point
                if ($4 == t) { rt[$3] = r; pt[$3] = val }
                if ($4 == a || (a == "svt-best" && $4 ~ /^svt-/)) {
                    if (!($3 in pa) || val > pa[$3]) { pa[$3] = val; ra[$3] = r }
                }
            }
            END { for (b in pt) if (b in pa) print ra[b], pa[b], rt[b], pt[b] }' "$POINTS"
    }
    bd_mean() { rd_bd_mean "%+.2f %%" bd_pairs "$@"; } # test anchor column
    col=7
    [ "$fmt" = rgb ] && col=10
    # 6:1:1 YCbCr PSNR as column 11 (YCbCr formats) for the chroma trade-off.
    awk '{ if (NF >= 10 && $1 != "rgb") { y = 10 ^ (-$7 / 10); b = 10 ^ (-$8 / 10); r = 10 ^ (-$9 / 10);
           $11 = sprintf("%.4f", -10 * log((6 * y + b + r) / 8) / log(10)) } print }' "$POINTS" > "$POINTS.611"
    echo "| xsflow config | vs svt-def | vs svt-tools | vs SVT best | worst point vs SVT best (dB) | points below SVT best - 0.05 dB | over budget |"
    echo "|---|---|---|---|---|---|---|"
    for t in xs before $(awk -v f="$fmt" '$1 == f && $4 ~ /^xs-/ { print $4 }' "$POINTS" | sort -u); do
        grep -q "^$fmt [^ ]* [^ ]* $t " "$POINTS" || continue
        worst=$(awk -v f="$fmt" -v t="$t" -v c=$col '
            $1 == f { k = $2 " " $3; v = $c > 100 ? 100 : $c; if ($4 == t) x[k] = v; else if ($4 ~ /^svt-/ && (!(k in s) || v > s[k])) s[k] = v }
            END { w = 1e9; nb = 0; for (k in x) if (k in s) { d = x[k] - s[k]; if (d < w) { w = d; wk = k } if (d < -0.05) nb++ }
                  printf "%+.2f (%s) | %d", w, wk, nb }' "$POINTS")
        over=$(awk -v f="$fmt" -v t="$t" '$1 == f && $4 == t && $5 > $6 { n++ } END { print n + 0 }' "$POINTS")
        echo "| $t | $(bd_mean "$t" svt-def $col) | $(bd_mean "$t" svt-tools $col) | $(bd_mean "$t" svt-best $col) | $worst | $over |"
    done
    if [ "$fmt" != rgb ]; then
        echo
        echo "Same, on the 6:1:1 YCbCr PSNR (chroma counted):"
        echo
        echo "| xsflow config | vs svt-def | vs svt-tools | vs SVT best |"
        echo "|---|---|---|---|"
        POINTS_SAVE=$POINTS
        POINTS=$POINTS.611
        for t in xs before $(awk -v f="$fmt" '$1 == f && $4 ~ /^xs-/ { print $4 }' "$POINTS" | sort -u); do
            grep -q "^$fmt [^ ]* [^ ]* $t " "$POINTS" || continue
            echo "| $t | $(bd_mean "$t" svt-def 11) | $(bd_mean "$t" svt-tools 11) | $(bd_mean "$t" svt-best 11) |"
        done
        POINTS=$POINTS_SAVE
    fi
    echo
    echo "Mean over the pictures at each rate (metric; Cb, Cr for YCbCr; a lossless picture counts 100 dB):"
    echo
    awk -v f="$fmt" -v c=$col 'function cap(v) { return v > 100 ? 100 : v }
        $1 == f { k = $4 SUBSEP $3; s[k] += cap($c); cb[k] += cap($8); cr[k] += cap($9); n[k]++; L[$4] = 1; B[$3] = 1 }
        END {
            nb = 0; for (b in B) bl[++nb] = b + 0
            for (i = 1; i <= nb; i++) for (j = i + 1; j <= nb; j++) if (bl[j] < bl[i]) { t = bl[i]; bl[i] = bl[j]; bl[j] = t }
            printf "| config |"; for (i = 1; i <= nb; i++) printf " %g bpp |", bl[i]; print ""
            printf "|---|"; for (i = 1; i <= nb; i++) printf "---|"; print ""
            no = split("xs before svt-def svt-tools svt-search", order, " ")
            for (l in L) if (l ~ /^xs-/) order[++no] = l
            for (o = 1; o <= no; o++) { l = order[o]; if (!(l in L)) continue
                printf "| %s |", l
                for (i = 1; i <= nb; i++) { k = l SUBSEP bl[i]
                    if (f == "rgb") printf " %.2f |", s[k] / n[k]
                    else printf " %.2f (%.1f, %.1f) |", s[k] / n[k], cb[k] / n[k], cr[k] / n[k] }
                print "" } }' "$POINTS"
done
rm -f "$POINTS.611"
