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
