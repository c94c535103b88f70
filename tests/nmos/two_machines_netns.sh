#!/bin/bash
# Two machines on one host: network namespaces A and B joined by a bridge in
# the host's namespace, where a registry and a controller run (plant.py).
# A runs `xsflow node` with two senders it sends itself; B runs `xsflow node`
# with two decoding slots writing .yuv files. Both register with the
# registry; the controller finds A's senders and B's receivers there and
# connects them through IS-05 (multicast, source-specific). Checked: both
# nodes registered; every picture B decodes is one of the clip's pictures
# as the C decoder gives them, in the clip's order (the senders loop it:
# each picture is the one after the previous, frame 4 followed by frame 0),
# so a stream that loses, repeats or reorders frames fails; both receivers
# get pictures. Addresses
# 10.78.0.0/24 and groups 239.78.0.0/24 are this script's; everything is
# removed on exit. Skipped (77) without network namespaces (not root).
# usage: two_machines_netns.sh XSFLOW VECTOR_DIR WORK_DIR PLANT_PY
set -u
xsflow=$(readlink -f "$1") vectors=$(cd "$2" && pwd) work=$3 plant=$(readlink -f "$4")
mkdir -p "$work" && cd "$work" || exit 1
python=$(command -v python3) || { echo "python3 is not installed: skipped"; exit 77; }
if ! command -v ip > /dev/null; then
    echo "iproute2 is not installed: skipped"
    exit 77
fi
a=xsfna$$ b=xsfnb$$ br=xsfbr$$
if ! ip netns add $a 2> /dev/null; then
    echo "cannot create network namespaces here (needs root): skipped"
    exit 77
fi
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
    for _ in $(seq 50); do # a node that does not stop in 5 s is a failure: killed
        alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2> /dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2> /dev/null; done
    ip netns del $a 2> /dev/null
    ip netns del $b 2> /dev/null
    ip link del $br 2> /dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM # cleanup runs on the way out
ip netns add $b || exit 77
set -e
ip link add $br type bridge
echo 0 > /sys/class/net/$br/bridge/multicast_snooping # flood the groups: no querier here
ip addr add 10.78.0.254/24 dev $br
ip link set $br up
n=1
for ns in $a $b; do
    ip link add v$ns type veth peer name p$ns
    ip link set v$ns netns $ns
    ip link set p$ns master $br
    ip link set p$ns up
    ip -n $ns addr add 10.78.0.$n/24 dev v$ns
    ip -n $ns link set lo up
    ip -n $ns link set v$ns up
    ip -n $ns route add 224.0.0.0/4 dev v$ns
    n=$((n + 1))
done
set +e

fail=0 pass=0
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
clip=$vectors/seq_5f_422_10b.jxs
"$xsflow" decode "$clip" -o reference.yuv --cpu -q > /dev/null 2>&1
check $? "reference decode"

reg_port=18700
"$python" "$plant" registry $reg_port 2> registry.log &
pids+=($!)
registry=http://10.78.0.254:$reg_port
for k in 1 2; do
    "$xsflow" send "$clip" --pcap s$k.pcap --to 239.78.0.$k:5004 --source 10.78.0.1 --sdp s$k.sdp -q
done
ip netns exec $a "$xsflow" node --host 10.78.0.1 --port 8080 --label machine-a --receivers 0 \
    --sender s1.sdp --send "$clip" --sender s2.sdp --send "$clip" --registry $registry \
    --heartbeat 1 --cpu --threads 1 > a.out 2> a.err &
pids+=($!)
ip netns exec $b "$xsflow" node --host 10.78.0.2 --port 8080 --label machine-b --receivers 2 \
    -o "$work/b-rx%u.yuv" --registry $registry --heartbeat 1 --cpu --threads 2 > b.out 2> b.err &
pids+=($!)

registered() { # the number of nodes in the registry
    "$python" -c "
import json, urllib.request
print(len(json.load(urllib.request.urlopen('$registry/x-nmos/query/v1.3/nodes', timeout=2))))" 2> /dev/null
}
for _ in $(seq 50); do
    [ "$(registered)" = 2 ] && break
    sleep 0.2
done
[ "$(registered)" = 2 ]
check $? "both nodes in the registry"
"$python" "$plant" connect $registry 2 | tee connect.log
check ${PIPESTATUS[0]} "controller"
sleep 3
# Frame-exact and in order: every picture B wrote is one of the clip's, and
# the one after the picture before it (the senders loop the clip; a receiver
# joins anywhere in it).
"$python" - reference.yuv b-rx0.yuv b-rx1.yuv << 'EOF'
import sys
ref = open(sys.argv[1], "rb").read()
frame = len(ref) // 5
index = {ref[i * frame:(i + 1) * frame]: i for i in range(5)}
bad = 0
for path in sys.argv[2:]:
    try:
        data = open(path, "rb").read()
    except OSError:
        data = b""
    n = len(data) // frame
    got = [index.get(data[i * frame:(i + 1) * frame], -1) for i in range(n)]
    wrong = got.count(-1)
    out_of_order = sum(1 for a, b in zip(got, got[1:]) if a >= 0 and b >= 0 and b != (a + 1) % 5)
    print("%s: %d pictures, %d not the clip's, %d not after the one before (frames %s)" %
          (path, n, wrong, out_of_order, "".join(str(i) if i >= 0 else "?" for i in got[:40])))
    bad += wrong + out_of_order + (n < 10) + (len(data) % frame != 0)
sys.exit(1 if bad else 0)
EOF
check $? "pictures on machine B"
# Both nodes stop on SIGTERM (streams running), within 5 s.
node_pids=("${pids[1]}" "${pids[2]}")
kill "${node_pids[@]}"
stopped=1
for _ in $(seq 50); do
    stopped=1
    for p in "${node_pids[@]}"; do kill -0 "$p" 2> /dev/null && stopped=0; done
    [ $stopped = 1 ] && break
    sleep 0.1
done
[ $stopped = 1 ]
check $? "the nodes stop on SIGTERM while receiving"
echo "machine A:"; sed 's/^/  /' a.err | tail -5
echo "machine B:"; sed 's/^/  /' b.err | tail -5
echo "$pass passed, $fail failed"
[ $fail = 0 ]
