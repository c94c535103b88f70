#!/bin/bash
# Exit statuses a script can trust, and nothing half-written left behind
# (issue 28 items 3 and 4): --version for the program and every command;
# recv failing (status 1, a message naming the stream) where a stream
# delivered no frame or fewer than --frames, its --timeout counted from the
# first packet and its --wait for the first; the SDP checked against the
# stream; count limits stated in their refusals; failed decode, encode,
# send --pcap, recv and demo removing the outputs they created; demo checking
# its output before it runs; decode's summary. Packets go to loopback only.
# usage: exit_status.sh XSFLOW VECTOR_DIR WORK_DIR
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
src=$vectors/seq_5f_422_10b.jxs
port=$((20000 + RANDOM % 20000))

# --version: the version, then each optional part; the same from any command.
"$xsflow" --version > version.txt
check $? "--version: status"
grep -Eq '^xsflow [0-9]+\.[0-9]+\.[0-9]+' version.txt && grep -Eq '^CUDA: (yes|no)' version.txt &&
    grep -Eq '^GL display: (yes|no)' version.txt && grep -Eq '^GStreamer plugin: (yes|no)' version.txt &&
    grep -Eq '^NMOS node: (yes|no)' version.txt && grep -Eq '^libpcap: yes' version.txt
check $? "--version: $(tr '\n' '|' < version.txt)"
for cmd in decode recv demo send encode info; do
    "$xsflow" $cmd --version | cmp -s - version.txt
    check $? "$cmd --version differs from --version"
done

# A count limit is stated in its refusal.
"$xsflow" decode "$src" -o x.yuv --frames 2147483647 2> frames.err
rc=$?
[ $rc = 2 ] && grep -q "from 1 to [0-9]" frames.err
check $? "decode --frames 2147483647: status $rc, '$(cat frames.err)'"

# decode: a file whose third codestream is cut short writes two frame files, then fails:
# status 1, and neither frame file is left; a file that is no codestream leaves no .yuv.
head -c 50000 "$src" > cut.jxs
"$xsflow" decode cut.jxs -o f.ppm -q 2> cut.err
rc=$?
[ $rc = 1 ] && ! ls f*.ppm > /dev/null 2>&1
check $? "decode of a cut file: status $rc, left $(ls f*.ppm 2> /dev/null | tr '\n' ' ')"
head -c 3000 /dev/urandom > noise.jxs
"$xsflow" decode noise.jxs -o noise.yuv -q 2> /dev/null
rc=$?
[ $rc = 1 ] && [ ! -e noise.yuv ]
check $? "decode of noise: status $rc, noise.yuv left: $(ls noise.yuv 2> /dev/null)"
# ... and a write that fails (a file that may not grow) leaves none either.
(trap '' XFSZ && ulimit -f 64 && exec "$xsflow" decode "$src" -o big.yuv --cpu -q 2> /dev/null)
rc=$?
[ $rc = 1 ] && [ ! -e big.yuv ]
check $? "decode past the file size limit: status $rc, big.yuv left: $(ls -l big.yuv 2> /dev/null)"
# The summary: one frame without a steady rate; frame files named first to last, with
# the bytes they hold.
"$xsflow" decode "$vectors/fmt_yuv422_10b.jxs" -o one.yuv > one.txt
grep -q "into one.yuv (1 file, $(stat -c %s one.yuv) bytes)" one.txt && ! grep -q steady one.txt
check $? "a one-frame summary: $(cat one.txt)"
"$xsflow" decode "$src" -o g.pgm > five.txt
total=$(cat g-000[0-4].pgm | wc -c)
grep -q "into g-0000.pgm to g-0004.pgm (5 files, $total bytes)" five.txt && grep -q steady five.txt
check $? "a frame-file summary ($total bytes): $(cat five.txt)"

# encode and send --pcap: a failed write leaves no file.
"$xsflow" decode "$src" -o in.y4m -q
(trap '' XFSZ && ulimit -f 16 && exec "$xsflow" encode in.y4m -o big.jxs --bpp 3 -q 2> /dev/null)
rc=$?
[ $rc = 1 ] && [ ! -e big.jxs ]
check $? "encode past the file size limit: status $rc, big.jxs left: $(ls -l big.jxs 2> /dev/null)"
(trap '' XFSZ && ulimit -f 16 && exec "$xsflow" send "$src" --pcap big.pcap -q 2> /dev/null)
rc=$?
[ $rc = 1 ] && [ ! -e big.pcap ]
check $? "send --pcap past the file size limit: status $rc, big.pcap left: $(ls -l big.pcap 2> /dev/null)"

