/* `xsflow compare`'s command line (compare.h): the knobs of a cmp_request, its
 * defaults, and the session's options it gives. */
#include <stddef.h>
#include <string.h>

#include "compare.h"
#include "xsf_parse.h"

void cmp_request_init(cmp_request *r)
{
    memset(r, 0, sizeof *r);
    r->gpu = -1;
    r->time_ms = 200;
    r->sampling = "444";
    r->depth = 8;
    r->peers = "auto";
}

void cmp_request_options(const cmp_request *r, cmp_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->rates = r->nrates ? r->rates : NULL;
    opt->nrates = r->nrates;
    opt->variants = r->variants;
    opt->path = r->gpu > 0 ? CMP_PATH_GPU : CMP_PATH_CPU;
    opt->time_ms = r->time_ms;
    opt->svt_enc = r->svt_enc;
    opt->svt_dec = r->svt_dec;
    opt->opj = r->opj;
    opt->peer_threads = r->peer_threads;
    opt->tune = r->tune;
}

static xsf_status parse_size(void *obj, const char *value, xsf_error *err)
{
    cmp_request *r = obj;
    return xsf_parse_size(value, 65535, &r->size[0], &r->size[1], err);
}

#define AT(field) offsetof(cmp_request, field)
const xsf_option cmp_knobs[] = {
    XSF_OPTION("gpu", XSF_OPTION_SET, AT(gpu), NULL,
               "the CUDA codecs: throughput of the kernels alone and with the\n"
               "PCIe transfers; each GPU-decoded picture is checked against\n"
               "the C reference decoder (the default where a GPU is usable)",
               .value = 1),
    XSF_OPTION("cpu", XSF_OPTION_SET, AT(gpu), NULL, "the C reference codecs, one thread",
               .value = 0),
    XSF_OPTION("time-ms", XSF_OPTION_DOUBLE, AT(time_ms), "MS",
               "repeat each timed call for at least MS ms, report the median\n(default 200; 0: "
               "one run)",
               .lo = 0, .hi = 3600000),
    XSF_OPTION("csv", XSF_OPTION_STRING, AT(csv), "OUT.csv",
               "one row per measurement ('-': standard output)"),
    XSF_OPTION("plot", XSF_OPTION_STRING, AT(plot), "DIR",
               "PSNR-over-bpp and throughput-over-bpp plots per picture, SVG\n"
               "and PNG, drawn by gnuplot (with its script and data)"),
    XSF_OPTION("gnuplot", XSF_OPTION_STRING, AT(gnuplot), "PROG",
               "the gnuplot to run (default: gnuplot from PATH); 'none':\n"
               "write the data and scripts only (gnuplot NAME.gp draws them)"),
    XSF_OPTION("size", XSF_OPTION_CALL, AT(size), "WxH", "the picture size of .yuv input",
               .parse = parse_size),
    XSF_OPTION("sampling", XSF_OPTION_STRING, AT(sampling), "S",
               ".yuv input: 444 (default), 422, 420 or mono"),
    XSF_OPTION("depth", XSF_OPTION_INT, AT(depth), "D", ".yuv input: bits per sample (default 8)",
               .lo = 1, .hi = 16),
    XSF_OPTION("peers", XSF_OPTION_STRING, AT(peers), "auto|none",
               "auto (default): the peers found join the rows (a line says\n"
               "which are missing); none: no peers"),
    XSF_OPTION("svt-enc", XSF_OPTION_STRING, AT(svt_enc), "PATH",
               "SVT-JPEG-XS's SvtJpegxsEncApp (default: on PATH;\n"
               "scripts/svt-build.sh builds it into .svt/)"),
    XSF_OPTION("svt-dec", XSF_OPTION_STRING, AT(svt_dec), "PATH",
               "SvtJpegxsDecApp, which must decode SVT's streams to xsflow's\n"
               "picture and is timed (default: next to --svt-enc, else on\n"
               "PATH; 'none': not used)"),
    XSF_OPTION("opj", XSF_OPTION_STRING, AT(opj), "LIB",
               "OpenJPEG's library, a path or a name (default libopenjp2.so.7)"),
    XSF_OPTION("peer-threads", XSF_OPTION_INT, AT(peer_threads), "N",
               "threads each peer runs on (default: every online CPU)", .lo = 0, .hi = 4096),
    XSF_OPTION("tune", XSF_OPTION_CHOICE, AT(tune), "T",
               "JPEG XS variants: gains and priorities for psnr (default) or\n"
               "visual (contrast sensitivity; xsflow encode --tune)",
               .choices = "psnr|visual"),
    XSF_OPTION("codec-help", XSF_OPTION_FLAG, AT(codec_help), NULL, "what each codec variant is"),
    XSF_OPTION("progress", XSF_OPTION_FLAG, AT(progress), NULL,
               "a line on standard error as each measurement ends", .short_name = 'v'),
    XSF_OPTION("quiet", XSF_OPTION_FLAG, AT(quiet), NULL, "no table on standard output",
               .short_name = 'q'),
    XSF_OPTION_TABLE_END};
#undef AT
