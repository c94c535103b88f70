#!/bin/bash
# Multicast between two network namespaces joined by a veth pair: IPv4 and
# IPv6, any-source and source-specific joins (a join for another source must
# receive nothing), the SDP's source filter, and a live libpcap capture with
# a BPF filter. The namespaces, links and addresses (10.77.0.0/24, fd77::/64)
# are this script's own and are removed on exit. Skipped (77) where network
# namespaces cannot be created (not root, or no CAP_SYS_ADMIN).
# usage: multicast_netns.sh XSFLOW VECTOR_DIR WORK_DIR
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3
mkdir -p "$work" && cd "$work" || exit 1
if ! command -v ip > /dev/null; then
    echo "iproute2 is not installed: skipped"
    exit 77
fi
a=xsfa$$ b=xsfb$$
if ! ip netns add $a 2> /dev/null; then
    echo "cannot create network namespaces here (needs root): skipped"
    exit 77
fi
cleanup() {
    ip netns del $a 2> /dev/null
    ip netns del $b 2> /dev/null
}
trap cleanup EXIT
ip netns add $b || exit 77
set -e
ip link add va$$ type veth peer name vb$$
ip link set va$$ netns $a
ip link set vb$$ netns $b
ip -n $a addr add 10.77.0.1/24 dev va$$
ip -n $b addr add 10.77.0.2/24 dev vb$$
ip -n $a addr add fd77::1/64 dev va$$ nodad
ip -n $b addr add fd77::2/64 dev vb$$ nodad
for ns in $a $b; do ip -n $ns link set lo up; done
ip -n $a link set va$$ up
ip -n $b link set vb$$ up
ip -n $a route add 224.0.0.0/4 dev va$$
ip -n $b route add 224.0.0.0/4 dev vb$$
set +e
sleep 1 # IPv6 link-local addresses and MLD settle

fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
src=$vectors/seq_5f_422_10b.jxs
cat "$src" "$src" > expected.jxs

mc() { # NAME RECV_ADDR SEND_ADDR EXPECT(whole|none) RECV_OPTIONS...
    local name=$1 raddr=$2 saddr=$3 expect=$4
    shift 4
    rm -f "$name.jxs"
    local t=10
    [ "$expect" = none ] && t=3
    timeout 30 ip netns exec $b "$xsflow" recv "$raddr" --iface vb$$ -o "$name.jxs" --frames 10 --timeout $t -q \
        "$@" 2> "$name.log" &
    local rx=$!
    sleep 0.7
    timeout 30 ip netns exec $a "$xsflow" send "$src" --to "$saddr" --iface va$$ --ttl 4 --loop 2 --fps 100 -q
    check $? "$name: send"
    wait $rx
    local rc=$?
    if [ "$expect" = whole ]; then
        check $rc "$name: recv ($(tail -1 "$name.log"))"
        cmp -s expected.jxs "$name.jxs"
        check $? "$name: the received codestreams differ ($(tail -1 "$name.log"))"
    else
        # Nothing came: status 1 and why (a join that receives nothing is no success).
        [ $rc = 1 ] && grep -q "no frame: no packet came" "$name.log"
        check $? "$name: recv status $rc, expected 1 and 'no frame' ($(tail -1 "$name.log"))"
        [ ! -s "$name.jxs" ]
        check $? "$name: a join for another source received $(stat -c %s "$name.jxs") bytes"
    fi
}

mc asm4 239.77.0.1:5004 239.77.0.1:5004 whole
mc ssm4 232.77.0.1:5006 232.77.0.1:5006 whole --source 10.77.0.1
mc ssm4-other 232.77.0.1:5008 232.77.0.1:5008 none --source 10.77.0.9
mc asm6 [ff15::77]:5010 [ff15::77]:5010 whole
mc ssm6 [ff35::77]:5012 [ff35::77]:5012 whole --source fd77::1
mc slice4 239.77.0.2:5014 239.77.0.2:5014 whole

# The SDP's source filter and TTL, written by send and read by recv.
ip netns exec $a "$xsflow" send "$src" --pcap /dev/null --to 232.77.0.3:5016 --source 10.77.0.1 --ttl 4 \
    --sdp session.sdp -q
grep -q "a=source-filter: incl IN IP4 232.77.0.3 10.77.0.1" session.sdp && grep -q "c=IN IP4 232.77.0.3/4" session.sdp
check $? "sdp: source filter and TTL"
timeout 30 ip netns exec $b "$xsflow" recv --sdp session.sdp --iface vb$$ -o sdp.jxs --frames 10 --timeout 10 -q \
    2> sdp.log &
rx=$!
sleep 0.7
timeout 30 ip netns exec $a "$xsflow" send "$src" --to 232.77.0.3:5016 --iface va$$ --loop 2 --fps 100 -q
wait $rx
check $? "sdp: recv ($(tail -1 sdp.log))"
cmp -s expected.jxs sdp.jxs
check $? "sdp: the received codestreams differ"

# A live capture on the receiving side's interface, with a BPF filter (the
# group is joined by a socket receiver so that the frames reach it). The
# sender without UDP GSO: a veth pair passes a GSO burst unsegmented, and a
# capture on it sees the burst as one oversize datagram (as captures of TCP
# segmentation offload do); the socket receivers above get it cut apart.
timeout 30 ip netns exec $b "$xsflow" recv 239.77.0.5:5018 --iface vb$$ -o join.jxs --frames 10 --timeout 10 -q \
    2> /dev/null &
join=$!
timeout -k 5 30 ip netns exec $b "$xsflow" recv --capture vb$$ --filter "udp and dst port 5018" -o live.jxs \
    --frames 10 --timeout 10 -q 2> live.log &
rx=$!
sleep 1
timeout 30 ip netns exec $a "$xsflow" send "$src" --to 239.77.0.5:5018 --iface va$$ --loop 2 --fps 100 -q \
    --no-gso
wait $rx
check $? "live capture: recv ($(tail -1 live.log))"
wait $join
cmp -s expected.jxs live.jxs
check $? "live capture: the received codestreams differ ($(tail -1 live.log))"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
