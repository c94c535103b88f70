/* Fuzz target: the BPC-PaCo C decoder (bpc_decode) on every codestream of
 * the input, one after the other, and the header reader alone. Any input
 * must give a status, never a crash, a hang or a read outside the buffer.
 * Built as a libFuzzer binary with XSF_FUZZ=ON, else as replay_fuzz_bpc_decode
 * that ctest runs on the seeds in fuzz_bpc_seeds/. */
#include <stddef.h>
#include <stdint.h>

#include "bpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
volatile uint32_t bpc_fuzz_sink;
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bpc_decoder *dec;
    if (!dec && bpc_decoder_create(&dec, NULL) != XSF_OK)
        return 0;
    bpc_info info;
    xsf_error err;
    xsf_error_clear(&err);
    (void)bpc_parse_header(data, size, &info, &err);
    size_t off = 0;
    for (int frame = 0; frame < 8 && off < size; frame++) {
        const xsf_picture *img;
        size_t used = 0;
        if (bpc_decode(dec, data + off, size - off, &used, &img) != XSF_OK || used == 0)
            break;
        /* touch the output so that the sanitizers see every sample written */
        uint32_t sum = 0;
        for (int c = 0; c < img->fmt.nc; c++)
            for (int y = 0; y < img->fmt.height[c]; y++)
                sum += xsf_picture_row16(img, c, y)[(size_t)(img->fmt.width[c] - 1)];
        bpc_fuzz_sink += sum;
        off += used;
    }
    return 0;
}
