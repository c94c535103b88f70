#!/usr/bin/env python3
"""The set summary of scripts/compare-tables.py (--set, bench/compare/set.sh) on
a tiny synthetic set whose answer is known: two pictures, the four families,
two rates, GPU rows for xsflow's codecs and CPU rows for the peers. Fails
(exit 1) when a mean, a winner count, a method difference, the sign test or
a speed ratio is not the one computed by hand below. Only the standard
library. Prints "set summary: ok" when every check passes."""
import importlib.util
import io
import os
import sys
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "compare_tables", os.path.join(HERE, "..", "..", "scripts", "compare-tables.py"))
ct = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ct)

FAILED = []


def check(what, got, want, tol=1e-9):
    ok = (abs(got - want) <= tol) if isinstance(want, float) else got == want
    if not ok:
        FAILED.append(f"{what}: got {got!r}, want {want!r}")


def chroma(y):
    return y if y in ("", "inf") else str(float(y) + 8)


def row(pic, codec, variant, rate, psnr, y, ms, path="cpu", timing="cpu", enc_g="", dec_g="", enc_ms="",
        dec_ms="", threads="1", bpp=None):
    return {"picture": pic, "codec": codec, "variant": variant, "bpp_target": rate, "bytes": "100",
            "bpp": str(bpp if bpp is not None else (17.0 if rate == "lossless" else float(rate))), "psnr_db": psnr, "psnr_c0": y,
            "psnr_c1": chroma(y), "psnr_c2": chroma(y), "ms_ssim": ms,
            "colour": "none", "path": path, "timing": timing, "threads": threads, "enc_gsamples": enc_g,
            "dec_gsamples": dec_g, "enc_ms": enc_ms, "dec_ms": dec_ms}


# PSNR all / PSNR-Y / MS-SSIM per (picture, family) at rate 1 and 2.
#   rate 1: picture a: xs 30, svt 29, bpc 32, opj 33  -> opj wins, precinct - bitplane = 30 - 33 = -3
#           picture b: xs 40, svt 41, bpc 39, opj 38  -> svt wins, 41 - 39 = +2
#   rate 2: picture a: xs 35, svt 34, bpc 36, opj 36.002 (a tie with bpc: no win), 35 - 36.002
#           picture b: xs inf (exact: 100 dB), svt 45, bpc 44, opj 44 -> xs wins, 100 - 44 = +56
QUALITY = {
    ("1", "a"): {"xs": ("30", "31", "0.90"), "svt": ("29", "35", "0.91"), "bpc": ("32", "30", "0.92"),
                 "opj": ("33", "30", "0.93")},
    ("1", "b"): {"xs": ("40", "42", "0.99"), "svt": ("41", "40", "0.98"), "bpc": ("39", "38", "0.97"),
                 "opj": ("38", "37", "0.96")},
    ("2", "a"): {"xs": ("35", "36", "0.95"), "svt": ("34", "34", "0.95"), "bpc": ("36", "35", "0.96"),
                 "opj": ("36.002", "35", "0.96")},
    ("2", "b"): {"xs": ("inf", "inf", "1.000000"), "svt": ("45", "45", "0.99"),
                 "bpc": ("44", "44", "0.99"), "opj": ("44", "44", "0.99")},
}
VARIANT = {"xs": "default", "svt": "default", "bpc": "2pass", "opj": "default"}
# Speed, rate 1 only: xs GPU kernels enc/dec Gs/s and transfers ms; bpc likewise.
SPEED = {"a": {"xs": (20.0, 60.0, 1.0, 2.0), "bpc": (10.0, 10.0, 4.0, 5.0)},
         "b": {"xs": (30.0, 40.0, 2.0, 2.0), "bpc": (10.0, 20.0, 3.0, 1.0)}}

rows = []
for (rate, pic), fams in QUALITY.items():
    for codec, (psnr, y, ms) in fams.items():
        if codec in ("svt", "opj"):
            rows.append(row(pic, codec, "default", rate, psnr, y, ms, enc_g="0.5", dec_g="0.25", enc_ms="8",
                            dec_ms="4", threads="2", bpp=1.5 if (codec, rate) == ("opj", "2") else None))
            continue
        enc_g, dec_g, tenc, tdec = SPEED[pic][codec] if rate == "1" else (1.0, 1.0, 1.0, 1.0)
        rows.append(row(pic, codec, VARIANT[codec], rate, psnr, y, ms, "gpu", "kernels", str(enc_g), str(dec_g),
                        "0.1", "0.1", "0"))
        rows.append(row(pic, codec, VARIANT[codec], rate, psnr, y, ms, "gpu", "transfers", "1", "1", str(tenc),
                        str(tdec), "0"))
