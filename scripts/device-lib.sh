# What the scripts run on the GPU machine share (device-check.sh,
# device-beforeafter.sh, compare-device.sh, gst-device-bench.sh), sourced
# from the repository root once OUT (and STAGES, " name name ", where the
# script has stages) is set:
#   R             the repository root
#   $OUT          made
#   the sysroot   scripts/device-sysroot.sh (the script exits where it fails)
#   step TITLE    a heading with the time
#   stage NAME... whether any NAME is in $STAGES
#   gl_loaders    the GL runtime loaders of .gl/*.deb into / (the device
#                 README), where .gl has them
R=$(pwd)
mkdir -p "$OUT"
. scripts/device-sysroot.sh || exit 1

step() {
    echo
    echo "==== $* ($(date +%T))"
}

stage() {
    local s
    for s; do
        [[ ${STAGES:-} == *" $s "* ]] && return 0
    done
    return 1
}

gl_loaders() {
    ls .gl/*.deb > /dev/null 2>&1 || return 0
    local f
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
}
