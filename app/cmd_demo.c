/* xsflow demo: decodes the conformance vector built into the program,
 * checks it against the MD5 of vectors/xs/MANIFEST.tsv, writes the picture
 * and says what it decoded. Needs no file and no network. */
#define _POSIX_C_SOURCE 200809L /* strdup, clock_gettime */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "demo_vector.h"
#include "image_io.h"
#include "jxs_file.h"
#include "md5.h"

#define DEMO_DEFAULT_OUT "xsflow-demo.y4m"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xsflow demo [OUT] [--cpu|--gpu] [-q]\n"
            "\n"
            "Decodes the JPEG XS codestream built into this program (vectors/xs/%s.jxs,\n"
            "%dx%d %s, %d bits), compares the MD5 of the result with the one in\n"
            "vectors/xs/MANIFEST.tsv (which two independent decoders agree on), and writes\n"
            "the picture to OUT (default " DEMO_DEFAULT_OUT "; .yuv, .y4m, .ppm or .pgm).\n"
            "Exits with 0 when the MD5 matches.\n"
            "\n"
            "options:\n"
            "  -o, --output OUT  same as OUT\n"
            "  --cpu             decode with the C reference decoder\n"
            "  --gpu             decode on the GPU (the default where a GPU is usable)\n"
            "  -q, --quiet       print nothing but errors\n",
            demo_vector_name, demo_vector_width, demo_vector_height, demo_vector_format,
            demo_vector_depth);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int cmd_demo(int argc, char **argv)
{
    const char *out = NULL;
    jxs_engine engine = JXS_ENGINE_AUTO;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (!(out = cli_option_value(argc, argv, &i)))
                return 2;
        } else if (!strcmp(arg, "--cpu")) {
            engine = JXS_ENGINE_CPU;
        } else if (!strcmp(arg, "--gpu")) {
            engine = JXS_ENGINE_GPU;
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            quiet = 1;
        } else if (arg[0] == '-' && arg[1]) {
            cli_error(arg, "unknown option of 'xsflow demo' (see --help)");
            return 2;
        } else if (!out) {
            out = arg;
        } else {
            cli_error(arg, "one output only (see --help)");
            return 2;
        }
    }
    if (!out)
        out = DEMO_DEFAULT_OUT;
    imgio_write_options opt = {.format = imgio_format_from_path(out)};
    if (opt.format == IMGIO_FORMAT_NONE) {
        cli_error(out, "unknown output format: name it .yuv, .y4m, .ppm or .pgm");
        return 2;
    }

    /* Decode. */
    char subject[64];
    snprintf(subject, sizeof subject, "built-in %s.jxs", demo_vector_name);
    jxs_file jf;
    if (jxs_file_init(&jf, demo_vector_data, demo_vector_size, engine) != XSF_OK) {
        cli_error(subject, "%s", jxs_file_error(&jf));
        return 1;
    }
    const char *engine_name = jxs_file_engine_name(&jf);
    imgio_picture pic;
    const xs_header *hdr;
    const double t0 = now_ms();
    if (jxs_file_decode(&jf, &pic, &hdr) != XSF_OK) {
        cli_error(subject, "%s", jxs_file_error(&jf));
        jxs_file_free(&jf);
        return 1;
    }
    const double decode_ms = now_ms() - t0;
    const size_t consumed = jf.offset;

    /* Check against the manifest. */
    app_md5 md5;
    char hex[33];
    app_md5_init(&md5);
    imgio_yuv_serialize(&pic, app_md5_sink, &md5);
    app_md5_final_hex(&md5, hex);
    const size_t bytes = imgio_yuv_frame_bytes(&pic);
    const int match = !strcmp(hex, demo_vector_md5) && bytes == demo_vector_decoded_bytes;

    /* Write. */
    xsf_error err;
    xsf_error_clear(&err);
    imgio_writer *w = NULL;
    xsf_status st = imgio_writer_open(&w, out, &opt, &err);
    if (st == XSF_OK)
        st = imgio_write(w, &pic, &err);
    const uint64_t written = w ? imgio_writer_bytes(w) : 0;
    const xsf_status close_st = imgio_writer_close(w, &err);
    if (st == XSF_OK)
        st = close_st;

    if (!quiet) {
        printf("xsflow demo: decoded the built-in JPEG XS codestream %s.jxs (%zu of %zu bytes)\n"
               "  with the %s decoder in %.1f ms\n",
               demo_vector_name, consumed, demo_vector_size,
               !strcmp(engine_name, "GPU") ? "GPU" : "C reference", decode_ms);
        printf("  picture   %dx%d, %d components, %s, %d bits; profile %s, level %s\n",
               pic.width[0], pic.height[0], pic.nc, imgio_picture_sampling(&pic), pic.depth[0],
               xs_profile_name(hdr->ppih), xs_level_name(hdr->plev));
        printf("  decoded   %zu bytes in .yuv layout, MD5 %s\n", bytes, hex);
        printf("  manifest  %zu bytes, MD5 %s (vectors/xs/MANIFEST.tsv)\n",
               demo_vector_decoded_bytes, demo_vector_md5);
        printf("  match     %s\n", match ? "yes" : "NO");
        if (st == XSF_OK)
            printf("  wrote     %s (%s, %llu bytes)\n", out, imgio_format_name(opt.format),
                   (unsigned long long)written);
        fflush(stdout);
    }
    jxs_file_free(&jf);
    if (st != XSF_OK) {
        cli_error(out, "%s", err.msg);
        return 1;
    }
    if (!match) {
        cli_error(subject, "decoded MD5 %s (%zu bytes) differs from the manifest's %s (%zu bytes)",
                  hex, bytes, demo_vector_md5, demo_vector_decoded_bytes);
        return 1;
    }
    return 0;
}
