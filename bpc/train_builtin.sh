#!/bin/sh
# Retrains the built-in probability tables (bpc/tables_builtin.c) from the
# photographs behind vectors/xs (KDE wallpapers), decoded with the JPEG XS C
# decoder: as YCbCr (.jxs, as coded) and as RGB (.ppm, through decode's
# BT.709 conversion), every level count, the 5/3 and the 9/7 at step 1.
#   sh bpc/train_builtin.sh [BUILD_DIR]     (from the repository root)
set -eu
X=${1:-build}/xsflow
V=vectors/xs
T=$(mktemp -d)
JXS="hd_444_12b_bpp6_v1 hd_422_10b_bpp3 hd_420_8b_bpp1 quant_q1_bpp4 rate_bpp12 slice_h180"
PPM="$JXS geom_346x199 tools_s2_sf1_vp2"
for v in $PPM; do "$X" decode "$V/$v.jxs" -o "$T/$v.ppm" --cpu -q; done
IN=""
for v in $PPM; do IN="$IN $T/$v.ppm"; done
for v in $JXS; do IN="$IN $V/$v.jxs"; done
"$X" bpc-train --filter 53 --levels all $IN -o "$T/t53.bpct"
"$X" bpc-train --filter 97 --qstep 1 --levels all $IN -o "$T/t97.bpct"
"$X" bpc-train --builtin "$T/t53.bpct" "$T/t97.bpct" -o bpc/tables_builtin.c \
    "vectors/xs (KDE wallpapers FallenLeaf, EveningGlow, Grey, ColorfulCups) decoded with the JPEG XS C decoder:" \
    $JXS "as YCbCr (.jxs) and as RGB (.ppm, with geom_346x199 and tools_s2_sf1_vp2); levels all; 9/7 at qstep 1"
rm -rf "$T"
