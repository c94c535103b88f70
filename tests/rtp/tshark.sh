#!/bin/bash
# Wireshark's tshark reads the .pcap files `xsflow send` writes:
#   - the RFC 9134 payload header word (4.3) of known packets, taken from the
#     raw payload bytes tshark shows, equals the word written below by hand
#     from the RFC for this vector and mode (and xsflow's own reading of the
#     capture, `recv --packets`, gives the same fields);
#   - tshark and xsflow agree on every RTP header field (RFC 3550) of every
#     packet;
#   - tshark finds no bad IP or UDP checksum and nothing malformed.
# Skipped (77) when tshark is absent.
# usage: tshark.sh XSFLOW VECTOR_DIR WORK_DIR
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3
if ! command -v tshark > /dev/null; then
    echo "tshark is not installed (apt-get install tshark): skipped"
    exit 77
fi
mkdir -p "$work" && cd "$work" || exit 1
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

# RFC 9134 4.3, the payload header, bits from the most significant:
#   T (1) K (1) L (1) I (2) F counter (5) SEP counter (11) P counter (11)
# The stream: seq_5f_422_10b.jxs (5 codestreams of 21600 bytes, 12 slices
# each) sent twice (10 frames, F 0..9), progressive (I 0), in order (T 1),
# 700-byte packets: 700 - 12 (RTP) - 4 (this header) = 684 bytes, a
# multiple of 8, of payload data a packet.
# Codestream mode (K 0): the picture segment (the two boxes, 58 bytes, and
# the codestream: 21658 bytes) is one packetization unit of 32 packets; P
# numbers them, SEP counts P's wraps (none here), L marks the last (with the
# RTP marker).
#   packet  word          T K L I F SEP P
codestream_words="
    0       0x80000000    1 0 0 0 0 0   0  (frame 0, first packet)
    1       0x80000001    1 0 0 0 0 0   1
    31      0xa000001f    1 0 1 0 0 0   31 (its last: L)
    32      0x80400000    1 0 0 0 1 0   0  (frame 1: F 1)
    319     0xa240001f    1 0 1 0 9 0   31 (frame 9, the last packet)"
# Slice mode (K 1): first the header unit (the boxes and the codestream up
# to its first slice) with SEP 0x7ff, one packet here; then one unit a
# slice, SEP the slice's index, P from 0 in each (slices 0-11 of about 1800
# bytes: 3 packets; the last slice's unit, with the EOC marker, 1 packet
# more); L marks each unit's last packet: 35 packets a frame.
slice_words="
    0       0xe03ff800    1 1 1 0 0 2047 0 (frame 0, the header unit)
    1       0xc0000000    1 1 0 0 0 0    0 (slice 0)
    3       0xe0000002    1 1 1 0 0 0    2 (its last packet)
    4       0xc0000800    1 1 0 0 0 1    0 (slice 1)
    34      0xe0005800    1 1 1 0 0 11   0 (the last slice's last packet)
    35      0xe07ff800    1 1 1 0 1 2047 0 (frame 1's header unit: F 1)
    349     0xe2405800    1 1 1 0 9 11   0 (frame 9, the last packet)"

for mode in codestream slice; do
    words=${mode}_words
    packets=$([ $mode = codestream ] && echo 320 || echo 350)
    for family in 4 6; do
        dest=239.1.2.3:5004
        [ $family = 6 ] && dest=[ff15::1:2]:5004
        pcap=$mode-v$family.pcap
        timeout 60 "$xsflow" send "$vectors/seq_5f_422_10b.jxs" --pcap "$pcap" --to "$dest" \
            --mode $mode --fps 50 --packet-size 700 --ssrc 0x1234abcd --seq 65500 --loop 2 -q
        check $? "$pcap: xsflow send"
        timeout 60 "$xsflow" recv --pcap "$pcap" -o "$mode-v$family.jxs" --packets ours.csv -q 2> /dev/null
        check $? "$pcap: xsflow recv"
        cat "$vectors/seq_5f_422_10b.jxs" "$vectors/seq_5f_422_10b.jxs" | cmp -s - "$mode-v$family.jxs"
        check $? "$pcap: the codestreams read back differ"
        # tshark's RTP fields and the payload's first 4 bytes, as it shows them.
        timeout 60 tshark -r "$pcap" -d udp.port==5004,rtp -T fields -E separator=, \
            -e rtp.version -e rtp.padding -e rtp.ext -e rtp.cc -e rtp.marker -e rtp.p_type -e rtp.seq \
            -e rtp.timestamp -e rtp.ssrc -e rtp.payload 2> /dev/null |
            while IFS=, read -r v p x cc m pt seq ts ssrc payload; do
                printf '%s,%s,%s,%s,%s,%s,%s,%s,0x%08x,0x%s\n' "$v" "$p" "$x" "$cc" \
                    "$([ "$m" = True ] || [ "$m" = 1 ] && echo 1 || echo 0)" "$pt" "$seq" "$ts" "$((ssrc))" \
                    "${payload:0:8}"
            done > theirs.csv
        lines=$(wc -l < theirs.csv)
        [ "$lines" = "$packets" ]
        check $? "$pcap: tshark reads $lines packets, expected $packets"
        # The RFC 9134 words of the known packets, from tshark's bytes and from xsflow's reading.
        while read -r i word t k l ip f sep pk _; do
            [ -n "$i" ] || continue
            got=$(sed -n "$((i + 1))p" theirs.csv | cut -d, -f10)
            [ "$got" = "$word" ]
            check $? "$pcap: packet $i: RFC 9134 header $got in tshark's bytes, expected $word"
            got=$(sed -n "$((i + 1))p" ours.csv | cut -d, -f10-16)
            [ "$got" = "$t,$k,$l,$ip,$f,$sep,$pk" ]
            check $? "$pcap: packet $i: xsflow reads T,K,L,I,F,SEP,P $got, expected $t,$k,$l,$ip,$f,$sep,$pk"
        done <<< "${!words}"
        # The last packet of each frame carries the RTP marker, no other.
        markers=$(cut -d, -f5 theirs.csv | tr -d '\n')
        want=$(for ((n = 0; n < 10; n++)); do printf "%0$((packets / 10 - 1))d1" 0; done)
        [ "$markers" = "$want" ]
        check $? "$pcap: RTP markers $markers, expected the last packet of each frame"
        # Every RTP header field, tshark against xsflow.
        cut -d, -f1-9 ours.csv | diff -q - <(cut -d, -f1-9 theirs.csv) > /dev/null
        check $? "$pcap: tshark and xsflow disagree on the RTP headers: $(cut -d, -f1-9 ours.csv | diff - <(cut -d, -f1-9 theirs.csv) | head -3 | tr '\n' ' ')"
        bad=$(timeout 60 tshark -r "$pcap" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
            -Y "ip.checksum.status == 2 || udp.checksum.status == 2 || _ws.malformed || _ws.expert.severity >= error" 2> /dev/null | wc -l)
        [ "$bad" = 0 ]
        check $? "$pcap: tshark finds $bad bad or malformed frames"
    done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
