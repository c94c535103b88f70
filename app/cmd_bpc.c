/* BPC-PaCo in the xsflow program: what `info` runs for files that start
 * with a BPC-PaCo codestream (`encode --codec bpc` takes the codec table's
 * encoder and `decode` the pipeline, as for .jxs files). A .bpc file holds
 * codestreams one after the other, one per frame, as a .jxs file does. */
#include <stdio.h>
#include <stdlib.h>

#include "bpc.h"
#include "commands.h"
#include "image_io.h"
#include "xsf_cli.h"

/* ---- info ---- */

static const char *colour_name(bpc_colour c)
{
    return c == BPC_COLOUR_RCT ? "RCT" : (c == BPC_COLOUR_ICT ? "ICT" : "none");
}

int bpc_cli_info(int argc, char **argv)
{
    const char *in = NULL;
    int all = 0, verbose = 0;
    const cli_option options[] = {
        CLI_OPT("all", 0, CLI_FLAG, &all, NULL, "print every frame in full"),
        CLI_OPT("verbose", 'v', CLI_FLAG, &verbose, NULL, "(no more for BPC-PaCo)"), CLI_TABLE_END};
    const cli_command cmd = {
        .name = "info", .synopsis = "IN.bpc [--all]", .options = options, .input = &in};
    const int r = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (r >= 0)
        return r;
    if (!in) {
        cli_error("info", "no input");
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
    size_t off = 0;
    unsigned long frame = 0;
    int status = 0;
    while (off < len) {
        bpc_info info;
        if (bpc_parse_header(data + off, len - off, &info, &err) != XSF_OK) {
            fflush(stdout);
            cli_error(in, "frame %lu (file byte %zu): %s", frame, off, err.msg);
            status = 1;
            break;
        }
        if (frame == 0)
            printf("%s: BPC-PaCo codestreams (xsflow bpc/FORMAT.md)\n", in);
        if (frame == 0 || all) {
            printf("frame %lu: file bytes %zu..%zu, version %d.%d\n", frame, off,
                   off + info.codestream_bytes - 1, info.version_major, info.version_minor);
            for (int c = 0; c < info.nc; c++)
                printf("  component %d: %dx%d, %d bits\n", c, info.width[c], info.height[c],
                       info.depth[c]);
            printf("  %d coding passes per bitplane, %s DWT, %d levels, colour transform %s\n",
                   (int)info.variant,
                   info.filter == BPC_FILTER_53 ? "5/3 reversible" : "9/7 irreversible",
                   info.levels, colour_name(info.colour));
            if (info.filter == BPC_FILTER_97)
                printf("  quantization step %g (8-bit units)\n", (double)info.qstep);
            if (info.tables_id)
                printf("  probability tables: external, id %08x\n", info.tables_id);
            else
                printf("  probability tables: built-in\n");
            printf("  %zu code blocks; header %zu, index %zu, data %zu bytes\n", info.codeblocks,
                   info.header_bytes, info.index_bytes, info.data_bytes);
        }
        off += info.codestream_bytes;
        frame++;
    }
    if (!status)
        printf("%lu frame%s, %zu bytes\n", frame, frame == 1 ? "" : "s", len);
    free(data);
    return status;
}
