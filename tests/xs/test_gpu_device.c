/* The CUDA device rule (common/include/xsf_cuda_device.h): no call of the GPU
 * encoder or decoder changes the caller's current device. With two or more
 * devices each context is made on another device than the caller's, which
 * every call must switch to and back from; with one, the device must stay
 * as it was. Skipped (77) without a GPU. The emulated build runs it with
 * two emulated devices (XSF_CUDA_EMU_DEVICES=2). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../test.h"
#include "xs.h"

static int current(void)
{
    int d = -1;
    if (cudaGetDevice(&d) != cudaSuccess)
        return -2;
    return d;
}

#define STILL_ON(caller, what)                                                                     \
    CHECK(current() == (caller), "%s: current device %d, the caller's was %d", what, current(),    \
          caller)

enum { W = 64, H = 32 };

/* One picture encoded and decoded (lossless) on `target` by a caller on `caller`. */
static void round_trip(int caller, int target)
{
    CHECK(cudaSetDevice(caller) == cudaSuccess, "cudaSetDevice(%d)", caller);
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    CHECK(xs_encoder_config_format(&cfg, "444", W, H, 10) == XSF_OK, "format");
    cfg.lossless = 1; /* the picture must come back exactly */
    uint16_t *planes = malloc(3 * W * H * sizeof *planes);
    uint16_t *out = malloc(3 * W * H * sizeof *out);
    if (!planes || !out) {
        CHECK(0, "out of memory");
        free(planes);
        free(out);
        return;
    }
    xsf_format fmt;
    memset(&fmt, 0, sizeof fmt);
    fmt.container = XSF_PLANAR_U16;
    fmt.nc = 3;
    uint8_t *data[3];
    size_t stride[3];
    for (int c = 0; c < 3; c++) {
        fmt.width[c] = W;
        fmt.height[c] = H;
        fmt.depth[c] = 10;
        uint16_t *plane = planes + (size_t)c * W * H;
        data[c] = (uint8_t *)plane;
        stride[c] = W * sizeof(uint16_t);
        for (int i = 0; i < W * H; i++)
            plane[i] = (uint16_t)((i * 7 + c * 300) % 1024);
    }
    xsf_picture pic;
    xsf_picture_init(&pic);
    xsf_picture_wrap(&pic, &fmt, data, stride, XSF_MEMORY_HOST, -1);

    xsf_error err;
    xsf_error_clear(&err);
    xs_gpu_encoder *enc = NULL;
    const xsf_status st = xs_gpu_encoder_create(&enc, &cfg, target, NULL, &err);
    CHECK(st == XSF_OK, "encoder on device %d: %s", target, err.msg);
    STILL_ON(caller, "xs_gpu_encoder_create");
    uint8_t *cs = NULL;
    size_t len = 0;
    if (enc) {
        CHECK(xs_gpu_encode(enc, &pic) == XSF_OK, "encode: %s", xs_gpu_encoder_error(enc));
        STILL_ON(caller, "xs_gpu_encode");
        CHECK(xs_gpu_encoder_sync(enc) == XSF_OK, "sync: %s", xs_gpu_encoder_error(enc));
        STILL_ON(caller, "xs_gpu_encoder_sync");
        const size_t cap = xs_gpu_encoder_max_bytes(enc);
        cs = malloc(cap ? cap : 1);
        CHECK(cs && xs_gpu_encoder_download(enc, cs, cap, &len, 1) == XSF_OK, "download: %s",
              xs_gpu_encoder_error(enc));
        STILL_ON(caller, "xs_gpu_encoder_download");
        xs_gpu_encoder_destroy(enc);
        STILL_ON(caller, "xs_gpu_encoder_destroy");
    }

    xs_gpu_decoder *dec = NULL;
    CHECK(xs_gpu_decoder_create(&dec, target, NULL, NULL) == XSF_OK, "decoder on device %d",
          target);
    STILL_ON(caller, "xs_gpu_decoder_create");
    if (dec && cs && len) {
        size_t used = 0;
        CHECK(xs_gpu_decode(dec, cs, len, &used) == XSF_OK && used == len, "decode: %s",
              xs_gpu_decoder_error(dec));
        STILL_ON(caller, "xs_gpu_decode");
        uint16_t *const host[XS_MAX_COMPONENTS] = {out, out + W * H, out + 2 * W * H};
        CHECK(xs_gpu_download(dec, host, 1) == XSF_OK, "download: %s", xs_gpu_decoder_error(dec));
        STILL_ON(caller, "xs_gpu_download");
        CHECK(memcmp(out, planes, 3 * W * H * sizeof *out) == 0, "the picture did not come back");
        /* The incremental calls: the whole codestream at once. */
        CHECK(xs_gpu_decode_begin(dec, cs, len) == XSF_OK, "begin: %s", xs_gpu_decoder_error(dec));
        STILL_ON(caller, "xs_gpu_decode_begin");
        CHECK(xs_gpu_decode_more(dec, cs, len) == XSF_OK, "more: %s", xs_gpu_decoder_error(dec));
        STILL_ON(caller, "xs_gpu_decode_more");
        CHECK(xs_gpu_decode_end(dec, cs, len, &used) == XSF_OK, "end: %s",
              xs_gpu_decoder_error(dec));
        STILL_ON(caller, "xs_gpu_decode_end");
        CHECK(xs_gpu_sync(dec) == XSF_OK, "sync: %s", xs_gpu_decoder_error(dec));
        STILL_ON(caller, "xs_gpu_sync");
        CHECK(xs_gpu_decode_begin(dec, cs, len) == XSF_OK, "begin: %s", xs_gpu_decoder_error(dec));
        xs_gpu_decode_abort(dec);
        STILL_ON(caller, "xs_gpu_decode_abort");
    }
    xs_gpu_decoder_destroy(dec);
    STILL_ON(caller, "xs_gpu_decoder_destroy");
    free(cs);
    free(planes);
    free(out);
}

int main(void)
{
    int n = 0;
    if (xs_gpu_available() != XSF_OK || cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        printf("skipped: no usable GPU\n");
        return XSF_TEST_SKIP;
    }
    printf("%d device(s)\n", n);
    /* Caller on the first device, contexts on the last, and the other way;
     * with one device both are device 0. */
    round_trip(0, n - 1);
    round_trip(n - 1, 0);
    round_trip(0, 0);
    return xsf_test_finish();
}
