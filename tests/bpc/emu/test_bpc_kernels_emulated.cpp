/* The CUDA code-block kernels (bpc/codeblock_kernels.cuh) run on the host
 * by warp emulation (cuda_emu.h) against the C reference coder: for every
 * variant, both filters and pictures of awkward shapes, the encoder kernel
 * must give the same bitplanes, pass counts, truncation points, distortions
 * and codewords as bpc_codeblock_encode, and the decoder kernel, at random
 * truncation points, the same dequantized coefficients as
 * bpc_codeblock_decode; corrupt data must be flagged as the C decoder
 * refuses it. Checks the kernels' logic where no GPU is present. */
#include "cuda_emu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "codeblock_kernels.cuh"
#include "colour_rules.h"

static int passed, failed;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            passed++;                                                                              \
        } else {                                                                                   \
            failed++;                                                                              \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static uint64_t rng = 0x5851f42d4c957f2dull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

struct picture {
    xsf_picture img;
    std::vector<uint16_t> data[BPC_MAX_COMPONENTS];
};

static void make_picture(picture &p, int nc, int w, int h, int depth)
{
    xsf_picture_init(&p.img);
    p.img.fmt.nc = nc;
    for (int c = 0; c < nc; c++) {
        const int cw = c == 3 ? (w + 1) / 2 : w;
        p.data[c].resize((size_t)cw * h);
        const int maxv = (1 << depth) - 1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < cw; x++) {
                int v = (int)(maxv * (0.5 + 0.35 * sin(x * 0.09 + c) * cos(y * 0.05)));
                if ((x / 17 + y / 9) % 5 == 0)
                    v = maxv - v;
                v += (int)(rnd() % (unsigned)(maxv / 12 + 1));
                p.data[c][(size_t)y * cw + x] = (uint16_t)(v < 0 ? 0 : (v > maxv ? maxv : v));
            }
        p.img.fmt.width[c] = cw;
        p.img.fmt.height[c] = h;
        p.img.fmt.depth[c] = depth;
        p.img.stride[c] = (size_t)cw * sizeof(uint16_t);
        p.img.data[c] = (uint8_t *)p.data[c].data();
    }
}

/* The kernels are made per variant. */
static void encode_kernel(const bpc_kenc_params &k)
{
    if (k.variant == 1)
        bpc_encode_kernel<1>(k);
    else if (k.variant == 2)
        bpc_encode_kernel<2>(k);
    else
        bpc_encode_kernel<3>(k);
}

static void decode_kernel(const bpc_kdec_params &k)
{
    if (k.variant == 1)
        bpc_decode_kernel<1>(k);
    else if (k.variant == 2)
        bpc_decode_kernel<2>(k);
    else
        bpc_decode_kernel<3>(k);
}

