#!/usr/bin/env python3
"""Markdown tables for COMPARISON.md from `xsflow compare --csv` files.

    python3 scripts/compare-tables.py compare-uhd.csv [compare-8k.csv ...]
    python3 scripts/compare-tables.py --set CSV...     (bench/compare/set.sh)

For each picture in the files: the quality table (PSNR overall, SSIM and
MS-SSIM per variant and rate, the bits spent where they differ from the
target), the throughput tables (encode and decode Gsamples/s per variant and
rate, one per timing kind: the peers' rows are "cpu", on the threads the CSV
gives), and the crossing points: the rates between which the PSNR
difference of JPEG XS (best variant) and BPC-PaCo (best variant) changes sign,
linearly interpolated, and the throughput ratios XS / BPC-PaCo at each rate.
With the peers (SVT-JPEG-XS "svt", OpenJPEG "opj"): the best of each coding
method (precinct: xs and svt; bitplane: bpc and opj) per rate, and over
several pictures the spread of that difference (mean, least, most, and on how
many pictures each method wins).
With --set, the answer over a picture set instead of the tables per picture
(set_quality, set_speed below): per rate each family's means, the pictures it
wins, and which coding method wins on PSNR, PSNR of component 0 and MS-SSIM,
on how many pictures, how sure (a sign test) and by how much (least, median,
most over the pictures); from GPU rows also throughput and latency.
Only the Python standard library.
"""
import csv
import math
import sys

VARIANTS = [("xs", "default"), ("xs", "quality"), ("bpc", "1pass"), ("bpc", "2pass"), ("bpc", "3pass"),
            ("svt", "default"), ("opj", "default")]
# The coding methods: precinct coding (JPEG XS, xsflow's and SVT-JPEG-XS's
# encoders) and bitplane coding (BPC-PaCo, and JPEG 2000 by OpenJPEG).
FAMILIES = {"precinct": ("xs", "svt"), "bitplane": ("bpc", "opj")}


def num(s):
    if s in ("", None):
        return None
    return math.inf if s == "inf" else float(s)


def rate_key(r):
    return math.inf if r == "lossless" else float(r)


def fmt(v, spec):
    if v is None:
        return "–"
    if math.isinf(v):
        return "∞"
    return format(v, spec)


