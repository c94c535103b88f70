# shellcheck shell=bash
# Sourced by rd_svt.sh and rd_tune.sh: measuring a list of points into the
# points file both keep.
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
