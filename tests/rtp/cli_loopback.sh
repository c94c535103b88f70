#!/bin/bash
# `xsflow send` to `xsflow recv` over loopback UDP (IPv4 and IPv6, through an
# SDP file too) and through a .pcap file, in both packetization modes and
# with every pacing: the received .jxs must equal what was sent, and the
# decoded .yuv what `xsflow decode` gives. Traffic goes to loopback only.
# usage: cli_loopback.sh XSFLOW VECTOR_DIR WORK_DIR
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3
mkdir -p "$work" && cd "$work" || exit 1
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
src=$vectors/seq_5f_422_10b.jxs
cat "$src" "$src" > expected.jxs
port=$((20000 + RANDOM % 20000))

run() { # NAME RECV_ADDR SEND_ADDR SEND_OPTIONS...
    local name=$1 raddr=$2 saddr=$3
    shift 3
    rm -f "$name.jxs"
    timeout 30 "$xsflow" recv "$raddr" -o "$name.jxs" --frames 10 --timeout 10 -q 2> "$name.log" &
    local rx=$!
    sleep 0.5
    timeout 30 "$xsflow" send "$src" --to "$saddr" --loop 2 --fps 100 -q "$@"
    check $? "$name: send"
    wait $rx
    check $? "$name: recv ($(tail -1 "$name.log"))"
    cmp -s expected.jxs "$name.jxs"
    check $? "$name: the received codestreams differ"
}

for mode in codestream slice; do
    port=$((port + 1))
    run v4-$mode 127.0.0.1:$port 127.0.0.1:$port --mode $mode
    port=$((port + 1))
    run v6-$mode [::1]:$port [::1]:$port --mode $mode
done
port=$((port + 1))
run wide 127.0.0.1:$port 127.0.0.1:$port --pacing wide
port=$((port + 1))
run unpaced 127.0.0.1:$port 127.0.0.1:$port --pacing none --packet-size 9000

# Through the SDP file: send writes it, recv reads it.
port=$((port + 1))
timeout 30 "$xsflow" send "$src" --pcap /dev/null --to 127.0.0.1:$port --sdp session.sdp --fps 100 --pt 98 -q
check $? "sdp: write"
grep -q "a=rtpmap:98 jxsv/90000" session.sdp
check $? "sdp: rtpmap"
timeout 30 "$xsflow" recv --sdp session.sdp -o sdp.jxs --frames 10 --timeout 10 -q 2> sdp.log &
rx=$!
sleep 0.5
timeout 30 "$xsflow" send "$src" --to 127.0.0.1:$port --pt 98 --loop 2 --fps 100 -q
wait $rx
check $? "sdp: recv"
cmp -s expected.jxs sdp.jxs
check $? "sdp: the received codestreams differ"

# Through a .pcap file, then decoded. Interlaced: the 5 codestreams twice over
# are 5 frames of two fields each (a frame missing a field would be dropped).
timeout 60 "$xsflow" send expected.jxs --pcap stream.pcap --mode slice --interlaced --fps 25 -q
check $? "pcap: send"
timeout 60 "$xsflow" recv --pcap stream.pcap -o pcap.jxs -q 2> /dev/null
check $? "pcap: recv"
cmp -s expected.jxs pcap.jxs
check $? "pcap: the received codestreams differ"
timeout 60 "$xsflow" recv --pcap stream.pcap -o pcap.yuv -q 2> /dev/null &&
    timeout 60 "$xsflow" decode expected.jxs -o ref.yuv -q && cmp -s ref.yuv pcap.yuv
check $? "pcap: the decoded frames differ from xsflow decode's"

# RFC 9134 4.2 (erratum 6752), 4.3: each field its own timestamp, half a
# frame (1800 ticks at 25 frames/s) after the first; both fields one F counter.
timeout 60 "$xsflow" recv --pcap stream.pcap -o /dev/null --format jxs --packets fields.csv -q 2> /dev/null
awk -F, '$13 == 2 && !a { a = $8; fa = $14 } $13 == 3 && !b { b = $8; fb = $14 }
    END { d = (b - a + 4294967296) % 4294967296; exit !(a != "" && d == 1800 && fa == fb) }' fields.csv
check $? "pcap: the second field's timestamp is not 1800 after the first, or F differs"

# RFC 9134 5, 7.1: TP names the pacing (none: no TP); packetmode is there.
for pacing in narrow wide none; do
    timeout 30 "$xsflow" send "$src" --pcap /dev/null --to 239.1.1.1:5004 --sdp tp-$pacing.sdp \
        --pacing $pacing --mode slice --fps 50 -q
    check $? "sdp $pacing: write"
done
grep -q "^a=fmtp:112 packetmode=1;.*;exactframerate=50;.*;TP=2110TPNL" tp-narrow.sdp
check $? "sdp narrow: $(grep fmtp tp-narrow.sdp)"
grep -q ";TP=2110TPW" tp-wide.sdp
check $? "sdp wide: $(grep fmtp tp-wide.sdp)"
! grep -q "TP=" tp-none.sdp
check $? "sdp none: $(grep fmtp tp-none.sdp)"

# Bad input: one line of error, non-zero status.
"$xsflow" recv --sdp /nonexistent.sdp -o x.jxs 2> err.txt
[ $? -ne 0 ] && [ "$(wc -l < err.txt)" = 1 ]
check $? "missing SDP: $(cat err.txt)"
"$xsflow" send "$src" --to 300.1.1.1:5 2> err.txt
[ $? -ne 0 ] && [ "$(wc -l < err.txt)" = 1 ]
check $? "bad address: $(cat err.txt)"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
