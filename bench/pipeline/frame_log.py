#!/usr/bin/env python3
"""Summarizes an `xsflow recv --frame-log` file: where each frame's time went.

    python3 bench/pipeline/frame_log.py FRAMES.csv [--skip S]

Prints, over every delivered frame (after the first S seconds, default 0),
the p50 / p99 / max in microseconds of each stage:
  queue     last packet -> taken by a decoder (wait for a decoder)
  decode    taken -> picture ready (the two below on the GPU)
  device    taken -> picture in device memory (upload, kernels)
  download  device -> picture in host memory
  total     last packet -> picture ready (host if downloaded, else device)
and, from the end of a frame's data on (frames decoded as they arrive,
recv --slices, have their decoding under way before the last packet):
  handover  last packet -> the whole frame in the pipeline's hands
  wake      whole -> the decoder began the frame's last step
  final     last step -> picture in device memory
then, per second of the run, the frames delivered and the worst total and
queue, and the ten slowest frames with their stages, so that a tail can be
told apart: start-up, a stalled decoder, or a slow download.
"""
import csv
import sys


def pct(v, q):
    if not v:
        return 0.0
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def main():
    args = sys.argv[1:]
    skip = 0.0
    if "--skip" in args:
        i = args.index("--skip")
        skip = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    rows = []
    with open(args[0]) as f:
        for r in csv.DictReader(f):
            rows.append({k: int(v) for k, v in r.items()})
    if not rows:
        sys.exit("no frames in " + args[0])
    t0 = min(r["last_packet_ns"] or r["queued_ns"] for r in rows)
    spans = {"queue": [], "decode": [], "device": [], "download": [], "total": [],
             "handover": [], "wake": [], "final": []}
    per_sec = {}
    slow = []
    for r in rows:
        last = r["last_packet_ns"] or r["queued_ns"]
        ready = r["host_ready_ns"] or r["device_ready_ns"]
        if not ready:
            continue
        sec = int((last - t0) / 1e9)
        q = (r["decode_start_ns"] - last) / 1e3
        d = (r["device_ready_ns"] - r["decode_start_ns"]) / 1e3 if r["device_ready_ns"] else 0.0
        dl = (r["host_ready_ns"] - r["device_ready_ns"]) / 1e3 if r["host_ready_ns"] and r["device_ready_ns"] else 0.0
        tot = (ready - last) / 1e3
        s = per_sec.setdefault(sec, [0, 0.0, 0.0])
        s[0] += 1
        s[1] = max(s[1], tot)
        s[2] = max(s[2], q)
        if (last - t0) / 1e9 < skip:
            continue
        dec = (ready - r["decode_start_ns"]) / 1e3
        for k, v in (("queue", q), ("decode", dec), ("device", d), ("download", dl), ("total", tot)):
            spans[k].append(v)
        ho = wk = fi = 0.0
        if r.get("whole_ns") and r.get("final_start_ns") and r["device_ready_ns"]:
            ho = (r["whole_ns"] - last) / 1e3
            wk = (r["final_start_ns"] - r["whole_ns"]) / 1e3
            fi = (r["device_ready_ns"] - r["final_start_ns"]) / 1e3
            for k, v in (("handover", ho), ("wake", wk), ("final", fi)):
                spans[k].append(v)
        slow.append((tot, r["stream"], r["index"], sec, q, d, dl, ho, wk, fi))
    print(f"{len(rows)} frames, {len(spans['total'])} after the first {skip:g} s")
    print("| stage | p50 us | p99 us | max us |")
    print("| --- | ---: | ---: | ---: |")
    for k, v in spans.items():
        if not v:
            continue
        print(f"| {k} | {pct(v, 0.5):.0f} | {pct(v, 0.99):.0f} | {max(v) if v else 0:.0f} |")
    print()
    print("| second | frames | worst total us | worst queue us |")
    print("| ---: | ---: | ---: | ---: |")
    for sec in sorted(per_sec):
        n, tot, q = per_sec[sec]
        print(f"| {sec} | {n} | {tot:.0f} | {q:.0f} |")
    print()
    print("slowest frames: total us (stream, index, second): queue / device / download us;"
          " handover / wake / final us")
    for tot, st, idx, sec, q, d, dl, ho, wk, fi in sorted(slow, reverse=True)[:10]:
        print(f"  {tot:.0f} ({st}, {idx}, {sec}): {q:.0f} / {d:.0f} / {dl:.0f}; {ho:.0f} / {wk:.0f} / {fi:.0f}")


if __name__ == "__main__":
    main()