# demo: an output it cannot write fails before anything runs.
start=$(date +%s%N)
"$xsflow" demo /proc/xsflow-demo.y4m > demo.out 2> demo.err
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $rc = 1 ] && [ ! -s demo.out ] && grep -q "^xsflow: /proc/xsflow-demo.y4m: " demo.err && [ $ms -lt 300 ]
check $? "demo /proc/...: status $rc in $ms ms, stdout '$(head -1 demo.out)', '$(cat demo.err)'"
"$xsflow" demo no-such-dir/x.ppm > /dev/null 2>&1
check $(($? != 1)) "demo into a missing folder: not status 1"

# recv from a capture of 5 frames asked for 9: status 1 naming the stream; the 5 stay.
"$xsflow" send "$src" --pcap five.pcap -q
"$xsflow" recv --pcap five.pcap -o five.jxs --frames 9 -q 2> five.err
rc=$?
[ $rc = 1 ] && grep -q "^xsflow: recv five.pcap: 5 of the 9 frames" five.err && cmp -s "$src" five.jxs
check $? "recv --frames 9 of 5: status $rc, '$(grep xsflow: five.err)'"
"$xsflow" recv --pcap five.pcap -o five.jxs --frames 5 -q 2> /dev/null
check $? "recv --frames 5 of 5: not status 0"

# recv where nobody sends: --wait 0.5 ends it with status 1 and no output file.
port=$((port + 1))
start=$(date +%s%N)
timeout 10 "$xsflow" recv 127.0.0.1:$port -o none.yuv --wait 0.5 -q 2> none.err
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $rc = 1 ] && grep -q "^xsflow: recv 127.0.0.1:$port: no frame: no packet came in 0.5 s (--wait)" none.err &&
    [ ! -e none.yuv ] && [ $ms -lt 3000 ]
check $? "recv --wait 0.5 without a sender: status $rc in $ms ms, '$(grep xsflow: none.err)'"
# Without --frames, --duration and --wait it waits for the first packet however long
# the --timeout: still running after 1.5 s of a 0.3 s timeout.
port=$((port + 1))
timeout 1.5 "$xsflow" recv 127.0.0.1:$port -o null --timeout 0.3 -q 2> /dev/null
check $(($? != 124)) "recv --timeout 0.3 without a sender did not wait for the first packet"
# --timeout counts from the first packet: a sender 1.5 s late, a 1 s timeout, a 5 s wait.
port=$((port + 1))
timeout 20 "$xsflow" recv 127.0.0.1:$port -o late.jxs --frames 10 --timeout 1 --wait 5 -q 2> late.err &
rx=$!
sleep 1.5
timeout 20 "$xsflow" send "$src" --to 127.0.0.1:$port --loop 2 --fps 100 -q
wait $rx
check $? "recv of a sender later than --timeout, within --wait: $(grep xsflow: late.err)"
[ "$(stat -c %s late.jxs 2> /dev/null)" = 216000 ]
check $? "late.jxs does not hold the 10 frames"

# An SDP that contradicts the stream: one warning naming both values; the stream runs.
# (--ptp: sender and receiver share this host's clock, so the SDP's PTP reference clock
# adds no warning of its own.)
port=$((port + 1))
"$xsflow" send "$src" --pcap /dev/null --to 127.0.0.1:$port --sdp good.sdp --fps 100 -q
sed 's/width=320/width=1920/; s/height=180/height=1080/; s/exactframerate=100/exactframerate=25/' \
    good.sdp > wrong.sdp
timeout 20 "$xsflow" recv --sdp wrong.sdp --ptp -o wrong.jxs --frames 10 --timeout 2 -q 2> wrong.err &
rx=$!
sleep 0.5
timeout 20 "$xsflow" send "$src" --to 127.0.0.1:$port --loop 2 --fps 100 -q
wait $rx
rc=$?
[ $rc = 0 ] && [ "$(grep -c "warning:" wrong.err)" = 1 ] &&
    grep -q "warning: size 1920x1080 in the SDP, 320x180 in the stream; frame rate 25/1 in the SDP, 100.000 frames/s" wrong.err
check $? "recv --sdp of another picture: status $rc, '$(grep warning wrong.err)'"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