def main(paths):
    rows = load(paths)
    pictures = []
    for r in rows:
        if r["picture"] not in pictures:
            pictures.append(r["picture"])
    for pic in pictures:
        pr = [r for r in rows if r["picture"] == pic]
        first = pr[0]
        rates = sorted({r["bpp_target"] for r in pr}, key=rate_key)
        present = [v for v in VARIANTS if any((r["codec"], r["variant"]) == v for r in pr)]
        timings = []
        for r in pr:
            if r["timing"] not in timings:
                timings.append(r["timing"])

        def get(v, rate, timing=None):
            for r in pr:
                if (r["codec"], r["variant"]) == v and r["bpp_target"] == rate and (timing is None or r["timing"] == timing):
                    return r
            return None

        print(f"### {pic}: {first['width']}x{first['height']}, {first['components']} components, "
              f"{first['depth']} bits ({first['path']}, {first['device']})\n")
        print("Filters and levels: " + "; ".join(
            f"{c} {v}: {get((c, v), rates[0])['filter']} {get((c, v), rates[0])['levels_h']}/"
            f"{get((c, v), rates[0])['levels_v']}" + (
                f", lossless {get((c, v), 'lossless')['filter']}" if get((c, v), "lossless") and
                get((c, v), "lossless")["filter"] != get((c, v), rates[0])["filter"] else "")
            for c, v in present) + "\n")
        has_ms = any(r.get("ms_ssim") for r in pr)
        print("PSNR dB (all components) / SSIM" + (" / MS-SSIM" if has_ms else "") +
              " (luma); bpp spent in brackets where it is not the target:\n")
        print("| bpp | " + " | ".join(f"{c} {v}" for c, v in present) + " |")
        print("| ---: | " + " | ".join("---:" for _ in present) + " |")
        for rate in rates:
            cells = []
            for v in present:
                r = get(v, rate)
                if r is None or r["bytes"] == "":
                    cells.append("not coded" if r else "–")
                    continue
                psnr, ssim, bpp = num(r["psnr_db"]), num(r["ssim"]), num(r["bpp"])
                cell = f"{fmt(psnr, '.2f')} / {fmt(ssim, '.4f')}"
                if has_ms:
                    cell += f" / {fmt(num(r.get('ms_ssim')), '.4f')}"
                if rate == "lossless" or abs(bpp - float(rate)) > 0.005:
                    cell += f" [{bpp:.3f}]"
                if r["qstep"]:
                    cell += f" (q {r['qstep']})"
                cells.append(cell)
            print(f"| {rate} | " + " | ".join(cells) + " |")
        print()

        # Crossing points of the best XS and best BPC-PaCo PSNR.
        diffs = []
        for rate in rates:
            if rate == "lossless":
                continue
            xs = [num(get(v, rate)["psnr_db"]) for v in present if v[0] == "xs" and get(v, rate) and get(v, rate)["psnr_db"]]
            bp = [num(get(v, rate)["psnr_db"]) for v in present if v[0] == "bpc" and get(v, rate) and get(v, rate)["psnr_db"]]
            if xs and bp:
                diffs.append((float(rate), max(xs) - max(bp)))
        if diffs:
            print("Best JPEG XS minus best BPC-PaCo, dB: " + ", ".join(f"{b:g} bpp {d:+.2f}" for b, d in diffs) + ".")
            cross = []
            for (b0, d0), (b1, d1) in zip(diffs, diffs[1:]):
                if d0 == 0 or (d0 < 0) != (d1 < 0):
                    cross.append(b0 + (b1 - b0) * (0 - d0) / (d1 - d0) if d1 != d0 else b0)
            print("Quality crossing points (interpolated): " + (", ".join(f"{c:.2f} bpp" for c in cross) if cross else "none in the range") + ".\n")

        if any(v[0] in ("svt", "opj") for v in present):
            family_lines(rates, present, get)

        for timing in timings:
            threads = sorted({r.get("threads", "") for r in pr if r["timing"] == timing} - {""})
            on = f" ({', '.join(threads)} threads)" if timing == "cpu" and threads else ""
            print(f"Throughput, {timing}{on}: Gsamples/s encode / decode (frames/s in brackets):\n")
            print("| bpp | " + " | ".join(f"{c} {v}" for c, v in present) + " |")
            print("| ---: | " + " | ".join("---:" for _ in present) + " |")
            for rate in rates:
                cells = []
                for v in present:
                    r = get(v, rate, timing)
                    if r is None or r["enc_gsamples"] == "":
                        cells.append("–")
                        continue
                    dg = f"{float(r['dec_gsamples']):.2f}" if r["dec_gsamples"] else "–"
                    df = f"{float(r['dec_fps']):.0f}" if r["dec_fps"] else "–"
                    cells.append(f"{float(r['enc_gsamples']):.2f} / {dg} "
                                 f"({float(r['enc_fps']):.0f} / {df})")
                print(f"| {rate} | " + " | ".join(cells) + " |")
            ratios = []
            for rate in rates:
                def best(codec, col):
                    vals = [float(get(v, rate, timing)[col]) for v in present
                            if v[0] == codec and get(v, rate, timing) and get(v, rate, timing)[col]]
                    return max(vals) if vals else None
                xe, be, xd, bd = best("xs", "enc_gsamples"), best("bpc", "enc_gsamples"), best("xs", "dec_gsamples"), best("bpc", "dec_gsamples")
                if xe and be and xd and bd:
                    ratios.append(f"{rate}: {xe / be:.2f} / {xd / bd:.2f}")
            if ratios:
                print(f"\nFastest JPEG XS over fastest BPC-PaCo ({timing}), encode / decode: " + "; ".join(ratios) + ".")
            print()


