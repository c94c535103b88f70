#!/bin/bash
# `xsflow send IN.y4m --bpp B` (live encoding) into `xsflow recv` over
# loopback UDP and through .pcap files: the received pictures must be the C
# decoder's of `xsflow encode` of the same file at the same rate (the
# encoder is deterministic), in both packetization modes, from standard
# input, from a .yuv file and on two legs; the encoder's time per frame in
# --stats-json; bad inputs and options with their exit status; and `xsflow
# demo --raw` (raw -> encode -> RTP -> receive -> decode) with its MD5s.
# The C encoder (--cpu) throughout. Traffic goes to loopback only.
# usage: live_send.sh XSFLOW VECTOR_DIR WORK_DIR
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3
mkdir -p "$work" && cd "$work" || exit 1
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
port=$((20000 + RANDOM % 20000))

# The pictures (5 frames, 320x180 4:2:2 10-bit) and the reference: encode, then the C decoder.
"$xsflow" decode "$vectors/seq_5f_422_10b.jxs" -o in.y4m -q &&
    "$xsflow" decode "$vectors/seq_5f_422_10b.jxs" -o in.yuv -q &&
    "$xsflow" encode in.y4m -o ref.jxs --bpp 3 -q
check $? "the reference encode"
ref_md5=$("$xsflow" decode ref.jxs --md5 --cpu -q | cut -d' ' -f1)
[ ${#ref_md5} = 32 ]
check $? "the reference MD5: '$ref_md5'"

# recv into OUT while send (live, C encoder) sends IN with the options given.
live() { # NAME OUT IN SEND_OPTIONS...
    local name=$1 out=$2 in=$3
    shift 3
    port=$((port + 1))
    rm -f "$out"
    timeout 60 "$xsflow" recv 127.0.0.1:$port -o "$out" --frames 5 --timeout 10 --cpu -q \
        2> "$name.log" &
    local rx=$!
    sleep 0.5
    timeout 60 "$xsflow" send "$in" --bpp 3 --cpu --to 127.0.0.1:$port --fps 50 -q "$@"
    check $? "$name: send"
    wait $rx
    check $? "$name: recv ($(tail -1 "$name.log"))"
}

for mode in codestream slice; do
    live $mode $mode.yuv in.y4m --mode $mode --stats-json $mode.json
    [ "$(md5sum < $mode.yuv | cut -d' ' -f1)" = "$ref_md5" ]
    check $? "$mode: the received pictures differ from the C decode of xsflow encode's"
    grep -q '"segments": 5, .*"encoder": {"engine": "cpu", "frames": 5, "bytes": 108000, "encode_us": {"mean": [0-9.]*, "p50": [0-9.]*, "p99": [0-9.]*, "max": [0-9.]*}, "read_us": {"mean": [0-9.]*, "p99": [0-9.]*, "max": [0-9.]*}}}' $mode.json
    check $? "$mode: --stats-json without the encoder's times: $(cat $mode.json)"
done

# Standard input (a pipe: the reader takes it as it comes), received as codestreams.
port=$((port + 1))
timeout 60 "$xsflow" recv 127.0.0.1:$port -o stdin.jxs --frames 5 --timeout 10 -q 2> stdin.log &
rx=$!
sleep 0.5
cat in.y4m | timeout 60 "$xsflow" send - --bpp 3 --cpu --to 127.0.0.1:$port --fps 50 -q
check $? "stdin: send"
wait $rx
check $? "stdin: recv ($(tail -1 stdin.log))"
cmp -s ref.jxs stdin.jxs
check $? "stdin: the received codestreams differ from xsflow encode's"

# A .yuv file with its layout, and a .pcap of two legs (ST 2022-7): each leg the same stream.
timeout 60 "$xsflow" send in.yuv --size 320x180 --sampling 422 --depth 10 --bpp 3 --cpu \
    --pcap red.pcap,blue.pcap --mode slice --sdp yuv.sdp -q
check $? "yuv, two legs: send"
grep -q 'sampling=YCbCr-4:2:2;' yuv.sdp && grep -q 'a=group:DUP' yuv.sdp
check $? "yuv, two legs: the SDP (--sampling 422 is the .yuv's layout): $(cat yuv.sdp)"
for leg in red blue; do
    timeout 60 "$xsflow" recv --pcap $leg.pcap -o $leg.jxs -q 2> /dev/null
    cmp -s ref.jxs $leg.jxs
    check $? "yuv, leg $leg: the received codestreams differ from xsflow encode's"
done
# Two legs over loopback, received merged.
p1=$((port + 1)) p2=$((port + 2))
port=$((port + 2))
timeout 60 "$xsflow" recv 127.0.0.1:$p1,127.0.0.1:$p2 -o legs.jxs --frames 5 --timeout 10 -q \
    2> legs.log &
rx=$!
sleep 0.5
timeout 60 "$xsflow" send in.y4m --bpp 3 --cpu --to 127.0.0.1:$p1,127.0.0.1:$p2 --fps 50 -q \
    --stats-json legs.json
check $? "two legs: send"
wait $rx
check $? "two legs: recv ($(tail -1 legs.log))"
cmp -s ref.jxs legs.jxs && grep -q '"legs": 2, "leg_errors": \[0, 0\], "encoder": ' legs.json
check $? "two legs: the received codestreams, or the statistics: $(cat legs.json)"
# --frames: the first frames only.
timeout 60 "$xsflow" send in.y4m --bpp 3 --cpu --pcap three.pcap --frames 3 -q &&
    timeout 60 "$xsflow" recv --pcap three.pcap -o three.jxs -q 2> /dev/null &&
    head -c 64800 ref.jxs | cmp -s - three.jxs
check $? "--frames 3: not the first three codestreams"

# Bad inputs and options: one line on stderr naming the culprit; 1 for a file, 2 for usage.
expect() { # STATUS PATTERN ARGS...
    local want=$1 pattern=$2
    shift 2
    timeout 30 "$xsflow" send "$@" > /dev/null 2> err.txt
    local rc=$?
    [ $rc = "$want" ] && grep -q "$pattern" err.txt
    check $? "send $*: status $rc (expected $want), '$(cat err.txt)'"
}
printf 'not a y4m file\n' > bad.y4m
expect 1 "^xsflow: bad.y4m: " bad.y4m --bpp 3 --cpu --pcap bad.pcap
[ ! -e bad.pcap ]
check $? "a bad input left its capture file"
expect 1 "^xsflow: missing.y4m: cannot open" missing.y4m --bpp 3 --cpu --pcap bad.pcap
printf 'YUV4MPEG2 W320 H180 F25:1 C422p10\nFRAME\nshort' > cut.y4m
expect 1 "^xsflow: cut.y4m: " cut.y4m --bpp 3 --cpu --pcap bad.pcap
# A 10-bit sample above 1023 (the reader's in-place path finds it and names it).
printf 'YUV4MPEG2 W4 H2 F25:1 C422p10\nFRAME\n' > over.y4m
printf '\001\000\002\000\003\000\004\000\005\000\006\000\007\000\010\000' >> over.y4m
printf '\011\000\012\000\013\000\014\000\015\000\016\000\377\377\020\000' >> over.y4m
expect 1 "^xsflow: over.y4m: frame 0 component 2 sample (0,1) is 65535, above 1023" over.y4m \
    --bpp 3 --cpu --pcap bad.pcap
expect 2 "^xsflow: in.y4m: .*--bpp" in.y4m --cpu --pcap bad.pcap
expect 2 "^xsflow: --bpp: ref.jxs holds codestreams" ref.jxs --bpp 3 --pcap bad.pcap
expect 2 "^xsflow: --loop: " in.y4m --bpp 3 --loop 2 --pcap bad.pcap
expect 2 "^xsflow: in.yuv: .*--size" in.yuv --bpp 3 --pcap bad.pcap
expect 2 "^xsflow: in.y4m: target of " in.y4m --bpp 0.001 --cpu --pcap bad.pcap
# A .jxs on standard input is sent as it is (no --bpp), as before.
timeout 30 "$xsflow" send - --pcap jxs-stdin.pcap -q < ref.jxs &&
    timeout 60 "$xsflow" recv --pcap jxs-stdin.pcap -o jxs-stdin.jxs -q 2> /dev/null &&
    cmp -s ref.jxs jxs-stdin.jxs
check $? "a .jxs on standard input"

# The demo of the whole link: the decoded pictures' MD5 beside the reference's, both the
# C decode of xsflow encode's codestreams.
timeout 120 "$xsflow" demo --raw in.y4m --bpp 3 --cpu demo.y4m > demo.txt 2>&1
check $? "demo --raw: $(tail -3 demo.txt)"
grep -q "decoded   MD5 $ref_md5 over 1152000 bytes" demo.txt &&
    grep -q "reference MD5 $ref_md5 over 1152000 bytes" demo.txt &&
    grep -q "frames    5 of 5 decoded, 5 equal" demo.txt && grep -q "match     yes" demo.txt
check $? "demo --raw: the MD5s: $(cat demo.txt)"
timeout 60 "$xsflow" decode ref.jxs -o ref.y4m --cpu -q && cmp -s ref.y4m demo.y4m
check $? "demo --raw: the pictures written differ from xsflow decode's of ref.jxs"
timeout 30 "$xsflow" demo --raw bad.y4m --bpp 3 --cpu nothing.y4m > /dev/null 2> err.txt
rc=$?
[ $rc = 1 ] && grep -q "^xsflow: bad.y4m: " err.txt && [ ! -e nothing.y4m ]
check $? "demo --raw of a bad file: status $rc, '$(cat err.txt)'"

echo "live_send: $pass passed, $fail failed"
[ $fail = 0 ]