# A lossless row and a refused row (a variant that coded nothing at that
# rate): both left out of the lossy summary, the pictures kept.
rows.append(row("a", "xs", "default", "lossless", "inf", "inf", "1"))
refused = row("a", "xs", "quality", "1", "", "", "")
refused["bytes"] = ""
rows.append(refused)

q = ct.set_quality(rows)
check("rates", [r["rate"] for r in q], ["1", "2"])
r1, r2 = q
check("pictures at 1 bpp", r1["pictures"], ["a", "b"])
xs, svt, bpc, opj = ("xs", "default"), ("svt", "default"), ("bpc", "2pass"), ("opj", "default")
check("family order", list(r1["families"]), [xs, bpc, svt, opj])
check("xs mean PSNR at 1", r1["families"][xs]["psnr"], 35.0)
check("svt mean PSNR-Y at 1", r1["families"][svt]["psnr0"], 37.5)
check("opj mean MS-SSIM at 1", r1["families"][opj]["ms_ssim"], 0.945)
check("wins at 1", {v: f["wins"] for v, f in r1["families"].items()}, {xs: 0, bpc: 0, svt: 1, opj: 1})
check("winner at 1 (mean PSNR: xs 35, svt 35, bpc 35.5, opj 35.5: the first of the best)", r1["winner"], bpc)
check("precinct - bitplane PSNR at 1", r1["psnr_db"]["diff"], [-3.0, 2.0])
check("method wins at 1", (r1["psnr_db"]["precinct"], r1["psnr_db"]["bitplane"], r1["psnr_db"]["tie"]), (1, 1, 0))
# PSNR-Y: a: max(31, 35) - max(30, 30) = 5; b: 42 - 38 = 4
check("precinct - bitplane PSNR-Y at 1", r1["psnr_c0"]["diff"], [5.0, 4.0])
# 6:1:1 from psnr_c0..c2 (the rows give c1 = c2 = c0 + 8): a: best precinct
# max((6*31+39+39)/8, (6*35+43+43)/8) = 37, bitplane (6*30+38+38)/8 = 32 -> +5.
check("precinct - bitplane PSNR 6:1:1 at 1", r1["psnr611"]["diff"], [5.0, 4.0])
check("MS-SSIM diffs at 1", [round(d, 9) for d in r1["ms_ssim"]["diff"]], [-0.02, 0.02])
# Rate 2: the tie (0.002 dB) wins for no family; the exact picture counts 100 dB.
check("wins at 2", {v: f["wins"] for v, f in r2["families"].items()}, {xs: 1, bpc: 0, svt: 0, opj: 0})
check("xs mean PSNR at 2 (inf as 100)", r2["families"][xs]["psnr"], 67.5)
check("precinct - bitplane at 2", [round(d, 9) for d in r2["psnr_db"]["diff"]], [-1.002, 56.0])
check("opj bpp spent at 2", r2["families"][opj]["bpp"], 1.5)
check("winner at 2", r2["winner"], xs)

check("sign test 14:0", round(ct.sign_test(14, 0), 6), round(2 / 2 ** 14, 6))
check("sign test 1:1", ct.sign_test(1, 1), 1.0)
check("sign test 0:0", ct.sign_test(0, 0), 1.0)
check("sign test 9:3", round(ct.sign_test(9, 3), 6), round(2 * (1 + 12 + 66 + 220) / 4096, 6))
check("median even", ct.median([4.0, 1.0, 3.0, 2.0]), 2.5)

s = ct.set_speed(rows)
check("speed rates", [x["rate"] for x in s], ["1", "2"])
s1 = s[0]
check("xs median encode at 1", s1["families"][xs]["enc"], 25.0)
check("xs median latency at 1 (3 and 4 ms)", s1["families"][xs]["latency"], 3.5)
check("opj on the CPU", s1["families"][opj]["on"], "cpu 2t")
check("opj latency at 1", s1["families"][opj]["latency"], 12.0)
# Ratios per picture: encode a 20/10, b 30/10; decode a 60/10, b 40/20; latency a 9/3, b 4/4.
check("encode ratios", s1["ratios"]["enc"], [2.0, 3.0])
check("decode ratios", s1["ratios"]["dec"], [6.0, 2.0])
check("latency ratios", s1["ratios"]["latency"], [3.0, 1.0])

# The printed summary runs and names the answer.
buf = io.StringIO()
with redirect_stdout(buf):
    ct.print_set(rows)
text = buf.getvalue()
for want in ("| 1 | ", "neither, 1:1 of 2", "precinct 2/2", "latency", "opj default at 2 bpp: 1.500"):
    if want not in text:
        FAILED.append(f"printed summary lacks {want!r}")

if FAILED:
    print("\n".join(FAILED))
    sys.exit(1)
print("set summary: ok")
