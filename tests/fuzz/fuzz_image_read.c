/* libFuzzer target: the picture readers of imgio/ (imgio_reader_open and
 * imgio_read) on arbitrary files: YUV4MPEG2 headers and frame headers,
 * Netpbm (P5/P6) headers with comments and maxvals, headerless .yuv.
 *
 * Input: one byte choosing the format (bits 0-1: .yuv, .y4m, .ppm, .pgm);
 * for .yuv three more bytes give the layout (width 1..64, height 1..64,
 * then sampling in bits 0-1: 420, 422, 444, mono, and depth 1..16 in bits
 * 2-5); the rest is the file, served from memory through a memfd so that
 * the reader runs its real stdio path. At most 8 frames are read.
 * Checks: nothing crashes, leaks or reads outside a plane (ASan); every
 * picture returned has planes of the sizes it states, holding no sample
 * above its depth (the readers promise XSF_ERR_INVALID instead); a reader
 * that returned an error is closed cleanly. Seeds: tests/fuzz/image_seeds. */
#define _GNU_SOURCE /* memfd_create */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "image_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_picture(const xsf_picture *pic)
{
    if (pic->fmt.nc < 1 || pic->fmt.nc > IMGIO_MAX_COMPONENTS)
        abort();
    for (int c = 0; c < pic->fmt.nc; c++) {
        if (pic->fmt.width[c] < 1 || pic->fmt.height[c] < 1 || pic->fmt.depth[c] < 1 ||
            pic->fmt.depth[c] > 16 || !pic->data[c] ||
            (pic->stride[c] / 2) < (size_t)pic->fmt.width[c])
            abort();
        const unsigned max = (1u << pic->fmt.depth[c]) - 1;
        for (int y = 0; y < pic->fmt.height[c]; y++)
            for (int x = 0; x < pic->fmt.width[c]; x++)
                if (xsf_picture_row16(pic, c, y)[(size_t)x] > max)
                    abort(); /* a sample above the depth was let through */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const imgio_format formats[4] = {IMGIO_FORMAT_YUV, IMGIO_FORMAT_Y4M, IMGIO_FORMAT_PPM,
                                            IMGIO_FORMAT_PGM};
    static const char *samplings[4] = {"420", "422", "444", "mono"};
    if (size < 1 || size > 1 << 20)
        return 0;
    const imgio_format format = formats[data[0] & 3];
    size_t head = 1;
    imgio_raw_layout layout = {0};
    xsf_error err;
    xsf_error_clear(&err);
    if (format == IMGIO_FORMAT_YUV) {
        if (size < 4)
            return 0;
        if (imgio_raw_layout_make(&layout, samplings[data[3] & 3], 1 + data[1] % 64,
                                  1 + data[2] % 64, 1 + (data[3] >> 2) % 16, &err) != XSF_OK)
            return 0; /* 4:2:0 and 4:2:2 need even sizes: not the reader's business */
        head = 4;
    }
    const int fd = memfd_create("fuzz_image_read", 0);
    if (fd < 0)
        abort();
    if (size > head && write(fd, data + head, size - head) != (ssize_t)(size - head))
        abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    imgio_reader *r;
    if (imgio_reader_open(&r, path, format, &layout, &err) == XSF_OK) {
        for (int frame = 0; frame < 8; frame++) {
            const xsf_picture *pic = NULL;
            if (imgio_read(r, &pic, &err) != XSF_OK || !pic)
                break;
            check_picture(pic);
        }
        imgio_reader_close(r);
    }
    close(fd);
    return 0;
}