def best_of(family, rate, present, get, col):
    vals = [num(get(v, rate)[col]) for v in present
            if v[0] in FAMILIES[family] and get(v, rate) and get(v, rate)[col] not in ("", None)]
    return max(vals) if vals else None


def family_lines(rates, present, get):
    """Best precinct coder against best bitplane coder, per rate."""
    out = []
    for rate in rates:
        if rate == "lossless":
            continue
        p, b = best_of("precinct", rate, present, get, "psnr_db"), best_of("bitplane", rate, present, get, "psnr_db")
        pm, bm = best_of("precinct", rate, present, get, "ms_ssim"), best_of("bitplane", rate, present, get, "ms_ssim")
        if p is None or b is None:
            continue
        cell = f"{rate} bpp {p - b:+.2f} dB"
        if pm is not None and bm is not None:
            cell += f" (MS-SSIM {pm - bm:+.4f})"
        out.append(cell)
        DIFFS.setdefault(rate, []).append(p - b)
    if out:
        print("Best precinct coder (xs, svt) minus best bitplane coder (bpc, opj): " + ", ".join(out) + ".\n")


DIFFS = {}


def spread():
    """Over the pictures: the precinct-minus-bitplane PSNR difference per rate."""
    if not DIFFS or max(len(d) for d in DIFFS.values()) < 2:
        return
    print("Across the pictures, best precinct minus best bitplane PSNR (dB): mean [least, most], "
          "pictures where precinct / bitplane coding wins:\n")
    print("| bpp | mean | least | most | precinct wins | bitplane wins |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for rate in sorted(DIFFS, key=rate_key):
        d = DIFFS[rate]
        print(f"| {rate} | {sum(d) / len(d):+.2f} | {min(d):+.2f} | {max(d):+.2f} | "
              f"{sum(x > 0 for x in d)} | {sum(x < 0 for x in d)} |")
    print()


# ---- over a picture set (--set) ----

# Two rows closer than this (dB; MS-SSIM: TIE / 1000) are a tie.
TIE = 0.005
# A picture coded exactly (PSNR infinite) counts this many dB in the means
# and differences, as in bench/xs_encode/rd_svt.sh.
LOSSLESS_DB = 100.0


def method_of(v):
    for m, codecs in FAMILIES.items():
        if v[0] in codecs:
            return m
    return None


def label(v):
    return f"{v[0]} {v[1]}"


def median(vals):
    s = sorted(vals)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def sign_test(a, b):
    """Two-sided sign test: the chance of a split at least as uneven as a:b
    when each picture were as likely to go either way (ties left out)."""
    n = a + b
    if n == 0:
        return 1.0
    k = min(a, b)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)


def capped(v):
    return LOSSLESS_DB if v is not None and math.isinf(v) else v


def value(r, name):
    """A measure of a row (exact: LOSSLESS_DB); "psnr611": the YCbCr PSNR
    weighted 6:1:1, (6 PSNR-Y + PSNR-Cb + PSNR-Cr) / 8, as
    bench/xs_encode/rd_svt.sh reports it (None without three components)."""
    if name == "psnr611":
        c = [capped(num(r.get(f"psnr_c{i}"))) for i in range(3)]
        return None if None in c else (6 * c[0] + c[1] + c[2]) / 8
    return capped(num(r[name]))


def present_variants(rows):
    seen = []
    for r in rows:
        v = (r["codec"], r["variant"])
        if v not in seen:
            seen.append(v)
    return [v for v in VARIANTS if v in seen] + [v for v in seen if v not in VARIANTS]


def compare_pair(p, b, tie):
    """Per picture (p, b) pairs: the differences p - b and who wins."""
    d = [x - y for x, y in zip(p, b)]
    return {"diff": d, "precinct": sum(x > tie for x in d), "bitplane": sum(x < -tie for x in d),
            "tie": sum(abs(x) <= tie for x in d)}


