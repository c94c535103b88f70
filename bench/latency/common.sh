# shellcheck shell=bash
# Sourced by bench/latency/run.sh and legs.sh: what both set up and the helpers
# both use to write and read their reports.
#
# latency_setup NAME TMP BUILD_DIR [VECTOR.jxs] sets B (the build folder), V (the
# vector; default ../shared/vectors/xs-uhd/uhd_422_10b_bpp3.jxs), X (the build's
# xsflow), W (the scratch folder: $XSF_BENCH_TMP, else TMP; made) and REPORT
# ($OUT/NAME.md with OUT set, empty without; $OUT/NAME/ made for the runs' JSON);
# exits 1 when xsflow or the vector is missing.
latency_setup() {
    B=$(readlink -f "$3")
    V=$(readlink -f "${4:-$(dirname "$0")/../../../shared/vectors/xs-uhd/uhd_422_10b_bpp3.jxs}")
    X=$B/xsflow
    W=${XSF_BENCH_TMP:-$2}
    mkdir -p "$W"
    [ -x "$X" ] || { echo "no $X"; exit 1; }
    [ -s "$V" ] || { echo "no vector $V"; exit 1; }
    REPORT=${OUT:+$OUT/$1.md}
    [ -n "${OUT:-}" ] && mkdir -p "$OUT/$1"
}
# A line printed, and added to the report where there is one.
say() { echo "$*"; [ -n "$REPORT" ] && echo "$*" >> "$REPORT"; }
calc() { awk "BEGIN { x = $*; print x }"; } # assigned first: "print (a > 0 ...)" is a redirection
# The K-th stream's object of latency KEY, then one of its fields.
lat() { grep -o "\"$2\": {[^}]*}" "$1" | sed -n "${3}p" | grep -o "\"$4\": [0-9.]*" | awk '{print $2}'; }
