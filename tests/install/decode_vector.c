/* A user's program, built against the installed xsflow alone (its headers
 * under include/xsflow, libxsflow.so, through `pkg-config --cflags --libs
 * xsflow`): decodes a .jxs file with the C decoder (xs.h) and writes the
 * pictures in the .yuv layout (image_io.h). tests/install/check_install.cmake
 * builds it and compares the output's MD5 with vectors/xs/MANIFEST.tsv. */
#include <stdio.h>
#include <stdlib.h>

#include <image_io.h>
#include <xs.h>

static int to_file(void *ctx, const uint8_t *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: decode_vector IN.jxs OUT.yuv\n");
        return 2;
    }
    uint8_t *data;
    size_t len;
    xsf_error err;
    if (imgio_read_file(argv[1], &data, &len, &err) != XSF_OK) {
        fprintf(stderr, "decode_vector: %s\n", err.msg);
        return 1;
    }
    xs_decoder *dec;
    if (xs_decoder_create(&dec, NULL) != XSF_OK) {
        fprintf(stderr, "decode_vector: no decoder\n");
        free(data);
        return 1;
    }
    FILE *out = fopen(argv[2], "wb");
    int rc = out ? 0 : 1;
    if (!out)
        fprintf(stderr, "decode_vector: cannot create %s\n", argv[2]);
    unsigned frames = 0;
    for (size_t off = 0; rc == 0 && off < len; frames++) {
        size_t used;
        const xsf_picture *pic;
        if (xs_decode(dec, data + off, len - off, &used, &pic) != XSF_OK) {
            fprintf(stderr, "decode_vector: %s frame %u: %s\n", argv[1], frames,
                    xs_decoder_error(dec));
            rc = 1;
            break;
        }
        if (imgio_yuv_serialize(pic, to_file, out)) {
            fprintf(stderr, "decode_vector: cannot write %s\n", argv[2]);
            rc = 1;
            break;
        }
        off += used;
    }
    if (out && fclose(out) && rc == 0) {
        fprintf(stderr, "decode_vector: cannot write %s\n", argv[2]);
        rc = 1;
    }
    if (rc == 0)
        printf("decode_vector: %u frames of %s\n", frames, argv[1]);
    xs_decoder_destroy(dec);
    free(data);
    return rc;
}