static void run_case(int variant, int filter, int nc, int w, int h, int depth, int levels)
{
    char what[128];
    snprintf(what, sizeof what, "%d passes %s %dx%d nc %d depth %d levels %d", variant,
             filter ? "9/7" : "5/3", w, h, nc, depth, levels);
    picture pic;
    make_picture(pic, nc, w, h, depth);
    bpc_params params;
    bpc_params_default(&params);
    params.variant = (bpc_variant)variant;
    params.filter = (bpc_filter)filter;
    params.levels = levels;
    params.qstep = 0.5f;
    bpc_layout lay;
    bpc_frontend fe;
    xsf_error err;
    xsf_error_clear(&err);
    memset(&fe, 0, sizeof fe);
    if (bpc_layout_init(&lay, &params, &pic.img.fmt, &err) || bpc_frontend_init(&fe, &lay, &err) ||
        bpc_frontend_run(&fe, &lay, &pic.img, &err)) {
        CHECK(0, "%s: front end: %s", what, err.msg);
        return;
    }
    const bpc_tables *tables = bpc_tables_builtin(filter);
    const size_t ncb = lay.ncb;

    /* per code block: slot, bound; per band: steps, bounds */
    std::vector<uint64_t> slot(ncb);
    uint64_t total = 0;
    for (size_t i = 0; i < ncb; i++) {
        const bpc_cb_desc &d = lay.cb[i];
        slot[i] = total;
        total +=
            bpc_codeblock_bound((int)d.w, (int)d.h, lay.comp[d.comp].band[d.band].planes_bound);
    }
    std::vector<float> inv(BPC_MAX_COMPONENTS * BPC_MAX_BANDS),
        half(BPC_MAX_COMPONENTS * BPC_MAX_BANDS);
    std::vector<uint8_t> bound(BPC_MAX_COMPONENTS * BPC_MAX_BANDS);
    for (int c = 0; c < lay.nc; c++)
        for (int b = 0; b < lay.comp[c].nbands; b++) {
            inv[c * BPC_MAX_BANDS + b] = 1.0f / lay.comp[c].band[b].step;
            half[c * BPC_MAX_BANDS + b] = lay.comp[c].band[b].step * 0.5f;
            bound[c * BPC_MAX_BANDS + b] = (uint8_t)lay.comp[c].band[b].planes_bound;
        }

    /* C reference */
    std::vector<uint8_t> ref(total + 1), got(total + 1, 0xa5);
    std::vector<bpc_codeblock_result> res(ncb);
    for (size_t i = 0; i < ncb; i++) {
        const bpc_cb_desc &d = lay.cb[i];
        const bpc_band &bd = lay.comp[d.comp].band[d.band];
        const bpc_band_probs probs =
            bpc_tables_band(tables, lay.variant, bd.level, bd.orient, lay.table_plane_offset);
        const size_t pw = (size_t)lay.width[d.comp];
        if (bpc_codeblock_encode(lay.variant, &probs, fe.q[d.comp] + (size_t)d.y0 * pw + d.x0, pw,
                                 (int)d.w, (int)d.h, ref.data() + slot[i],
                                 bpc_codeblock_bound((int)d.w, (int)d.h, bd.planes_bound), &res[i],
                                 &err)) {
            CHECK(0, "%s: C encode: %s", what, err.msg);
            return;
        }
    }

    /* emulated encoder kernel */
    std::vector<uint8_t> kplanes(ncb, 0xff), kpasses(ncb, 0xff);
    std::vector<uint32_t> kcw(ncb * BPC_MAX_PASSES);
    std::vector<int64_t> kdist(ncb * BPC_MAX_PASSES);
    int kerr = 0;
    bpc_kenc_params k;
    memset(&k, 0, sizeof k);
    k.cb = lay.cb;
    k.ncb = (uint32_t)ncb;
    k.variant = variant;
    k.filter = filter;
    for (int c = 0; c < lay.nc; c++) {
        k.plane[c] = filter ? fe.plane[c] : (const void *)fe.q[c];
        k.pitch[c] = (uint32_t)lay.width[c];
    }
    k.inv_step = inv.data();
    k.planes_bound = bound.data();
    k.table = &tables->p[variant - 1][0][0][0];
    k.plane_offset = lay.table_plane_offset;
    k.slot = slot.data();
    k.slots = got.data();
    k.planes_out = kplanes.data();
    k.passes_out = kpasses.data();
    k.pass_cw = kcw.data();
    k.pass_dist = kdist.data();
    k.error = &kerr;
    const unsigned blocks = (unsigned)((ncb * 32 + 127) / 128);
    emu_launch(blocks, 128, [&] { encode_kernel(k); });
    CHECK(kerr == 0, "%s: encoder kernel error %d", what, kerr);
    int bad = 0;
    for (size_t i = 0; i < ncb && !bad; i++) {
        const bpc_codeblock_result &r = res[i];
        const uint32_t cw = r.passes ? r.pass_codewords[r.passes - 1] : 0;
        if (kplanes[i] != r.planes || kpasses[i] != r.passes) {
            CHECK(0, "%s: code block %zu: kernel %d planes %d passes, C %d and %d", what, i,
                  kplanes[i], kpasses[i], r.planes, r.passes);
            bad = 1;
            break;
        }
        for (int p = 0; p < r.passes && !bad; p++)
            if (kcw[i * BPC_MAX_PASSES + p] != r.pass_codewords[p] ||
                kdist[i * BPC_MAX_PASSES + p] != r.pass_distortion[p]) {
                CHECK(0, "%s: code block %zu pass %d: kernel %u codewords %lld, C %u %lld", what, i,
                      p, kcw[i * BPC_MAX_PASSES + p], (long long)kdist[i * BPC_MAX_PASSES + p],
                      r.pass_codewords[p], (long long)r.pass_distortion[p]);
                bad = 1;
            }
        if (!bad && memcmp(got.data() + slot[i], ref.data() + slot[i], 2 * (size_t)cw)) {
            CHECK(0, "%s: code block %zu: codewords differ", what, i);
            bad = 1;
        }
    }
    if (!bad)
        passed++;

    /* decoder kernel at random truncation points (every pass for some) */
    for (int round = 0; round < 2 && !bad; round++) {
        std::vector<bpc_kdec_entry> entry(ncb);
        std::vector<uint8_t> data;
        for (size_t i = 0; i < ncb; i++) {
            const bpc_codeblock_result &r = res[i];
            int keep = r.passes;
            if (round == 1 && r.passes)
                keep = (int)(rnd() % (unsigned)(r.passes + 1));
            const uint32_t cw = keep ? r.pass_codewords[keep - 1] : 0;
            entry[i].offset = data.size();
            entry[i].codewords = cw;
            entry[i].planes = (uint8_t)r.planes;
            entry[i].passes = (uint8_t)keep;
            data.insert(data.end(), ref.begin() + (long)slot[i],
                        ref.begin() + (long)(slot[i] + 2 * (size_t)cw));
        }
        data.push_back(0); /* a valid pointer even when empty */
        std::vector<std::vector<uint32_t>> want(lay.nc), have(lay.nc);
        static int32_t recon[64 * 64];
        for (int c = 0; c < lay.nc; c++) {
            want[c].assign((size_t)lay.width[c] * lay.height[c], 0xdeadbeefu);
            have[c].assign((size_t)lay.width[c] * lay.height[c], 0x12345678u);
        }
        for (size_t i = 0; i < ncb; i++) {
            const bpc_cb_desc &d = lay.cb[i];
            const bpc_band &bd = lay.comp[d.comp].band[d.band];
            const bpc_band_probs probs =
                bpc_tables_band(tables, lay.variant, bd.level, bd.orient, lay.table_plane_offset);
            if (entry[i].passes == 0) {
                memset(recon, 0, sizeof recon);
            } else if (bpc_codeblock_decode(lay.variant, &probs, data.data() + entry[i].offset,
                                            2 * (size_t)entry[i].codewords, entry[i].planes,
                                            entry[i].passes, recon, 64, (int)d.w, (int)d.h, &err)) {
                CHECK(0, "%s: C decode of code block %zu: %s", what, i, err.msg);
                return;
            }
            const size_t pw = (size_t)lay.width[d.comp];
            for (uint32_t y = 0; y < d.h; y++)
                for (uint32_t x = 0; x < d.w; x++) {
                    uint32_t v;
                    if (filter) {
                        const float f = bpc_dequantize_float(recon[y * 64 + x],
                                                             half[d.comp * BPC_MAX_BANDS + d.band]);
                        memcpy(&v, &f, 4);
                    } else {
                        v = (uint32_t)bpc_dequantize_int(recon[y * 64 + x]);
                    }
                    want[d.comp][(d.y0 + y) * pw + d.x0 + x] = v;
                }
        }
        bpc_kdec_params kd;
        memset(&kd, 0, sizeof kd);
        kd.cb = lay.cb;
        kd.ncb = (uint32_t)ncb;
        kd.variant = variant;
        kd.filter = filter;
        for (int c = 0; c < lay.nc; c++) {
            kd.plane[c] = have[c].data();
            kd.pitch[c] = (uint32_t)lay.width[c];
        }
        kd.half_step = half.data();
        kd.table = &tables->p[variant - 1][0][0][0];
        kd.plane_offset = lay.table_plane_offset;
        kd.data = data.data();
        kd.entry = entry.data();
        int derr = 0;
        kd.error = &derr;
        emu_launch(blocks, 128, [&] { decode_kernel(kd); });
        CHECK(derr == 0, "%s: decoder kernel error %d", what, derr);
        for (int c = 0; c < lay.nc; c++)
            if (want[c] != have[c]) {
                size_t at = 0;
                while (want[c][at] == have[c][at])
                    at++;
                CHECK(0, "%s: round %d component %d differs first at %zu (%08x, C %08x)", what,
                      round, c, at, have[c][at], want[c][at]);
                bad = 1;
                break;
            }
        if (!bad)
            passed++;

        /* corrupt: one codeword less, or one more, for the largest block */
        if (round == 1) {
            size_t big = 0;
            for (size_t i = 0; i < ncb; i++)
                if (entry[i].codewords > entry[big].codewords)
                    big = i;
            if (entry[big].codewords > 1) {
                entry[big].codewords--;
                derr = 0;
                emu_launch(blocks, 128, [&] { decode_kernel(kd); });
                CHECK(derr != 0, "%s: short code block %zu not flagged", what, big);
                entry[big].codewords += 2;
                derr = 0;
                emu_launch(blocks, 128, [&] { decode_kernel(kd); });
                CHECK(derr != 0, "%s: long code block %zu not flagged", what, big);
            }
        }
    }
    bpc_frontend_free(&fe);
    bpc_layout_free(&lay);
}

int main(int argc, char **argv)
{
    const int quick = argc > 1 && !strcmp(argv[1], "quick");
    const int shapes[][2] = {{64, 64}, {77, 45}, {130, 129}, {33, 200}, {1, 1}, {5, 70}, {257, 65}};
    for (int v = 1; v <= 3; v++)
        for (int f = 0; f < 2; f++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                if (quick && s > 3)
                    break;
                const int nc = 1 + (int)((s + v) % 4);
                const int depth = f ? 8 + (int)(s % 5) : 6 + (int)(s % 11);
                run_case(v, f, nc, shapes[s][0], shapes[s][1], depth, (int)((s + f) % 7));
            }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
