#!/bin/bash
# `xsflow send` to `xsflow recv` over loopback UDP (IPv4 and IPv6, through an
# SDP file too) and through a .pcap file, in both packetization modes and
# with every pacing: the received .jxs must equal what was sent, and the
# decoded .yuv what `xsflow decode` gives; interlaced streams as woven
# frames, a lost field dropping its frame. Traffic goes to loopback only.
# usage: cli_loopback.sh XSFLOW VECTOR_DIR WORK_DIR
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3
mkdir -p "$work" && cd "$work" || exit 1
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
src=$vectors/seq_5f_422_10b.jxs
cat "$src" "$src" > expected.jxs
port=$((20000 + RANDOM % 20000))

run() { # NAME RECV_ADDR SEND_ADDR SEND_OPTIONS... (recv's extra options in RECV_OPTS)
    local name=$1 raddr=$2 saddr=$3
    shift 3
    rm -f "$name.jxs"
    # shellcheck disable=SC2086
    timeout 30 "$xsflow" recv "$raddr" -o "$name.jxs" --frames 10 --timeout 10 -q ${RECV_OPTS:-} \
        2> "$name.log" &
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
# UDP GSO bursts (send's default) into a receiver without GRO, a sender
# without GSO into GRO (recv's default), strict one-packet bursts, and wide
# bursts of up to 15 through GSO and GRO.
port=$((port + 1))
RECV_OPTS=--no-gro run gso-nogro 127.0.0.1:$port 127.0.0.1:$port
port=$((port + 1))
run nogso-gro 127.0.0.1:$port 127.0.0.1:$port --no-gso
port=$((port + 1))
run burst1 127.0.0.1:$port 127.0.0.1:$port --burst 1
port=$((port + 1))
run wide-slice-gso [::1]:$port [::1]:$port --pacing wide --mode slice --burst 15

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

# Through a .pcap file, then decoded.
timeout 60 "$xsflow" send "$src" --pcap stream.pcap --mode slice --fps 25 -q
check $? "pcap: send"
timeout 60 "$xsflow" recv --pcap stream.pcap -o pcap.jxs -q 2> /dev/null
check $? "pcap: recv"
cmp -s "$src" pcap.jxs
check $? "pcap: the received codestreams differ"
timeout 60 "$xsflow" recv --pcap stream.pcap -o pcap.yuv -q 2> /dev/null &&
    timeout 60 "$xsflow" decode "$src" -o ref.yuv -q && cmp -s ref.yuv pcap.yuv
check $? "pcap: the decoded frames differ from xsflow decode's"
# --frame-log: the header, then one line a frame, in order, each frame's stage
# times in the order the stages come.
timeout 60 "$xsflow" recv --pcap stream.pcap -o pcap2.yuv --frame-log frames.csv -q 2> /dev/null
check $? "frame log: recv"
head -1 frames.csv | grep -q '^stream,index,rtp_timestamp,codestream_bytes,first_packet_ns,last_packet_ns,queued_ns,decode_start_ns,device_ready_ns,host_ready_ns,delivered_ns,whole_ns,final_start_ns,capture_ns$'
check $? "frame log: header '$(head -1 frames.csv)'"
awk -F, 'NR > 1 { n++; if ($1 != 0 || $2 != n - 1 || $4 <= 0 || $6 < $5 || $7 < $6 || $8 < $7 ||
                        $10 < $8 || $11 < $10 || ($9 && ($9 < $8 || $9 > $10))) bad++ }
         END { exit !(n == 5 && !bad) }' frames.csv
check $? "frame log: 5 frames in order with their stages in order ($(sed -n 2p frames.csv))"

# Interlaced (issue 12 item 4): the ten codestreams of expected.jxs as five
# frames of two 320x180 fields each.
timeout 60 "$xsflow" send expected.jxs --pcap fields.pcap --mode slice --interlaced --fps 25 -q
check $? "interlaced: send"
# .jxs keeps both fields of every frame.
timeout 60 "$xsflow" recv --pcap fields.pcap -o fields.jxs 2> fields.log > /dev/null
check $? "interlaced: recv .jxs"
cmp -s expected.jxs fields.jxs
check $? "interlaced: the .jxs does not hold both fields of every frame"
grep -q "interlaced frames 5 whole, 0 dropped with a lost field" fields.log
check $? "interlaced: statistics: $(tail -1 fields.log)"
# .y4m: woven 320x360 frames, top field first (It), the bytes of weaving the
# C decoder's fields: checked row by row against the fields decoded on their
# own for frames 0 and 4, and whole against decode --interlaced.
timeout 60 "$xsflow" recv --pcap fields.pcap -o woven.y4m -q 2> /dev/null
check $? "interlaced: recv .y4m"
[ "$(head -1 woven.y4m)" = "YUV4MPEG2 W320 H360 F25:1 It A1:1 C422p10" ]
check $? "interlaced: Y4M header '$(head -1 woven.y4m)'"
timeout 60 "$xsflow" decode expected.jxs --cpu -o fields.yuv -q
check $? "interlaced: decode the fields"
header=$(head -1 woven.y4m | wc -c)
field=$((320 * 180 * 2 * 2)) # 4:2:2, two bytes a sample
frame=$((2 * field + 6))      # "FRAME\n" and two fields
rows_ok=0
for k in 0 4; do
    for c in 0 1 2; do
        if [ $c = 0 ]; then row=640 plane=0; else row=320 plane=$((115200 + (c - 1) * 57600)); fi
        for ((y = 0; y < 360; y++)); do
            in_field=$(((2 * k + y % 2) * field + plane + (y / 2) * row))
            in_frame=$((header + k * frame + 6 + plane * 2 + y * row))
            cmp -s -n $row -i $in_frame:$in_field woven.y4m fields.yuv || rows_ok=$((rows_ok + 1000000))
            rows_ok=$((rows_ok + 1))
        done
    done
