/* libFuzzer target: the JPEG XS reader and C reference decoder on arbitrary
 * bytes, read as a file of codestreams one after the other. Seeds: the small
 * vectors of vectors/xs. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The structural readers on their own. */
    xs_header hdr;
    xsf_error err;
    xsf_error_clear(&err);
    (void)xs_parse_header(data, size, &hdr, &err);
    xs_layout layout;
    memset(&layout, 0, sizeof layout);
    xsf_error_clear(&err);
    if (xs_scan_layout(data, size, &layout, &err) == XSF_OK)
        xs_layout_free(&layout);

    /* Frame by frame, with one decoder (reconfigured when shapes change). */
    xs_decoder *dec = NULL;
    if (xs_decoder_create(&dec, NULL) != XSF_OK)
        return 0;
    size_t off = 0;
    while (off < size) {
        size_t consumed = 0;
        const xsf_picture *img = NULL;
        if (xs_decode(dec, data + off, size - off, &consumed, &img) != XSF_OK || consumed == 0 ||
            consumed > size - off)
            break;
        /* Touch the corners of every plane: a plane smaller than its
         * stated size shows up under ASan. */
        volatile unsigned sink = 0;
        for (int c = 0; c < img->fmt.nc; c++) {
            if (!img->data[c] || img->fmt.width[c] < 1 || img->fmt.height[c] < 1)
                continue;
            sink += ((uint16_t *)img->data[c])[0];
            sink +=
                ((uint16_t *)img->data[c])[(size_t)(img->fmt.height[c] - 1) * (img->stride[c] / 2) +
                                           (size_t)(img->fmt.width[c] - 1)];
        }
        (void)sink;
        off += consumed;
    }
    xs_decoder_destroy(dec);
    return 0;
}
