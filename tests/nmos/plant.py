#!/usr/bin/env python3
"""A stand-in registry and controller for tests/nmos/two_machines_netns.sh.

registry PORT
    Serves the subset of the IS-04 v1.3 Registration API the nodes use (POST
    /resource, POST /health/nodes/ID, DELETE /resource/TYPE/ID) and a Query
    API subset (GET /x-nmos/query/v1.3/TYPE) from memory. It stands in for a
    real registry (nmos-cpp's, for one) where none is installed; it expires
    nothing and checks nothing beyond what the test needs.

connect REGISTRY_URL COUNT
    A controller: from the registry, every sender and COUNT receivers (on
    other nodes than the senders'); through IS-05 it enables each sender on
    its own multicast group, reads its transport file and activates a
    receiver with it. Prints what it connected.

Only the Python standard library is used."""
import json
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TYPES = ("node", "device", "source", "flow", "sender", "receiver")


class Registry(BaseHTTPRequestHandler):
    resources = {t: {} for t in TYPES}
    lock = threading.Lock()

    def log_message(self, fmt, *args):
        pass

    def answer(self, code, body=None):
        data = json.dumps(body if body is not None else {}).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path == "/x-nmos/registration/v1.3/resource":
            try:
                doc = json.loads(body)
                kind, data = doc["type"], doc["data"]
                assert kind in TYPES
            except Exception:
                return self.answer(400, {"code": 400, "error": "bad resource", "debug": None})
            with self.lock:
                known = data["id"] in self.resources[kind]
                self.resources[kind][data["id"]] = data
            return self.answer(200 if known else 201, data)
        if self.path.startswith("/x-nmos/registration/v1.3/health/nodes/"):
            node = self.path.rsplit("/", 1)[1]
            with self.lock:
                known = node in self.resources["node"]
            return self.answer(200 if known else 404,
                               {"health": int(time.time())} if known else
                               {"code": 404, "error": "unknown node", "debug": None})
        self.answer(404, {"code": 404, "error": "no such path", "debug": None})

    def do_DELETE(self):
        parts = self.path.strip("/").split("/")
        if len(parts) == 6 and parts[3] == "resource":
            kind = parts[4].rstrip("s")
            with self.lock:
                gone = self.resources.get(kind, {}).pop(parts[5], None)
                if kind == "node":  # a node takes its resources with it
                    for t in TYPES[1:]:
                        for rid in [r for r, d in self.resources[t].items()
                                    if d.get("node_id") == parts[5]]:
                            self.resources[t].pop(rid)
            self.send_response(204 if gone else 404)
            self.end_headers()
            return
        self.answer(404, {"code": 404, "error": "no such path", "debug": None})

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        if len(parts) == 4 and parts[:3] == ["x-nmos", "query", "v1.3"]:
            kind = parts[3].rstrip("s")
            if kind in TYPES:
                with self.lock:
                    return self.answer(200, list(self.resources[kind].values()))
        self.answer(404, {"code": 404, "error": "no such path", "debug": None})


def http(method, url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        raw = r.read().decode()
        return json.loads(raw) if r.headers.get("Content-Type", "").startswith("application/json") else raw


def connect(registry, count):
    q = registry + "/x-nmos/query/v1.3/"
    devices = {d["id"]: d for d in http("GET", q + "devices")}
    senders = http("GET", q + "senders")
    receivers = sorted(http("GET", q + "receivers"), key=lambda r: r["label"])
    sender_devices = {s["device_id"] for s in senders}
    receivers = [r for r in receivers if r["device_id"] not in sender_devices
                 and "video/jxsv" in r["caps"]["media_types"]][:count]
    if not senders or len(receivers) < count:
        sys.exit("controller: %d senders, %d receivers: too few" % (len(senders), len(receivers)))

    def control(resource):
        for c in devices[resource["device_id"]]["controls"]:
            if c["type"].startswith("urn:x-nmos:control:sr-ctrl/v1.1"):
                return c["href"].rstrip("/") + "/single/"
        sys.exit("controller: no IS-05 control for %s" % resource["id"])

    for k, rx in enumerate(receivers):
        tx = senders[k % len(senders)]
        base = control(tx) + "senders/" + tx["id"]
        group = "239.78.0.%d" % (k % len(senders) + 1)
        http("PATCH", base + "/staged", {
            "master_enable": True, "receiver_id": rx["id"],
            # Two legs (ST 2022-7): the first to the group, the second off.
            "transport_params": [{"destination_ip": group, "destination_port": 5004},
                                 {"rtp_enabled": False}],
            "activation": {"mode": "activate_immediate"}})
        sdp = http("GET", base + "/transportfile")
        http("PATCH", control(rx) + "receivers/" + rx["id"] + "/staged", {
            "sender_id": tx["id"], "master_enable": True,
            "transport_file": {"data": sdp, "type": "application/sdp"},
            "activation": {"mode": "activate_immediate"}})
        print("connected %s (%s) <- %s (%s) on %s:5004" % (rx["label"], rx["id"], tx["label"],
                                                           tx["id"], group))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "registry":
        ThreadingHTTPServer(("0.0.0.0", int(sys.argv[2])), Registry).serve_forever()
    elif len(sys.argv) == 4 and sys.argv[1] == "connect":
        connect(sys.argv[2].rstrip("/"), int(sys.argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
