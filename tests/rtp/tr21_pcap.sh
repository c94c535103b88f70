#!/bin/bash
# `xsflow send`'s own output against ST 2110-21, as `xsflow recv` measures a capture
# (its --pcap with the SDP send wrote, --stats-json "tr21"): a UHD60 stream paced narrow
# (the UHD vector of ../shared/vectors/xs-uhd where present, else the largest of
# vectors/xs, a full-HD picture, sent at 60 fps) conforms to narrow, its first packets
# TROFFSET after their timestamps; paced wide it conforms to wide, not narrow; frame by
# frame (no TP) it conforms to nothing; the same narrow capture on a free clock, read with
# --fps and no SDP, conforms to narrow too. Nothing goes to the network: send writes .pcap
# files.
# usage: tr21_pcap.sh XSFLOW VECTOR_DIR WORK_DIR [UHD_VECTOR_DIR]
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3 uhd=${4:-}
mkdir -p "$work" && cd "$work" || exit 1
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
src=$vectors/hd_444_12b_bpp6_v1.jxs
if [ -n "$uhd" ] && [ -f "$uhd/uhd_422_10b_bpp3.jxs" ]; then
    src=$uhd/uhd_422_10b_bpp3.jxs
fi
echo "vector: $src"

# tr21 of the stream in FILE: KEY=VALUE lines for the checks.
tr21() {
    python3 - "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["streams"][0]["tr21"]
for k, v in t.items():
    print("%s=%s" % (k, json.dumps(v)))
PY
}
# get KEY from the lines in $t
get() { echo "$t" | sed -n "s/^$1=//p" | tr -d '"'; }

# 30 frames at 60 fps, on the TAI grid (send's default).
run() { # NAME SEND_OPTIONS... : send to NAME.pcap with NAME.sdp, recv it with the SDP
    local name=$1
    shift
    rm -f "$name.pcap" "$name.sdp" "$name.json"
    "$xsflow" send "$src" --pcap "$name.pcap" --to 127.0.0.1:5004 --sdp "$name.sdp" --fps 60 \
        --loop 30 -q "$@" &&
        timeout 120 "$xsflow" recv --pcap "$name.pcap" --sdp "$name.sdp" -o "$name.jxs" \
            --stats-json "$name.json" -q 2> "$name.log"
    local st=$?
    rm -f "$name.pcap" "$name.jxs" # 100 MB of UHD packets
    return $st
}

run narrow
check $? "narrow: send | recv ($(tail -1 narrow.log))"
t=$(tr21 narrow.json)
echo "$t" | tr '\n' ' '
echo
[ "$(get type_declared)" = 2110TPNL ] && [ "$(get conforms)" = narrow ] &&
    [ "$(get conforms_declared)" = true ] && [ "$(get frames)" -ge 25 ] &&
    [ "$(get underflows)" = 0 ] && [ "$(get cinst_peak)" -le "$(get cinst_max)" ] &&
    [ "$(get vrx_peak)" -le "$(get vrx_full)" ] && [ "$(get clock_known)" = true ]
check $? "narrow: conforms to narrow"
python3 - narrow.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["streams"][0]["tr21"]
# The first packet of each frame TROFFSET after its timestamp (within the ns cut and a tick).
p = t["tpr0_us"]
ok = p and p["count"] == t["frames"] and abs(p["min"] - t["troffset_us"]) <= 12 and \
    abs(p["max"] - t["troffset_us"]) <= 12
sys.exit(0 if ok else 1)
PY
check $? "narrow: first packets TROFFSET after their timestamps"

run wide --pacing wide
check $? "wide: send | recv"
t=$(tr21 wide.json)
[ "$(get type_declared)" = 2110TPW ] && [ "$(get conforms)" = wide ] &&
    [ "$(get conforms_declared)" = true ] && [ "$(get cinst_peak)" -gt "$(get cinst_max_narrow)" ]
check $? "wide: conforms to wide, not narrow: $(echo "$t" | grep 'conforms\|cinst' | tr '\n' ' ')"

run frame --pacing none
check $? "none: send | recv"
t=$(tr21 frame.json)
[ "$(get type_declared)" = none ] && [ "$(get conforms)" = not ] &&
    [ "$(get cinst_peak)" -gt "$(get cinst_max_wide)" ]
check $? "no pacing: conforms to nothing: $(echo "$t" | grep 'conforms\|cinst' | tr '\n' ' ')"

# A free clock (random timestamps, paced from now), read without the SDP: the rate from
# --fps, no type declared, the first frame anchoring the read schedule.
rm -f free.pcap free.json
"$xsflow" send "$src" --pcap free.pcap --to 127.0.0.1:5004 --fps 60 --loop 30 --clock free -q &&
    timeout 120 "$xsflow" recv --pcap free.pcap -o free.jxs --fps 60 --stats-json free.json \
        -q 2> free.log
st=$?
rm -f free.pcap free.jxs
check $st "free clock: send | recv ($(tail -1 free.log))"
t=$(tr21 free.json)
[ "$(get type_declared)" = none ] && [ "$(get conforms)" = narrow ] &&
    [ "$(get clock_known)" = false ] && [ "$(get tpr0_us)" = null ]
check $? "free clock: narrow: $(echo "$t" | tr '\n' ' ')"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
