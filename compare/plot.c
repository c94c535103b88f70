/* xsflow compare --plot: per picture, a gnuplot data file and script, run
 * through gnuplot (a subprocess, in the output folder) to draw the
 * rate-distortion plot (PSNR over bpp) and the throughput plot (encode and
 * decode Gsamples/s over bpp) as SVG and PNG. gnuplot's own messages go to
 * NAME.log next to the plots. */
#define _POSIX_C_SOURCE 200809L /* mkdir */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare_internal.h"

#define PATH_LEN 4096

/* A file name from a picture name: letters, digits, '-', '_' and '.' kept. */
static void file_stem(const char *name, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < len; p++) {
        const int keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                         (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || (*p == '.' && n > 0);
        out[n] = keep ? *p : '_';
        n++;
    }
    out[n] = 0;
    if (!n)
        snprintf(out, len, "picture");
}

static const char *const colours[CMP_VARIANTS] = {"#1f4e9c", "#3aa0e8", "#b2182b", "#e6550d",
                                                  "#8c510a", "#2ca02c", "#756bb1"};

/* Series in the data file: for each variant, for each timing present, one
 * block (two blank lines apart) of "bpp psnr ssim enc_gs dec_gs lossless
 * ms_ssim".
 * Returns the number of blocks written; index[v][t] is each block's number
 * or -1. */
static int write_data(const cmp_session *s, const char *picture, FILE *f,
                      int index[CMP_VARIANTS][3])
{
    int blocks = 0;
    for (int v = 0; v < CMP_VARIANTS; v++)
        for (int t = 0; t < 3; t++) {
            index[v][t] = -1;
            int any = 0;
            for (size_t i = 0; i < cmp_session_rows(s); i++) {
                const cmp_row *r = cmp_session_row(s, i);
                if (strcmp(r->picture, picture) || (int)r->variant != v || (int)r->timing != t ||
                    !r->coded)
                    continue;
                if (!any) {
                    if (blocks)
                        fputs("\n\n", f);
                    fprintf(f,
                            "# %s %s, %s\n# bpp psnr_db ssim enc_gsamples dec_gsamples lossless "
                            "ms_ssim\n",
                            cmp_variant_codec(r->variant), cmp_variant_name(r->variant),
                            cmp_timing_name(r->timing));
                    index[v][t] = blocks++;
                    any = 1;
                }
                /* gnuplot skips "NaN" points; an exact picture has no finite PSNR. */
                const double psnr = isfinite(r->psnr_all) ? r->psnr_all : NAN;
                fprintf(f, "%.6f %.4f %.6f %.6f %.6f %d %.6f\n", r->bpp, psnr, r->ssim,
                        r->enc_gsamples, r->dec_gsamples, r->bpp_target <= 0, r->ms_ssim);
            }
        }
    return blocks;
}

static void series_title(FILE *f, int v, int t, int kinds)
{
    fprintf(f, "'%s %s%s%s'", cmp_variant_codec((cmp_variant)v), cmp_variant_name((cmp_variant)v),
            kinds > 1 ? ", " : "", kinds > 1 ? cmp_timing_name((cmp_timing)t) : "");
}

static void write_script(FILE *f, const cmp_row *first, const char *stem,
                         int index[CMP_VARIANTS][3])
{
    int kinds = 0;
    for (int t = 0; t < 3; t++) {
        int any = 0;
        for (int v = 0; v < CMP_VARIANTS; v++)
            any |= index[v][t] >= 0;
        kinds += any;
    }
    fprintf(f,
            "# gnuplot script written by xsflow compare --plot; run in this folder: gnuplot %s.gp\n"
            "data = '%s.dat'\n"
            "set grid\nset key outside right top\nset xlabel 'bits per pixel (bpp, spent)'\n"
            "set datafile missing 'NaN'\n",
            stem, stem);
    const int peers = index[CMP_SVT][CMP_TIMING_CPU] >= 0 || index[CMP_OPJ][CMP_TIMING_CPU] >= 0;
    char where[64];
    snprintf(where, sizeof where, "%s%s", first->path == CMP_PATH_GPU ? "GPU" : "C, one thread",
             peers ? "; peers: CPU, every core" : "");
    for (int pass = 0; pass < 2; pass++) {
        const char *ext = pass ? "png" : "svg";
        if (pass)
            fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                       "  set terminal pngcairo size 1100,650 font ',10'\n"
                       "} else {\n  set terminal png size 1100,650\n}\n");
        else
            fprintf(f, "set terminal svg size 1100,650 dynamic font ',11'\n");
        /* Rate-distortion: the quality does not depend on the timing kind. */
        fprintf(f,
                "set output '%s-rd.%s'\nset title \"%s (%dx%d, %d comp., %d bits): PSNR over "
                "rate\" noenhanced\n"
                "set ylabel 'PSNR (dB, all components)'\nset autoscale\nplot \\\n",
                stem, ext, first->picture, first->width, first->height, first->nc, first->depth);
        int n = 0;
        for (int v = 0; v < CMP_VARIANTS; v++) {
            int t = index[v][0] >= 0 ? 0 : (index[v][1] >= 0 ? 1 : 2);
            if (index[v][t] < 0)
                continue;
            fprintf(f,
                    "%s  data index %d using 1:($6 == 0 ? $2 : NaN) with linespoints lw 2 pt %d lc "
                    "rgb '%s' title ",
                    n++ ? ", \\\n" : "", index[v][t], 5 + v, colours[v]);
            series_title(f, v, t, 1);
        }
        fprintf(f, "\n");
        /* Throughput: encode and decode side by side, each timing kind. */
        fprintf(f,
                "set output '%s-speed.%s'\nset multiplot layout 1,2 title \"%s: throughput over "
                "rate (%s; "
                "lossless: the large unjoined points)\" noenhanced\n",
                stem, ext, first->picture, where);
        for (int dir = 0; dir < 2; dir++) {
            fprintf(f, "set title '%s'\nset ylabel 'Gsamples/s'\nset key %s\nplot \\\n",
                    dir ? "decode" : "encode", dir ? "outside bottom center horizontal" : "off");
            n = 0;
            for (int v = 0; v < CMP_VARIANTS; v++)
                for (int t = 0; t < 3; t++) {
                    if (index[v][t] < 0)
                        continue;
                    const int col = dir ? 5 : 4, dt = t == CMP_TIMING_TRANSFERS ? 2 : 1;
                    fprintf(f,
                            "%s  data index %d using 1:($6 == 0 ? $%d : NaN) with linespoints lw 2 "
                            "dt %d pt %d "
                            "lc rgb '%s' title ",
                            n++ ? ", \\\n" : "", index[v][t], col, dt, 5 + v, colours[v]);
                    series_title(f, v, t, kinds);
                    fprintf(f,
                            ", \\\n  data index %d using 1:($6 == 1 ? $%d : NaN) with points ps 2 "
                            "pt %d "
                            "lc rgb '%s' notitle",
                            index[v][t], col, 4 + v, colours[v]);
                }
            fprintf(f, "\n");
        }
        fprintf(f, "unset multiplot\nset output\n");
    }
}

