/* xsflow compare: the readable table and the CSV. */
#include <math.h>
#include <string.h>

#include "compare.h"

const char cmp_csv_columns[] =
    "picture,width,height,components,depth,codec,variant,filter,levels_h,levels_v,qstep,colour,"
    "bpp_target,bytes,bpp,psnr_db,psnr_c0,psnr_c1,psnr_c2,psnr_c3,ssim,ms_ssim,exact,checked,path,"
    "timing,threads,enc_fps,dec_fps,enc_gsamples,dec_gsamples,enc_ms,dec_ms,runs,device,note";

static void rate_text(double bpp, char *buf, size_t len)
{
    if (bpp > 0)
        snprintf(buf, len, "%g", bpp);
    else
        snprintf(buf, len, "lossless");
}

/* A number for the CSV: empty when absent (NaN), "inf" when infinite. */
static void num(FILE *f, double v, const char *fmt)
{
    if (isnan(v))
        return;
    if (isinf(v)) {
        fputs("inf", f);
        return;
    }
    fprintf(f, fmt, v);
}

/* A CSV field, quoted when it holds a comma or a quote. */
static void text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

xsf_status cmp_write_csv(const cmp_session *s, FILE *f)
{
    fprintf(f, "%s\n", cmp_csv_columns);
    for (size_t i = 0; i < cmp_session_rows(s); i++) {
        const cmp_row *r = cmp_session_row(s, i);
        char rate[32];
        rate_text(r->bpp_target, rate, sizeof rate);
        text(f, r->picture);
        fprintf(f, ",%d,%d,%d,%d,%s,%s,%s,%d,%d,", r->width, r->height, r->nc, r->depth,
                cmp_variant_codec(r->variant), cmp_variant_name(r->variant), r->filter, r->levels_h,
                r->levels_v);
        num(f, r->qstep > 0 ? r->qstep : NAN, "%g");
        fprintf(f, ",%s,%s,", r->colour, rate);
        if (r->coded)
            fprintf(f, "%zu,%.6f", r->bytes, r->bpp);
        else
            fputc(',', f);
        fputc(',', f);
        num(f, r->psnr_all, "%.4f");
        for (int c = 0; c < CMP_MAX_COMPONENTS; c++) {
            fputc(',', f);
            num(f, r->psnr[c], "%.4f");
        }
        fputc(',', f);
        num(f, r->ssim, "%.6f");
        fputc(',', f);
        num(f, r->ms_ssim, "%.6f");
        fprintf(f, ",%d,%d,%s,%s,%d,", r->coded && r->exact, r->coded && r->checked,
                r->path == CMP_PATH_GPU ? "gpu" : "cpu", cmp_timing_name(r->timing), r->threads);
        num(f, r->enc_fps, "%.3f");
        fputc(',', f);
        num(f, r->dec_fps, "%.3f");
        fputc(',', f);
        num(f, r->enc_gsamples, "%.5f");
        fputc(',', f);
        num(f, r->dec_gsamples, "%.5f");
        fputc(',', f);
        num(f, r->coded ? r->enc_s * 1e3 : NAN, "%.4f");
        fputc(',', f);
        num(f, r->coded ? r->dec_s * 1e3 : NAN, "%.4f");
        fprintf(f, ",%d,", r->enc_runs < r->dec_runs ? r->enc_runs : r->dec_runs);
        text(f, r->device);
        fputc(',', f);
        text(f, r->note);
        fputc('\n', f);
    }
    return ferror(f) ? XSF_ERR_IO : XSF_OK;
}

static void cell(char *buf, size_t len, double v, const char *fmt)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (isinf(v))
        snprintf(buf, len, "inf");
    else
        snprintf(buf, len, fmt, v);
}

xsf_status cmp_write_table(const cmp_session *s, FILE *f)
{
    const char *picture = NULL;
    for (size_t i = 0; i < cmp_session_rows(s); i++) {
        const cmp_row *r = cmp_session_row(s, i);
        if (!picture || strcmp(picture, r->picture)) {
            picture = r->picture;
            fprintf(f, "\n%s: %dx%d, %d component%s, %d bits; %s (%s)\n", r->picture, r->width,
                    r->height, r->nc, r->nc == 1 ? "" : "s", r->depth,
                    r->path == CMP_PATH_GPU ? "GPU" : "C references, one thread", r->device);
            for (int v = 0; v < CMP_VARIANTS; v++)
                if (cmp_session_peer(s, (cmp_variant)v))
                    fprintf(f, "peer %s: %s\n", cmp_variant_codec((cmp_variant)v),
                            cmp_session_peer(s, (cmp_variant)v));
            fprintf(f,
                    "%-4s %-8s %-4s %-5s %-6s %-8s %-7s %-7s %-23s %-6s %-7s %-9s %9s %7s %9s %7s "
                    "%s\n",
                    "", "variant", "DWT", "lvls", "q", "target", "bpp", "PSNR", "per component",
                    "SSIM", "MS-SSIM", "timing", "enc fps", "Gs/s", "dec fps", "Gs/s", "check");
        }
        char rate[32], q[16], bpp[16], psnr[16], comp[64], ssim[16], ms[16], ef[16], eg[16], df[16],
            dg[16], lv[8], timing[16];
        rate_text(r->bpp_target, rate, sizeof rate);
        cell(q, sizeof q, r->qstep > 0 ? r->qstep : NAN, "%g");
        snprintf(lv, sizeof lv, "%d/%d", r->levels_h, r->levels_v);
        if (!r->coded) {
            fprintf(f, "%-4s %-8s %-4s %-5s %-6s %-8s not coded: %s\n",
                    cmp_variant_codec(r->variant), cmp_variant_name(r->variant), r->filter, lv, q,
                    rate, r->note);
            continue;
        }
        cell(bpp, sizeof bpp, r->bpp, "%.3f");
        cell(psnr, sizeof psnr, r->psnr_all, "%.2f");
        comp[0] = 0;
        for (int c = 0; c < r->nc && c < CMP_MAX_COMPONENTS; c++) {
            char one[16];
            cell(one, sizeof one, r->psnr[c], "%.2f");
            snprintf(comp + strlen(comp), sizeof comp - strlen(comp), "%s%s", c ? "/" : "", one);
        }
        cell(ssim, sizeof ssim, r->ssim, "%.4f");
        cell(ms, sizeof ms, r->ms_ssim, "%.4f");
        if (r->threads > 1)
            snprintf(timing, sizeof timing, "%s %dt", cmp_timing_name(r->timing), r->threads);
        else
            snprintf(timing, sizeof timing, "%s", cmp_timing_name(r->timing));
        cell(ef, sizeof ef, r->enc_fps, "%.1f");
        cell(eg, sizeof eg, r->enc_gsamples, "%.3f");
        cell(df, sizeof df, r->dec_fps, "%.1f");
        cell(dg, sizeof dg, r->dec_gsamples, "%.3f");
        fprintf(f,
                "%-4s %-8s %-4s %-5s %-6s %-8s %-7s %-7s %-23s %-6s %-7s %-9s %9s %7s %9s %7s %s\n",
                cmp_variant_codec(r->variant), cmp_variant_name(r->variant), r->filter, lv, q, rate,
                bpp, psnr, comp, ssim, ms, timing, ef, eg, df, dg,
                r->exact ? (r->checked ? "exact" : "exact, unchecked")
                         : (r->checked ? "ok" : "UNCHECKED"));
    }
    return ferror(f) ? XSF_ERR_IO : XSF_OK;
}