def set_quality(rows):
    """Per lossy rate over the pictures coded by every family at that rate:
    each family's mean PSNR (all components), PSNR of component 0 and MS-SSIM
    (the families that coded the rate on some picture; a picture one of them
    did not code is left out and named in "partial"),
    the pictures each family wins on PSNR (a tie within TIE wins for none),
    and the best precinct row minus the best bitplane row per picture (PSNR,
    PSNR-0, PSNR 6:1:1, MS-SSIM) with the pictures each method wins. A list of dicts,
    one per rate, lowest rate first."""
    coded = {}
    for r in rows:
        if r["bpp_target"] != "lossless" and r["bytes"] != "":
            coded.setdefault((r["bpp_target"], r["picture"], (r["codec"], r["variant"])), r)
    pictures = []
    for r in rows:
        if r["picture"] not in pictures:
            pictures.append(r["picture"])
    out = []
    for rate in sorted({k[0] for k in coded}, key=rate_key):
        # The families that coded something at this rate (a variant the codec
        # refused everywhere leaves no hole in the set).
        fams = [v for v in present_variants(rows) if any(k[0] == rate and k[2] == v for k in coded)]
        pics = [p for p in pictures if all((rate, p, v) in coded for v in fams)]
        partial = [p for p in pictures if p not in pics and any((rate, p, v) in coded for v in fams)]
        if not pics:
            continue

        def col(v, name, p):
            return value(coded[(rate, p, v)], name)

        res = {"rate": rate, "pictures": pics, "partial": partial, "families": {}}
        for v in fams:
            ms = [col(v, "ms_ssim", p) for p in pics if col(v, "ms_ssim", p) is not None]
            res["families"][v] = {
                "psnr": sum(col(v, "psnr_db", p) for p in pics) / len(pics),
                "psnr0": sum(col(v, "psnr_c0", p) for p in pics) / len(pics),
                "ms_ssim": sum(ms) / len(ms) if ms else None,
                "bpp": sum(col(v, "bpp", p) for p in pics) / len(pics),
                "wins": 0,
            }
        for p in pics:
            vals = {v: col(v, "psnr_db", p) for v in fams}
            top = max(vals.values())
            leaders = [v for v in fams if vals[v] >= top - TIE]
            if len(leaders) == 1:
                res["families"][leaders[0]]["wins"] += 1
        res["winner"] = max(fams, key=lambda v: res["families"][v]["psnr"])
        methods = {m: [v for v in fams if method_of(v) == m] for m in FAMILIES}
        if all(methods.values()):
            for name, tie in (("psnr_db", TIE), ("psnr_c0", TIE), ("psnr611", TIE), ("ms_ssim", TIE / 1000)):
                both = [p for p in pics if all(col(v, name, p) is not None for v in fams)]
                best = {m: [max(col(v, name, p) for v in methods[m]) for p in both] for m in FAMILIES}
                res[name] = compare_pair(best["precinct"], best["bitplane"], tie)
        out.append(res)
    return out


