# shellcheck shell=bash disable=SC2034 # the variables are the sourcing script's
# Sourced by rd_svt.sh and rd_tune.sh: the options both take, and measuring a
# list of points into the points file both keep.

# What both scripts take and set up. Defaults (the caller may set FORMATS
# before): SET .rdset, OUT SET/out, BPPS "1 2 3 4 6 8", TABLE_ONLY 0.
SET=.rdset OUT='' BPPS="1 2 3 4 6 8" TABLE_ONLY=0
# rd_option ARGS...: takes the option both scripts know at $1 (--set, --out,
# --formats, --bpps: a value; --table), sets RD_TAKEN to the words it used;
# returns 1 for any other option.
rd_option() {
    RD_TAKEN=2
    case $1 in
    --set) SET=$2 ;;
    --out) OUT=$2 ;;
    --formats) FORMATS=$2 ;;
    --bpps) BPPS=$2 ;;
    --table) TABLE_ONLY=1 RD_TAKEN=1 ;;
    *) return 1 ;;
    esac
}
# rd_args NAME LINES OWN ARGS...: the command line of script NAME. -h or
# --help prints the script's lines LINES (sed's, e.g. 2,43p) and exits 0; an
# option of the script's own is taken by its function OWN (called with the
# words left: sets RD_TAKEN to the words it used, returns 1 where $1 is not
# its own), one both scripts take by rd_option; any other exits 2.
rd_args() {
    local name=$1 help=$2 own=$3
    shift 3
    while [ $# -gt 0 ]; do
        case $1 in
        -h | --help) sed -n "$help" "$0"; exit 0 ;;
        *)
            "$own" "$@" || rd_option "$@" || { echo "$name: unknown option $1 (--help)" >&2; exit 2; }
            ;;
        esac
        shift "$RD_TAKEN"
    done
}
# rd_points_file NAME: OUT made (SET/out by default), POINTS=OUT/NAME (made),
# JOBS (default 2), and the tools every point uses exported (XSFLOW, RDM, SET).
rd_points_file() {
    OUT=${OUT:-$SET/out}
    export XSFLOW=${XSFLOW:-build/xsflow} RDM=${RDM:-build/bench/xs_encode/rd_metrics} SET
    JOBS=${JOBS:-2}
    mkdir -p "$OUT"
    POINTS=$OUT/$1
    touch "$POINTS"
}
#
# rd_run_points JOBS_FILE: runs the caller's exported `point` function on each
# line of JOBS_FILE, $JOBS at once, and puts what it printed into $POINTS: a
# point measured now replaces an older one with the same first four fields
# (format, picture, rate, configuration), the others stay. ERROR lines go to
# standard error and are not kept. JOBS_FILE is removed.
# shellcheck disable=SC2153 # JOBS and POINTS: set by the script that sources this
rd_run_points() {
    local jobs=$1 new
    new=$(mktemp)
    xargs -P "$JOBS" -L 1 bash -c 'point "$@"' _ < "$jobs" > "$new"
    grep '^ERROR' "$new" >&2 || true
    awk 'NR == FNR { if ($1 != "ERROR") k[$1 " " $2 " " $3 " " $4] = 1; next }
         !(($1 " " $2 " " $3 " " $4) in k)' "$new" "$POINTS" > "$POINTS.tmp"
    grep -v '^ERROR' "$new" >> "$POINTS.tmp" || true
    mv "$POINTS.tmp" "$POINTS"
    rm -f "$jobs" "$new"
}

# rd_size CS BPP W H: "BYTES BUDGET": the size of codestream CS and the budget
# every stream must stay within, floor(BPP * W * H / 8) bytes. Exported for the
# points, which run in shells of their own.
rd_size() {
    echo "$(stat -c %s "$1") $(awk -v b="$2" -v w="$3" -v h="$4" 'BEGIN { printf "%d", int(b * w * h / 8) }')"
}
export -f rd_size

# rd_point_result STATUS ROW TMP W H BPP METRICS [NOTE]: a point's line, and
# its folder TMP removed. STATUS 0 (TMP/c.jxs decoded and measured into
# METRICS): "ROW BYTES BUDGET METRICS" (rd_size); else "ERROR ROW (NOTE...)"
# with the last bytes of TMP/log and TMP/dlog. Exported, as rd_size.
rd_point_result() {
    local ok=$1 row=$2 tmp=$3 w=$4 h=$5 bpp=$6 metrics=$7 note=${8:-}
    if [ "$ok" = 0 ]; then
        echo "$row $(rd_size "$tmp/c.jxs" "$bpp" "$w" "$h") $metrics"
    else
        echo "ERROR $row ($note$(tail -c 200 "$tmp/log" "$tmp/dlog" 2>/dev/null | tr '\n' ' '))"
    fi
    rm -rf "$tmp"
}
export -f rd_point_result

# fmt_depth FMT: the bits per sample of the set's pictures of format FMT
# (rdset.sh): 10 for 422, 12 for 444, else 8. Exported, as rd_size.
fmt_depth() { case $1 in 422) echo 10 ;; 444) echo 12 ;; *) echo 8 ;; esac; }
export -f fmt_depth

# rd_bd_mean FORMAT PAIRS ARGS...: the mean Bjontegaard rate (rd_metrics bd)
# over the set's pictures, each picture's from the lines "RATE_A VALUE_A
# RATE_T VALUE_T" that `PAIRS NAME ARGS...` prints for it (a picture whose
# lines give no rate, none or too few, is left out), printed by awk's printf
# FORMAT with the mean and the number of pictures; "-" where none has one.
rd_bd_mean() {
    local format=$1 pairs=$2 sum=0 n=0 v name
    shift 2
    while read -r name _; do
        v=$("$pairs" "$name" "$@" | "$RDM" bd 2>/dev/null || echo nan)
        [ "$v" = nan ] && continue
        sum=$(awk -v s="$sum" -v v="$v" 'BEGIN { print s + v }')
        n=$((n + 1))
    done < "$SET/list"
    [ $n -gt 0 ] && awk -v s="$sum" -v n=$n -v f="$format" 'BEGIN { printf f, s / n, n }' || echo "-"
}

# rd_need NAME TOOL...: the set made where it is missing (rdset.sh), and every
# TOOL executable; else NAME says which is missing and how to build it, and
# the script exits.
rd_need() {
    local name=$1 t
    shift
    [ -f "$SET/list" ] || bash bench/xs_encode/rdset.sh "$SET"
    for t in "$@"; do
        [ -x "$t" ] || {
            echo "$name: no $t (SVT's apps: scripts/svt-build.sh; ours: cmake --build build --target xsflow rd_metrics)" >&2
            exit 1
        }
    done
}
