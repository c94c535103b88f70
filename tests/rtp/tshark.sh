#!/bin/bash
# Wireshark's tshark reads the .pcap files `xsflow send` writes and must agree
# with xsflow's own reading on every RTP header field (RFC 3550) and on the
# RFC 9134 payload header (decoded here from the payload bytes tshark shows),
# and find no bad IP or UDP checksum. Skipped (77) when tshark is absent.
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

for mode in codestream slice; do
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
        # tshark's fields, the RFC 9134 header decoded from the first 4 payload bytes.
        timeout 60 tshark -r "$pcap" -d udp.port==5004,rtp -T fields -E separator=, \
            -e rtp.version -e rtp.padding -e rtp.ext -e rtp.cc -e rtp.marker -e rtp.p_type -e rtp.seq \
            -e rtp.timestamp -e rtp.ssrc -e rtp.payload 2> /dev/null |
            while IFS=, read -r v p x cc m pt seq ts ssrc payload; do
                w=$((16#${payload:0:8}))
                printf '%s,%s,%s,%s,%s,%s,%s,%s,0x%08x,%d,%d,%d,%d,%d,%d,%d\n' "$v" "$p" "$x" "$cc" \
                    "$([ "$m" = True ] || [ "$m" = 1 ] && echo 1 || echo 0)" "$pt" "$seq" "$ts" "$((ssrc))" \
                    $((w >> 31 & 1)) $((w >> 30 & 1)) $((w >> 29 & 1)) $((w >> 27 & 3)) $((w >> 22 & 31)) \
                    $((w >> 11 & 2047)) $((w & 2047))
            done > theirs.csv
        lines=$(wc -l < ours.csv)
        [ "$lines" -gt 100 ] && diff -q ours.csv theirs.csv > /dev/null
        check $? "$pcap: tshark and xsflow disagree on the headers ($lines packets): $(diff ours.csv theirs.csv | head -3 | tr '\n' ' ')"
        bad=$(timeout 60 tshark -r "$pcap" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
            -Y "ip.checksum.status == 2 || udp.checksum.status == 2 || _ws.malformed || _ws.expert.severity >= error" 2> /dev/null | wc -l)
        [ "$bad" = 0 ]
        check $? "$pcap: tshark finds $bad bad or malformed frames"
    done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
