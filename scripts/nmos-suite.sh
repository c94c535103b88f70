#!/usr/bin/env bash
# Runs AMWA's NMOS test suite (AMWA-TV/nmos-testing) against `xsflow node`:
# the IS-04-01 (Node API), IS-05-01 (Connection API), IS-05-02 (IS-05 with
# IS-04) and BCP-006-01-01 (NMOS with JPEG XS) suites, non-interactive, and
# prints pass/fail/warning counts per suite (results as JSON in OUT_DIR).
#
# usage: scripts/nmos-suite.sh TESTING_DIR SPECS_DIR XSFLOW [OUT_DIR [PYDEPS_DIR]]
#   TESTING_DIR  a checkout of AMWA-TV/nmos-testing (its cache/ is filled here)
#   SPECS_DIR    git repositories of the specifications, named as on GitHub
#                (is-04, is-05, nmos-parameter-registers, bcp-004-01, ...), or
#                directories named AMWA-TV+NAME/repo (mirrors); those missing get
#                an empty placeholder (the suites run here do not read them)
#   XSFLOW       the xsflow program
#   OUT_DIR      where results go (default: a temporary directory)
#   PYDEPS_DIR   put on PYTHONPATH: Python packages Debian lacks (ramlfications
#                0.1.9, jsonref, xeger; Crypto -> Debian's Cryptodome)
# Environment: PORT (default 18480), PYTHON (default /usr/bin/python3,
# Debian's, with the python3-* packages), DNS_SD (default 1: the suite
# advertises its mock registries by mDNS and the node finds them with
# --discover, through an avahi-daemon and a D-Bus system bus started here for
# the namespace; 0: no DNS-SD, and the registration tests fail for want of a
# registry), SUITES (default "IS-04-01 IS-05-01 IS-05-02 BCP-006-01-01").
#
# Every packet stays on the machine: as root, the script makes a network
# namespace of its own (ip netns) and runs the node, the suite and the
# namespace's avahi-daemon and dbus-daemon inside it, with a /run of their
# own. The namespace has loopback (the node's APIs, on 127.0.0.1) and a veth
# pair whose two ends are both inside it (198.51.100.1/24, where the suite's
# mock registries listen; its default route points at an address nobody
# answers): what the suite sends the node to - its "timeout" registry at
# 192.0.2.1, RTP to 192.0.2.1 and 233.252.0.1 - goes nowhere, and nothing
# leaves the namespace. The namespace is deleted on the way out.
# Nothing here needs the network: the suite's spec clones are made from SPECS_DIR.
set -euo pipefail

