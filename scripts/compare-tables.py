#!/usr/bin/env python3
"""Markdown tables for COMPARISON.md from `xsflow compare --csv` files.

    python3 scripts/compare-tables.py compare-uhd.csv [compare-8k.csv ...]

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
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            rows.extend(csv.DictReader(f))
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


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
    spread()