done
[ $rows_ok = 2160 ]
check $? "interlaced: rows of the woven frames differ from the decoded fields ($rows_ok)"
timeout 60 "$xsflow" decode expected.jxs --interlaced --cpu -o decoded.y4m -q && cmp -s decoded.y4m woven.y4m
check $? "interlaced: recv's frames differ from decode --interlaced's"
[ "$(stat -c %s woven.y4m)" = $((header + 5 * frame)) ]
check $? "interlaced: woven.y4m does not hold 5 frames"
# A lost field: the packets of frame 1's second field (I=3, F=1) cut from the
# capture. The whole frame is dropped and counted; the others stay.
timeout 60 "$xsflow" recv --pcap fields.pcap -o /dev/null --format jxs --packets fields.csv -q 2> /dev/null
if command -v editcap > /dev/null; then
    cut=$(awk -F, '$13 == 3 && $14 == 1 { if (!a) a = NR; b = NR } END { print a "-" b }' fields.csv)
    editcap fields.pcap lost.pcap $cut > /dev/null
    check $? "lost field: editcap $cut"
    timeout 60 "$xsflow" recv --pcap lost.pcap -o lost.jxs 2> lost.log > /dev/null
    check $? "lost field: recv"
    grep -q "interlaced frames 4 whole, 1 dropped with a lost field" lost.log
    check $? "lost field: statistics: $(tail -1 lost.log)"
    f0=$((21600 * 2)) # frame 0's two fields; frames 2..4 follow frame 1's
    { head -c $f0 expected.jxs; tail -c +$((2 * f0 + 1)) expected.jxs; } > lost_expected.jxs
    cmp -s lost_expected.jxs lost.jxs
    check $? "lost field: the .jxs is not frames 0, 2, 3, 4 with both fields"
    timeout 60 "$xsflow" recv --pcap lost.pcap -o lost.y4m -q 2> /dev/null &&
        [ "$(stat -c %s lost.y4m)" = $((header + 4 * frame)) ]
    check $? "lost field: lost.y4m does not hold 4 frames"
else
    echo "lost field: skipped (no editcap)"
fi
# An odd number of fields: the last first field has no sibling.
timeout 60 "$xsflow" send "$src" --pcap odd.pcap --interlaced --fps 25 -q &&
    timeout 60 "$xsflow" recv --pcap odd.pcap -o odd.jxs 2> odd.log > /dev/null
check $? "odd fields: send and recv"
[ "$(stat -c %s odd.jxs)" = 86400 ] && grep -q "2 whole, 1 dropped with a lost field" odd.log
check $? "odd fields: $(stat -c %s odd.jxs) bytes, $(tail -1 odd.log)"

# RFC 9134 4.2 (erratum 6752), 4.3: each field its own timestamp, half a
# frame (1800 ticks at 25 frames/s) after the first; both fields one F counter.
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

# --source: two senders, 127.0.0.1 first (it would pass probation first), then
# 127.0.0.2, the one given: only its frames are kept, every packet of the other
# is counted as from another sender (per second and in --stats-json).
if "$xsflow" send "$src" --to 127.0.0.1:9 --source 127.0.0.2 --fps 1000 -q 2> /dev/null; then
    sport=$((port + 40))
    timeout 30 "$xsflow" recv 127.0.0.1:$sport --source 127.0.0.2 -o source.jxs --timeout 2 \
        --stats-json source.json 2> source.log &
    rx=$!
    sleep 0.5
    timeout 30 "$xsflow" send "$src" --to 127.0.0.1:$sport --source 127.0.0.1 --loop 2 --fps 100 \
        --stats-json other.json -q
    timeout 30 "$xsflow" send "$src" --to 127.0.0.1:$sport --source 127.0.0.2 --loop 2 --fps 100 -q
    wait $rx
    check $? "--source: recv ($(tail -1 source.log))"
    cmp -s expected.jxs source.jxs
    check $? "--source: the codestreams kept are not the source's"
    other=$(grep -o '"datagrams": [0-9]*' other.json | awk '{ print $2 }')
    grep -Eq "\"other_sender\": $other[,}]" source.json
    check $? "--source: $other packets of the other sender, counted: $(grep -o '"other_sender": [0-9]*' source.json)"
    grep -q "other sender $other" source.log
    check $? "--source: the per-second line does not name the other sender's $other packets"
else
    echo "skipped --source: cannot send from 127.0.0.2"
fi

# Bad input: one line of error, non-zero status.
"$xsflow" recv --sdp /nonexistent.sdp -o x.jxs 2> err.txt
[ $? -ne 0 ] && [ "$(wc -l < err.txt)" = 1 ]
check $? "missing SDP: $(cat err.txt)"
"$xsflow" send "$src" --to 300.1.1.1:5 2> err.txt
[ $? -ne 0 ] && [ "$(wc -l < err.txt)" = 1 ]
check $? "bad address: $(cat err.txt)"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
