/* xsflow info: what the headers of a .jxs file say, frame by frame
 * (xs_header_describe). Reads the marker segments and walks the slices by
 * their lengths; decodes no coefficient. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "image_io.h"
#include "xs.h"
#include "xsf_cli.h"
#include "xsf_codecs.h"

/* The printers of the codecs other than JPEG XS (whose is below), by codec
 * name: the input's codec is found by probing its first bytes. */
static const struct {
    const char *codec;
    int (*info)(int argc, char **argv);
} other_codecs[] = {{"bpc-paco", bpc_cli_info}};

/* The printer of the input named on the command line (its first argument that is
 * not an option) where its first bytes are another codec's than JPEG XS; else NULL. */
static int (*other_info(int argc, char **argv))(int, char **)
{
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1])
            continue;
        FILE *f = strcmp(argv[i], "-") ? fopen(argv[i], "rb") : NULL;
        if (!f)
            return NULL;
        uint8_t head[64];
        const size_t n = fread(head, 1, sizeof head, f);
        fclose(f);
        const xsf_codec *codec = xsf_codec_probe(head, n);
        for (size_t k = 0; codec && k < sizeof other_codecs / sizeof other_codecs[0]; k++)
            if (!strcmp(codec->name, other_codecs[k].codec))
                return other_codecs[k].info;
        return NULL;
    }
    return NULL;
}

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

int cmd_info(int argc, char **argv)
{
    int (*info)(int, char **) = other_info(argc, argv);
    if (info)
        return info(argc, argv);
    const char *in = NULL;
    int all = 0, verbose = 0;
    const cli_option options[] = {
        CLI_OPT("all", 0, CLI_FLAG, &all, NULL, "print every frame in full"),
        CLI_OPT("verbose", 'v', CLI_FLAG, &verbose, NULL,
                "also print the weights table (gain and priority per band)"),
        CLI_TABLE_END};
    const cli_command cmd = {.name = "info",
                             .synopsis = "IN.jxs [--all] [-v]",
                             .about = about,
                             .options = options,
                             .input = &in};
    const int r = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (r >= 0)
        return r;
    if (!in) {
        cli_usage(&cmd, stderr);
        return 2;
    }
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
    free(data);
    return status;
}