def set_speed(rows):
    """Per lossy rate, from the GPU rows of xsflow's codecs (and the peers'
    CPU rows beside them): each family's median over the pictures of encode
    and decode Gsamples/s (kernels; the peers: their CPU figure) and of the
    latency, encode plus decode ms of one frame on one stream (transfers:
    host picture to host codestream to host picture; the peers: CPU), and
    per picture the fastest precinct codec on the GPU over the fastest
    bitplane codec on the GPU (throughput ratios; latency: bitplane over
    precinct, so above 1 means precinct coding is faster everywhere)."""
    gpu = [r for r in rows if r["path"] == "gpu" and r["bpp_target"] != "lossless" and r["enc_ms"]]
    if not gpu:
        return []
    peers = [r for r in rows if r["path"] == "cpu" and r["codec"] in ("svt", "opj") and
             r["bpp_target"] != "lossless" and r["enc_ms"]]
    fams = present_variants(gpu + peers)
    by = {}
    for r in gpu + peers:
        by.setdefault((r["bpp_target"], r["picture"], (r["codec"], r["variant"]), r["timing"]), r)
    out = []
    for rate in sorted({r["bpp_target"] for r in gpu}, key=rate_key):
        pics = sorted({r["picture"] for r in gpu if r["bpp_target"] == rate})
        res = {"rate": rate, "pictures": pics, "families": {}}
        for v in fams:
            peer = v[0] in ("svt", "opj")
            tput, lat = ("cpu", "cpu") if peer else ("kernels", "transfers")
            rs = [by.get((rate, p, v, tput)) for p in pics]
            ls = [by.get((rate, p, v, lat)) for p in pics]
            rs, ls = [r for r in rs if r], [r for r in ls if r and r["dec_ms"]]
            if not rs:
                continue
            res["families"][v] = {
                "on": "cpu " + rs[0]["threads"] + "t" if peer else "gpu",
                "enc": median([float(r["enc_gsamples"]) for r in rs]),
                "dec": median([float(r["dec_gsamples"]) for r in rs if r["dec_gsamples"]] or [math.nan]),
                "latency": median([float(r["enc_ms"]) + float(r["dec_ms"]) for r in ls] or [math.nan]),
            }
        ratios = {"enc": [], "dec": [], "latency": []}
        for p in pics:
            def best(m, col, timing, pick):
                vals = [float(by[(rate, p, v, timing)][col]) for v in fams if method_of(v) == m and
                        v[0] not in ("svt", "opj") and (rate, p, v, timing) in by]
                return pick(vals) if vals else None

            for key, col, timing, pick in (("enc", "enc_gsamples", "kernels", max),
                                           ("dec", "dec_gsamples", "kernels", max)):
                a, b = best("precinct", col, timing, pick), best("bitplane", col, timing, pick)
                if a and b:
                    ratios[key].append(a / b)
            lat = {}
            for m in FAMILIES:
                vals = [float(by[(rate, p, v, "transfers")]["enc_ms"]) +
                        float(by[(rate, p, v, "transfers")]["dec_ms"]) for v in fams
                        if method_of(v) == m and v[0] not in ("svt", "opj") and (rate, p, v, "transfers") in by]
                lat[m] = min(vals) if vals else None
            if lat["precinct"] and lat["bitplane"]:
                ratios["latency"].append(lat["bitplane"] / lat["precinct"])
        res["ratios"] = ratios
        out.append(res)
    return out


def answer(c, unit, fmt_spec):
    """One cell: who wins, on how many pictures, the spread, the sign test."""
    d = c["diff"]
    n = len(d)
    a, b = c["precinct"], c["bitplane"]
    p = sign_test(a, b)
    if a == b:
        who = f"neither, {a}:{b} of {n}"
    else:
        who = (f"{'precinct' if a > b else 'bitplane'} {max(a, b)}/{n}" + (f", {c['tie']} tied" if c["tie"] else "")
               + ("" if p < 0.05 else ", not significant"))
    return (f"{who} (p {p:.2g}); "
            f"{format(min(d), fmt_spec)} / {format(median(d), fmt_spec)} / {format(max(d), fmt_spec)}{unit}")


