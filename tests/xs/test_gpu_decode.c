/* The GPU decoder against the C decoder: every conformance vector (and the
 * UHD ones where present) must decode to identical samples, and corrupted
 * codestreams must be refused by both or decoded identically by both, never
 * crash. Exits 77 (skipped) where no GPU is present.
 * Usage: test_gpu_decode VECTOR_DIR [UHD_DIR] */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "../vector_manifest.h"
#include "xs.h"

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = NULL;
    if (n > 0 && cudaMallocHost((void **)&buf, (size_t)n) == cudaSuccess &&
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
        cudaFreeHost(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n > 0 ? (size_t)n : 0;
    return buf;
}

/* Decodes every frame of buf with both decoders; returns 1 if both agree
 * (same samples, or both refuse), 0 otherwise. *refused tells which. */
static int compare(xs_decoder *c, xs_gpu_decoder *g, const uint8_t *buf, size_t len,
                   const char *name, int *refused)
{
    size_t off = 0;
    *refused = 0;
    while (off < len) {
        size_t used_c = 0, used_g = 0;
        const xsf_picture *img = NULL;
        xsf_status sc = xs_decode(c, buf + off, len - off, &used_c, &img);
        xsf_status sg = xs_gpu_decode(g, buf + off, len - off, &used_g);
        uint16_t *planes[XS_MAX_COMPONENTS] = {0};
        if (sg == XSF_OK && sc == XSF_OK) {
            for (int k = 0; k < img->fmt.nc; k++)
                planes[k] =
                    malloc((size_t)img->fmt.width[k] * img->fmt.height[k] * sizeof(uint16_t));
            sg = xs_gpu_download(g, planes, 1);
        } else if (sg == XSF_OK) {
            sg = xs_gpu_sync(g);
        }
        int same = (sc == XSF_OK) == (sg == XSF_OK);
        if (!same)
            fprintf(stderr, "%s at byte %zu: C says '%s', GPU says '%s'\n", name, off,
                    sc ? xs_decoder_error(c) : "ok", sg ? xs_gpu_decoder_error(g) : "ok");
        if (sc == XSF_OK && sg == XSF_OK) {
            for (int k = 0; k < img->fmt.nc && same; k++) {
                const size_t n = (size_t)img->fmt.width[k] * img->fmt.height[k];
                for (size_t i = 0; i < n; i++) {
                    if (planes[k][i] != ((uint16_t *)img->data[k])[i]) {
                        fprintf(stderr, "%s component %d sample (%zu,%zu): GPU %u, C %u\n", name, k,
                                i % (size_t)img->fmt.width[k], i / (size_t)img->fmt.width[k],
                                planes[k][i], ((uint16_t *)img->data[k])[i]);
                        same = 0;
                        break;
                    }
                }
            }
            same = same && used_c == used_g;
            /* The GPU's picture: the same format and colour, in device memory. */
            const xsf_picture *gi = xs_gpu_decoder_picture(g);
            if (same &&
                (!gi || !xsf_format_equal(&gi->fmt, &img->fmt) || gi->memory != XSF_MEMORY_DEVICE ||
                 gi->device != 0 || memcmp(&gi->colour, &img->colour, sizeof gi->colour))) {
                fprintf(stderr,
                        "%s at byte %zu: the GPU picture's format, placement or colour differ\n",
                        name, off);
                same = 0;
            }
        }
        for (int k = 0; k < XS_MAX_COMPONENTS; k++)
            free(planes[k]);
        if (!same)
            return 0;
        if (sc != XSF_OK) {
            *refused = 1;
            return 1;
        }
        off += used_c;
    }
    return 1;
}

/* Corrupted copies tried per vector: fewer on the host emulation of CUDA
 * (tests/cuda_emu), where a decode takes a thousand times longer; every
 * vector is still decoded and compared whole. */
#ifdef XSF_TEST_EMULATED
#define CORRUPT_TRIALS 2
#else
#define CORRUPT_TRIALS 20
#endif

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* Every vector dir/MANIFEST.tsv lists (a missing or empty one fails);
 * returns the files compared, -1 without a manifest. */
static int run_dir(xs_decoder *c, xs_gpu_decoder *g, const char *dir, int corrupt)
{
    static vm_list names;
    if (vm_read(dir, &names) < 0) {
        printf("no vectors in %s (no MANIFEST.tsv): skipped\n", dir);
        return -1;
    }
    int files = 0;
    for (int i = 0; i < names.n; i++) {
        const char *name = names.name[i];
        char path[4096];
        if (!vm_check_file(dir, name, path, sizeof path))
            continue;
        size_t len;
        uint8_t *buf = read_file(path, &len);
        CHECK(buf != NULL, "cannot read %s", path);
        if (!buf)
            continue;
        int refused;
        CHECK(compare(c, g, buf, len, name, &refused) && !refused, "%s: GPU and C decoders differ",
              name);
        files++;
        if (corrupt && len < 200000) {
            /* Flip bits past the headers: both decoders refuse or agree. */
            xs_header h;
            xsf_error err = {0};
            size_t start = xs_parse_header(buf, len, &h, &err) == XSF_OK ? h.header_bytes : 0;
            for (int t = 0; t < CORRUPT_TRIALS; t++) {
                uint8_t *m;
                if (cudaMallocHost((void **)&m, len) != cudaSuccess)
                    break;
                memcpy(m, buf, len);
                for (int f = 0; f < 1 + t % 4; f++)
                    m[start + rnd() % (len - start)] ^= (uint8_t)(1u << (rnd() % 8));
                const int agree = compare(c, g, m, len, name, &refused);
                CHECK(agree, "%s corrupted (trial %d): decoders disagree", name, t);
                const char *dump = getenv("XSF_TEST_DUMP");
                if (!agree && dump) {
                    char out[4096];
                    snprintf(out, sizeof out, "%s/%s.trial%d.jxs", dump, name, t);
                    FILE *f = fopen(out, "wb");
                    if (f) {
                        fwrite(m, 1, len, f);
                        fclose(f);
                    }
                }
                cudaFreeHost(m);
            }
        }
        cudaFreeHost(buf);
    }
    printf("%s: %d files compared\n", dir, files);
    return files;
}

int main(int argc, char **argv)
{
    if (xs_gpu_available() != XSF_OK) {
        printf("no GPU: GPU decoder tests skipped\n");
        return XSF_TEST_SKIP;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s VECTOR_DIR [UHD_DIR]\n", argv[0]);
        return 2;
    }
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    xs_gpu_decoder *g = NULL;
    xs_decoder *c = NULL;
    CHECK(xs_gpu_decoder_create(&g, 0, stream, NULL) == XSF_OK, "cannot create the GPU decoder");
    CHECK(xs_decoder_create(&c, NULL) == XSF_OK, "cannot create the C decoder");
    if (!g || !c)
        return xsf_test_finish();
    CHECK(run_dir(c, g, argv[1], 1) > 0, "no vectors in %s", argv[1]);
    if (argc > 2)
        run_dir(c, g, argv[2], 0);
    /* Decoding from device memory, with and without a host copy of the
     * headers, gives the same picture as decoding from host memory. */
    {
        char vpath[4096];
        snprintf(vpath, sizeof vpath, "%s/tools_s2_sf1_vp2.jxs", argv[1]);
        size_t vlen;
        uint8_t *vbuf = read_file(vpath, &vlen);
        uint8_t *dbuf = NULL;
        if (vbuf && cudaMalloc((void **)&dbuf, vlen) == cudaSuccess &&
            cudaMemcpy(dbuf, vbuf, vlen, cudaMemcpyHostToDevice) == cudaSuccess) {
            size_t used;
            const xsf_picture *img;
            CHECK(xs_decode(c, vbuf, vlen, &used, &img) == XSF_OK, "C decode failed");
            for (int with_copy = 0; with_copy < 2; with_copy++) {
                uint16_t *planes[XS_MAX_COMPONENTS] = {0};
                for (int k = 0; k < img->fmt.nc; k++)
                    planes[k] =
                        calloc((size_t)img->fmt.width[k] * img->fmt.height[k], sizeof(uint16_t));
                CHECK(
                    xs_gpu_decode_device(g, dbuf, with_copy ? vbuf : NULL, vlen, &used) == XSF_OK &&
                        xs_gpu_download(g, planes, 1) == XSF_OK,
                    "device-memory decode (host copy %d): %s", with_copy, xs_gpu_decoder_error(g));
                int same = 1;
                for (int k = 0; k < img->fmt.nc; k++)
                    same &= !memcmp(planes[k], img->data[k],
                                    (size_t)img->fmt.width[k] * img->fmt.height[k] * 2);
                CHECK(same, "device-memory decode (host copy %d) differs from the C decoder",
                      with_copy);
                /* The device planes are pitched and hold the same rows. */
                const xsf_picture *gi = xs_gpu_decoder_picture(g);
                CHECK(gi && gi->stride[0] >= (size_t)gi->fmt.width[0] * 2, "bad device pitch");
                for (int k = 0; k < XS_MAX_COMPONENTS; k++)
                    free(planes[k]);
            }
        }
        cudaFree(dbuf);
        if (vbuf)
            cudaFreeHost(vbuf);
    }
    /* Truncated input is refused before anything is enqueued. */
    size_t len;
    char path[4096];
    snprintf(path, sizeof path, "%s/geom_32x16_444.jxs", argv[1]);
    uint8_t *buf = read_file(path, &len);
    if (buf) {
        for (size_t cut = 0; cut < len; cut += 7) {
            size_t used;
            CHECK(xs_gpu_decode(g, buf, cut, &used) != XSF_OK && xs_gpu_decoder_error(g)[0],
                  "codestream cut at %zu accepted", cut);
        }
        cudaFreeHost(buf);
    }
    xs_gpu_decoder_destroy(g);
    xs_decoder_destroy(c);
    cudaStreamDestroy(stream);
    return xsf_test_finish();
}
