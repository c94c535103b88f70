/* xsflow info: what the headers of a file of codestreams say, frame by
 * frame: JPEG XS (xs_header_describe; reads the marker segments and walks
 * the slices by their lengths) or BPC-PaCo (bpc_info_describe), whichever
 * codec claims the file's first bytes. Decodes no coefficient. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpc.h"
#include "commands.h"
#include "image_io.h"
#include "xs.h"
#include "xsf_cli.h"
#include "xsf_codecs.h"

static const char about[] =
    "Prints what the headers of the first codestream say and how many codestreams\n"
    "(frames) the file holds; frames whose headers differ from the first are listed.\n";

static void print_frame(const xs_header *h, size_t bytes, unsigned long frame, size_t offset,
                        int verbose, const char *plev_warning)
{
    static char text[65536];
    printf("frame %lu: file bytes %zu..%zu (%zu bytes)\n", frame, offset, offset + bytes - 1,
           bytes);
    xs_header_describe(h, verbose, plev_warning, text, sizeof text);
    fputs(text, stdout);
}

/* The frames of a file of JPEG XS codestreams; the exit status. */
static int info_jxs(const char *in, const uint8_t *data, size_t len, int all, int verbose)
{
    xsf_error err;
    xs_header first;
    unsigned long frame = 0, differing = 0, plev_warnings = 0;
    char first_warning[XSF_ERRMSG_LEN + 32] = "";
    size_t off = 0;
    int status = 0;
    while (off < len) {
        xs_header h;
        size_t bytes = 0;
        xsf_error_clear(&err);
        const xsf_status st = xs_jxs_next(data, len, off, &bytes, &h, &err);
        if (st != XSF_OK) {
            fflush(stdout);
            if (frame == 0)
                cli_error(in, "%s", err.msg[0] ? err.msg : xsf_status_name(st));
            else
                cli_error(in, "frame %lu (file byte %zu): %s", frame, off,
                          err.msg[0] ? err.msg : xsf_status_name(st));
            status = 1;
            break;
        }
        if (frame == 0) {
            first = h;
            printf("%s: JPEG XS codestreams (ISO/IEC 21122-1)\n", in);
        }
        /* A Plev that does not hold the frame (21122-2: the level its size,
         * the sublevel its rate over its own samples): a warning, the frame
         * itself is readable. An unrestricted Plev holds everything. */
        xsf_error perr;
        xsf_error_clear(&perr);
        const int plev_bad =
            h.plev && xs_plev_check(h.ppih, h.plev, h.wf, h.hf, h.cpih, bytes, &perr) != XSF_OK;
        if (plev_bad && plev_warnings++ == 0)
            snprintf(first_warning, sizeof first_warning, "frame %lu: %s", frame, perr.msg);
        if (frame == 0 || all) {
            print_frame(&h, bytes, frame, off, verbose, plev_bad ? perr.msg : NULL);
        } else if (!xs_header_same(&h, &first)) {
            differing++;
            printf("frame %lu: file bytes %zu..%zu, headers differ from frame 0: %ux%u, %u "
                   "components, NLx %u, NLy %u (--all prints them)\n",
                   frame, off, off + bytes - 1, h.wf, h.hf, h.nc, h.nlx, h.nly);
        }
        off += bytes;
        frame++;
    }
    if (status == 0) {
        printf("%lu frame%s, %zu bytes", frame, frame == 1 ? "" : "s", len);
        if (frame > 1 && !all && differing)
            printf("; %lu with headers differing from frame 0", differing);
        else if (frame > 1 && !all)
            printf("; all with frame 0's headers");
        printf("\n");
    }
    if (plev_warnings) {
        fflush(stdout);
        fprintf(stderr,
                "xsflow: %s: warning: %lu frame%s signal%s a Plev that does not hold %s (%s)\n", in,
                plev_warnings, plev_warnings == 1 ? "" : "s", plev_warnings == 1 ? "s" : "",
                plev_warnings == 1 ? "it" : "them", first_warning);
    }
    return status;
}

/* The frames of a file of BPC-PaCo codestreams; the exit status. */
static int info_bpc(const char *in, const uint8_t *data, size_t len, int all)
{
    static char text[4096];
    size_t off = 0;
    unsigned long frame = 0;
    while (off < len) {
        bpc_info info;
        xsf_error err;
        xsf_error_clear(&err);
        if (bpc_parse_header(data + off, len - off, &info, &err) != XSF_OK) {
            fflush(stdout);
            cli_error(in, "frame %lu (file byte %zu): %s", frame, off, err.msg);
            return 1;
        }
        if (frame == 0)
            printf("%s: BPC-PaCo codestreams (xsflow bpc/FORMAT.md)\n", in);
        if (frame == 0 || all) {
            printf("frame %lu: file bytes %zu..%zu, version %d.%d\n", frame, off,
                   off + info.codestream_bytes - 1, info.version_major, info.version_minor);
            bpc_info_describe(&info, text, sizeof text);
            fputs(text, stdout);
        }
        off += info.codestream_bytes;
        frame++;
    }
    printf("%lu frame%s, %zu bytes\n", frame, frame == 1 ? "" : "s", len);
    return 0;
}

int cmd_info(int argc, char **argv)
{
    const char *in = NULL;
    int all = 0, verbose = 0;
    const cli_option options[] = {
        CLI_OPT("all", 0, CLI_FLAG, &all, NULL, "print every frame in full"),
        CLI_OPT("verbose", 'v', CLI_FLAG, &verbose, NULL,
                "also print the weights table (gain and priority per band)"),
        CLI_TABLE_END};
    const int r = cli_parse_input("info", "IN.jxs [--all] [-v]", about, options, &in, argc, argv);
    if (r >= 0)
        return r;
    uint8_t *data;
    size_t len;
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_read_file(in, &data, &len, &err) != XSF_OK) {
        cli_error(in, "%s", err.msg);
        return 1;
    }
    if (len == 0) {
        cli_error(in, "empty file");
        free(data);
        return 1;
    }
    /* The codec whose probe claims the first bytes (as it reads at most 64 of them). */
    const xsf_codec *codec = xsf_codec_probe(data, len < 64 ? len : 64);
    const int status = codec == xsf_codec_find("bpc-paco") ? info_bpc(in, data, len, all)
                                                           : info_jxs(in, data, len, all, verbose);
    free(data);
    return status;
}