def print_set(rows):
    q = set_quality(rows)
    if not q:
        print("No lossy rate coded by every family on some picture.")
        return
    fams = []
    for res in q:
        fams += [v for v in res["families"] if v not in fams]
    rgb = any(r["colour"] in ("RCT", "ICT") for r in rows)
    c0 = "PSNR-R" if rgb else "PSNR-Y"
    pics = sorted({r["picture"] for r in rows})
    print(f"Pictures: {len(pics)} ({', '.join(pics)}); families: "
          + ", ".join(f"{label(v)} ({method_of(v) or 'no method'})" for v in fams) + ".\n")
    print(f"Means over the pictures, PSNR dB (all components) / {c0} dB / MS-SSIM (luma); "
          "the pictures each family wins on PSNR (ties within 0.005 dB count for none):\n")
    print("| bpp | " + " | ".join(label(v) for v in fams) + " | best on mean PSNR | pictures won |")
    print("| ---: | " + " | ".join("---:" for _ in fams) + " | --- | --- |")
    for res in q:
        f = res["families"]
        cells = [f"{f[v]['psnr']:.2f} / {f[v]['psnr0']:.2f} / {fmt(f[v]['ms_ssim'], '.4f')}" if v in f else "–"
                 for v in fams]
        won = ", ".join(f"{label(v)} {f[v]['wins']}" for v in fams if v in f and f[v]["wins"])
        n = len(res["pictures"])
        print(f"| {res['rate']} | " + " | ".join(cells) + f" | {label(res['winner'])} | {won} (of {n}) |")
    print()
    low = [f"{label(v)} at {res['rate']} bpp: {f['bpp']:.3f}" for res in q for v, f in res["families"].items()
           if f["bpp"] < 0.99 * float(res["rate"])]
    if low:
        print("Mean bpp spent below 99 % of the target: " + "; ".join(low) + ".\n")
    if any(res["partial"] for res in q):
        print("Left out where a family did not code them: " + "; ".join(
            f"{res['rate']} bpp: {', '.join(res['partial'])}" for res in q if res["partial"]) + ".\n")
    if not any("psnr_db" in res for res in q):
        print("(One coding method only: no method comparison.)\n")
        return
    print("Coding method per rate, best precinct row (xs, svt) against best bitplane row (bpc, opj) "
          "on each picture: the method that wins on more pictures, on how many, the two-sided sign "
          f"test's p (ties left out), then precinct minus bitplane least / median / most over the pictures:\n")
    # RGB: component 0 is red and a 6:1:1 weighting means nothing; MS-SSIM is on BT.709 luma.
    measures = [("psnr_db", "PSNR (dB)", "+.2f")]
    if not rgb:
        measures += [("psnr_c0", "PSNR-Y (dB)", "+.2f"), ("psnr611", "PSNR 6:1:1 (dB)", "+.2f")]
    measures += [("ms_ssim", "MS-SSIM", "+.4f")]
    print("| bpp | " + " | ".join(m[1] for m in measures) + " |")
    print("| ---: | " + " | ".join("---" for _ in measures) + " |")
    for res in (res for res in q if "psnr_db" in res):
        print(f"| {res['rate']} | " + " | ".join(answer(res[m[0]], "", m[2]) for m in measures) + " |")
    print()
    speed = set_speed(rows)
    if not speed:
        print("No GPU rows: throughput and latency are not summarised (xsflow compare --gpu).\n")
        return
    sf = [v for v in fams if any(v in s["families"] for s in speed)]
    print("Throughput and latency, medians over the pictures: encode / decode Gsamples/s "
          "(xsflow: GPU kernels; peers: CPU, their threads), then latency ms, encode + decode of one "
          "frame on one stream (xsflow: GPU with the PCIe transfers; peers: CPU):\n")
    print("| bpp | " + " | ".join(label(v) for v in sf) + " |")
    print("| ---: | " + " | ".join("---:" for _ in sf) + " |")
    for s in speed:
        cells = []
        for v in sf:
            f = s["families"].get(v)
            cells.append("–" if not f else f"{f['enc']:.2f} / {fmt(f['dec'], '.2f')}; {fmt(f['latency'], '.2f')} ms"
                         + ("" if f["on"] == "gpu" else f" ({f['on']})"))
        print(f"| {s['rate']} | " + " | ".join(cells) + " |")
    print()
    print("On the GPU (xsflow's codecs), fastest precinct codec over fastest bitplane codec per picture, "
          "least / median / most, and on how many pictures precinct coding is the faster "
          "(latency: bitplane ms over precinct ms):\n")
    print("| bpp | encode | decode | latency |")
    print("| ---: | --- | --- | --- |")
    for s in speed:
        cells = []
        for key in ("enc", "dec", "latency"):
            r = s["ratios"][key]
            cells.append("–" if not r else f"{min(r):.2f} / {median(r):.2f} / {max(r):.2f}; "
                         f"{sum(x > 1 for x in r)}/{len(r)}")
        print(f"| {s['rate']} | " + " | ".join(cells) + " |")
    print()


def load(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            rows.extend(csv.DictReader(f))
    return rows


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--set":
        print_set(load(sys.argv[2:]))
    else:
        main(sys.argv[1:])
        spread()
