#!/usr/bin/env python3
"""MS-SSIM of a small known case, computed independently of compare/metrics.c.

The case (also built by tests/compare/test_compare.c): two 200x180 8-bit grey
pictures given by integer formulas, `ref` and `dist` below. The computation
follows Wang, Simoncelli and Bovik, "Multi-scale structural similarity for
image quality assessment" (2003), as their reference implementation does it:
an 11x11 Gaussian window (sigma 1.5, normalised) at every position where it
fits, K1 = 0.01, K2 = 0.03, L = 255; for scales 1..4 the mean of
(2 cov + C2) / (var_a + var_b + C2), for scale 5 the mean SSIM; between
scales a 2x2 mean (the last row or column repeated on odd sizes) and
decimation by 2; MS-SSIM = prod cs_j^w_j * ssim_5^w_5 with the weights
0.0448, 0.2856, 0.3001, 0.2363, 0.1333 (negative means taken as 0).
Only the Python standard library. Prints the value with 12 digits.
"""
import math

W, H = 200, 180
WEIGHTS = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333]


def ref(x, y):
    return (x * 3 + y * 2 + ((x // 8 + y // 8) % 2) * 64 + (x * y) % 37) % 256


def dist(x, y):
    return min(255, max(0, (ref(x, y) + ref(x + 1, y + 1)) // 2 + (x * 31 + y * 17) % 23 - 11))


def gaussian():
    g = [math.exp(-((i - 5) ** 2) / (2 * 1.5 ** 2)) for i in range(11)]
    s = sum(g)
    return [v / s for v in g]


def filt(img, g):
    """'valid' 2-D filtering by the outer product of g with itself."""
    h, w = len(img), len(img[0])
    n = len(g)
    rows = [[sum(g[k] * r[x + k] for k in range(n)) for x in range(w - n + 1)] for r in img]
    return [[sum(g[k] * rows[y + k][x] for k in range(n)) for x in range(w - n + 1)]
            for y in range(h - n + 1)]


def scale_stats(a, b, g):
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mu_a, mu_b = filt(a, g), filt(b, g)
    aa = filt([[v * v for v in r] for r in a], g)
    bb = filt([[v * v for v in r] for r in b], g)
    ab = filt([[u * v for u, v in zip(ra, rb)] for ra, rb in zip(a, b)], g)
    cs_sum = ssim_sum = 0.0
    count = 0
    for y in range(len(mu_a)):
        for x in range(len(mu_a[0])):
            ma, mb = mu_a[y][x], mu_b[y][x]
            va, vb, cov = aa[y][x] - ma * ma, bb[y][x] - mb * mb, ab[y][x] - ma * mb
            cs = (2 * cov + c2) / (va + vb + c2)
            cs_sum += cs
            ssim_sum += cs * (2 * ma * mb + c1) / (ma * ma + mb * mb + c1)
            count += 1
    return cs_sum / count, ssim_sum / count


def downsample(img):
    h, w = len(img), len(img[0])
    out = []
    for y in range(0, h, 2):
        y1 = min(y + 1, h - 1)
        out.append([(img[y][x] + img[y][min(x + 1, w - 1)] + img[y1][x] + img[y1][min(x + 1, w - 1)]) / 4
                    for x in range(0, w, 2)])
    return out


def msssim(a, b):
    g = gaussian()
    value = 1.0
    for j, wj in enumerate(WEIGHTS):
        if j:
            a, b = downsample(a), downsample(b)
        cs, ssim = scale_stats(a, b, g)
        v = ssim if j == len(WEIGHTS) - 1 else cs
        value *= max(v, 0.0) ** wj
    return value


def main():
    a = [[float(ref(x, y)) for x in range(W)] for y in range(H)]
    b = [[float(dist(x, y)) for x in range(W)] for y in range(H)]
    print(f"{msssim(a, a):.12f} identical")
    print(f"{msssim(a, b):.12f} case")


if __name__ == "__main__":
    main()