/* mkdir -p: each missing folder of `path`. */
static int make_folders(const char *path)
{
    char buf[PATH_LEN];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return ENAMETOOLONG;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0755) && errno != EEXIST)
            return errno;
        *p = '/';
    }
    return mkdir(buf, 0755) && errno != EEXIST ? errno : 0;
}

xsf_status cmp_write_plots(const cmp_session *s, const char *dir, const char *gnuplot,
                           xsf_error *err)
{
    if (!gnuplot)
        gnuplot = "gnuplot";
    const int draw = strcmp(gnuplot, "none") != 0;
    char *const probe[] = {(char *)gnuplot, "--version", NULL};
    if (draw && cmp_spawn(NULL, NULL, probe) != 0)
        return xsf_error_set(
            err, XSF_ERR_UNSUPPORTED,
            "cannot run '%s' to draw the plots (install gnuplot: apt-get install gnuplot-nox, "
            "or scripts/install-deps.sh; --gnuplot none writes the scripts only)",
            gnuplot);
    const int e = make_folders(dir);
    if (e)
        return xsf_error_set(err, XSF_ERR_IO, "cannot create the folder %s: %s", dir, strerror(e));
    const char *done[256];
    size_t ndone = 0;
    for (size_t i = 0; i < cmp_session_rows(s); i++) {
        const cmp_row *first = cmp_session_row(s, i);
        int seen = 0;
        for (size_t k = 0; k < ndone; k++)
            seen |= !strcmp(done[k], first->picture);
        if (seen)
            continue;
        if (ndone == sizeof done / sizeof done[0])
            return xsf_error_set(err, XSF_ERR_ARG, "more than %zu pictures to plot", ndone);
        done[ndone++] = first->picture;
        char stem[CMP_NAME_LEN], path[PATH_LEN];
        file_stem(first->picture, stem, sizeof stem);
        int index[CMP_VARIANTS][3];
        snprintf(path, sizeof path, "%s/%s.dat", dir, stem);
        FILE *f = fopen(path, "w");
        if (!f)
            return xsf_error_set(err, XSF_ERR_IO, "%s: %s", path, strerror(errno));
        const int blocks = write_data(s, first->picture, f, index);
        if (fclose(f))
            return xsf_error_set(err, XSF_ERR_IO, "%s: %s", path, strerror(errno));
        if (!blocks)
            continue; /* nothing coded: nothing to draw */
        snprintf(path, sizeof path, "%s/%s.gp", dir, stem);
        if (!(f = fopen(path, "w")))
            return xsf_error_set(err, XSF_ERR_IO, "%s: %s", path, strerror(errno));
        write_script(f, first, stem, index);
        if (fclose(f))
            return xsf_error_set(err, XSF_ERR_IO, "%s: %s", path, strerror(errno));
        if (!draw)
            continue;
        char script[CMP_NAME_LEN + 8], log[CMP_NAME_LEN + 8];
        snprintf(script, sizeof script, "%s.gp", stem);
        snprintf(log, sizeof log, "%s.log", stem);
        char *const argv[] = {(char *)gnuplot, script, NULL};
        const int grc = cmp_spawn(dir, log, argv);
        if (grc != 0)
            return xsf_error_set(err, XSF_ERR_IO,
                                 "gnuplot failed on %s/%s (exit %d; its messages are in %s/%s)",
                                 dir, script, grc, dir, log);
    }
    return XSF_OK;
}