if [ $# -lt 3 ]; then
    sed -n '2,33p' "$0" >&2
    exit 2
fi

# 0. The namespace: made here, the script run again inside it, deleted after.
if [ -z "${XSF_NMOS_SUITE_NETNS:-}" ]; then
    if [ "$(id -u)" != 0 ] || ! command -v ip > /dev/null; then
        echo "nmos-suite: run as root with iproute2: the suite runs in a network namespace" >&2
        echo "  made here (ip netns), so that none of its packets leaves the machine" >&2
        exit 1
    fi
    ns=xsf-nmos-suite-$$
    ip netns add "$ns"
    cleanup_ns() {
        # Everything in the namespace was started by this script (node, suite, daemons).
        for _ in 1 2 3 4 5; do
            pids=$(ip netns pids "$ns" 2> /dev/null || true)
            [ -z "$pids" ] && break
            kill $pids 2> /dev/null || true
            sleep 0.5
        done
        pids=$(ip netns pids "$ns" 2> /dev/null || true)
        [ -n "$pids" ] && kill -9 $pids 2> /dev/null || true
        ip netns del "$ns" 2> /dev/null || true
    }
    trap cleanup_ns EXIT
    ip -n "$ns" link set lo up
    ip -n "$ns" link add xsf0 type veth peer name xsf1
    ip -n "$ns" addr add 198.51.100.1/24 dev xsf0
    ip -n "$ns" link set xsf0 up
    ip -n "$ns" link set xsf1 up
    ip -n "$ns" route add default via 198.51.100.254 dev xsf0
    status=0
    XSF_NMOS_SUITE_NETNS=$ns ip netns exec "$ns" bash "$0" "$@" || status=$?
    exit $status
fi
testing=$(cd "$1" && pwd)
specs=$(cd "$2" && pwd)
xsflow=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
out=${4:-$(mktemp -d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
pydeps=${5:-}
host=127.0.0.1
port=${PORT:-18480}
python=${PYTHON:-/usr/bin/python3}

# 1. The spec cache: clones of local repositories, placeholders for the rest,
#    and a "last pull" far in the future so that the suite never pulls.
cache="$testing/cache"
mkdir -p "$cache"
for name in $("$python" -c "
import sys; sys.path.insert(0, '$testing')
from nmostesting import Config
print(' '.join(sorted({v['repo'] for v in Config.SPECIFICATIONS.values() if v['repo']})))"); do
    [ -d "$cache/$name/.git" ] && continue
    src=""
    for cand in "$specs/$name" "$specs/AMWA-TV+$name/repo"; do
        if [ -e "$cand" ] && git --git-dir="$cand" rev-parse >/dev/null 2>&1 ||
            git -C "$cand" rev-parse >/dev/null 2>&1; then
            src=$cand
            break
        fi
    done
    if [ -n "$src" ]; then
        git clone -q "$src" "$cache/$name"
    else
        git init -q "$cache/$name"
        git -C "$cache/$name" -c user.name=placeholder -c user.email=placeholder@invalid \
            commit -q --allow-empty -m "placeholder: not needed by the suites run here"
    fi
done
"$python" -c "
import pickle, datetime
pickle.dump(datetime.datetime(2100, 1, 1), open('$cache/last_pull', 'wb'))"

# Inside the namespace (ip netns exec gave this script a mount namespace of
# its own): a private /run, a D-Bus system bus and an avahi-daemon for the
# namespace's interfaces (DNS-SD), stopped on the way out with the node.
daemons=()
if [ "${DNS_SD:-1}" = 1 ]; then
    for prog in dbus-daemon avahi-daemon; do
        if ! command -v $prog > /dev/null; then
            echo "nmos-suite: $prog is missing (DNS_SD=1 needs it: apt-get install dbus avahi-daemon)" >&2
            exit 1
        fi
    done
    mount -t tmpfs -o mode=755 xsf-nmos-run /run
    mkdir -p /run/dbus /run/avahi-daemon
    daemons+=("$(dbus-daemon --system --fork --print-pid)")
    avahi-daemon -D --no-rlimits
    for _ in $(seq 50); do
        [ -s /run/avahi-daemon/pid ] && break
        sleep 0.1
    done
    daemons+=("$(cat /run/avahi-daemon/pid)")
fi

# 2. The suite's configuration (UserConfig.py is read after Config.py).
dns_sd=False
[ "${DNS_SD:-1}" = 1 ] && dns_sd=True
cat >"$testing/nmostesting/UserConfig.py" <<EOF
# Written by xsflow's scripts/nmos-suite.sh.
from . import Config as CONFIG
CONFIG.ENABLE_DNS_SD = $dns_sd
CONFIG.DNS_SD_MODE = "multicast"
CONFIG.ENABLE_MQTT_BROKER = False
CONFIG.MOCK_SERVICES_WARM_UP_DELAY = 0
CONFIG.PORT_BASE = 25000
CONFIG.WEBSOCKET_PORT_BASE = 26000
CONFIG.BIND_INTERFACE = "xsf0"
EOF

# 3. The node: two receivers and a sender it sends itself on two legs (the
#    clip of the SDP `xsflow send` writes, its stream twice in an
#    a=group:DUP), started and moved by the suite through IS-05.
work=$(mktemp -d)
node_pid=
stop_all() {
    [ -n "$node_pid" ] && kill "$node_pid" 2> /dev/null || true
    [ -n "$node_pid" ] && wait "$node_pid" 2> /dev/null || true
    for pid in "${daemons[@]}"; do kill "$pid" 2> /dev/null || true; done
    rm -rf "$work"
}
trap stop_all EXIT
vector=$(dirname "$0")/../vectors/xs/seq_5f_422_10b.jxs
"$xsflow" send "$vector" --pcap "$work/s.pcap" --to 233.252.0.1:5004 --source "$host" \
    --sdp "$work/one.sdp" -q
"$python" - "$work/one.sdp" "$work/sender.sdp" <<'EOF_DUP'
import sys
text = open(sys.argv[1], newline="").read()
m = text.index("m=")
media = text[m:]
legs = [media + "a=mid:primary\r\n",
        media.replace("233.252.0.1", "233.252.0.2") + "a=mid:secondary\r\n"]
open(sys.argv[2], "w", newline="").write(
    text[:m] + "a=group:DUP primary secondary\r\n" + "".join(legs))
EOF_DUP
node_args=(--host "$host" --port "$port" --receivers 2 --sender "$work/sender.sdp" --send "$vector" --cpu
           --threads 1 --seed nmos-suite)
[ "${DNS_SD:-1}" = 1 ] && node_args+=(--discover)
"$xsflow" node "${node_args[@]}" >"$out/node.out" 2>"$out/node.err" &
node_pid=$!
for _ in $(seq 50); do
    grep -q "^node " "$out/node.out" 2>/dev/null && break
    sleep 0.1
done

# 4. The suites. Debian 12's python3-zeroconf (0.47) lacks the `strict`
#    argument of register_service that the suite passes (to advertise names
#    over 15 bytes, "_nmos-registration"): a sitecustomize in the results
#    directory drops it and checks service names leniently (harness only).
mkdir -p "$out/pyshim"
cat >"$out/pyshim/sitecustomize.py" <<'EOF_SHIM'
try:
    import zeroconf
    import zeroconf._core as _core
    import zeroconf._services.info as _info
    import inspect
    if "strict" not in inspect.signature(zeroconf.Zeroconf.register_service).parameters:
        _name = _core.service_type_name

        def _lenient(type_, *, strict=True):
            return _name(type_, strict=False)
        _core.service_type_name = _lenient
        _info.service_type_name = _lenient

        def _drop_strict(f):
            def call(self, *args, strict=True, **kwargs):
                return f(self, *args, **kwargs)
            return call
        for _m in ("register_service", "async_register_service"):
            setattr(zeroconf.Zeroconf, _m, _drop_strict(getattr(zeroconf.Zeroconf, _m)))
except ImportError:
    pass
EOF_SHIM
export PYTHONPATH="$out/pyshim${pydeps:+:$pydeps}${PYTHONPATH:+:$PYTHONPATH}"
status=0
for suite in ${SUITES:-IS-04-01 IS-05-01 IS-05-02 BCP-006-01-01}; do
    # The APIs a suite tests, in its order: the Node API (v1.3), the Connection API (v1.1).
    case $suite in
    IS-05-01) apis=(v1.1) ;;
    IS-05-02) apis=(v1.3 v1.1) ;;
    *) apis=(v1.3) ;;
    esac
    hosts=() ports=()
    for _ in "${apis[@]}"; do hosts+=("$host") ports+=("$port"); done
    (cd "$testing" && "$python" nmos-test.py suite "$suite" --host "${hosts[@]}" \
        --port "${ports[@]}" --version "${apis[@]}" --output "$out/$suite.json") \
        >"$out/$suite.log" 2>&1 || status=$?
    "$python" - "$out/$suite.json" <<'EOF' || status=1
import collections, json, sys
r = json.load(open(sys.argv[1]))
counts = collections.Counter(t["state"] for t in r["results"])
print("%s: %s" % (r["suite"], ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
for t in r["results"]:
    if t["state"] not in ("Pass", "Not Applicable", "Disabled", "Test Disabled"):
        print("  %-10s %s: %s" % (t["state"], t["name"], (t["detail"] or "")[:160]))
EOF
done
echo "results: $out"
exit $status
