/* xsflow compare's peers: other projects' encoders beside xsflow's, found
 * where the options say (or on PATH), each checked once when a session
 * starts, run on the CPU on every online core (peer_svt.c, peer_opj.c); and
 * what they share: running a program, a private folder for its files, the
 * planes of a picture in a file. */
#define _POSIX_C_SOURCE 200809L /* fork, execvp, waitpid, mkdtemp, sysconf */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare_internal.h"

int cmp_spawn(const char *dir, const char *log, char *const argv[])
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (dir && chdir(dir))
            _exit(126);
        const int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

xsf_status cmp_temp_dir(char *dir, size_t len, xsf_error *err)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    if ((size_t)snprintf(dir, len, "%s/xsf-compare-XXXXXX", tmp) >= len || !mkdtemp(dir))
        return xsf_error_set(err, XSF_ERR_IO, "cannot make a folder under %s: %s", tmp,
                             strerror(errno));
    return XSF_OK;
}

void cmp_temp_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        const struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char path[CMP_PATH_MAX];
            if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

void cmp_log_tail(const char *log, char *buf, size_t len)
{
    snprintf(buf, len, "no message");
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        /* Progress counters are rewritten with backspaces: keep what follows them. */
        const char *s = strrchr(line, '\b');
        s = s ? s + 1 : line;
        while (*s == ' ' || *s == '\t')
            s++;
        const size_t n = strcspn(s, "\r\n");
        if (n)
            snprintf(buf, len, "%.*s", (int)n, s);
    }
    fclose(f);
}

/* Sample bytes of component c in a .yuv file: 1 up to 8 bits, else 2. */
static size_t sample_bytes(const xsf_picture *pic, int c)
{
    return pic->fmt.depth[c] > 8 ? 2 : 1;
}

xsf_status cmp_write_planes(const char *path, const xsf_picture *pic, xsf_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return xsf_error_set(err, XSF_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    uint8_t *row = malloc(2 * (size_t)pic->fmt.width[0] + 2);
    int ok = row != NULL;
    for (int c = 0; ok && c < pic->fmt.nc; c++) {
        const size_t w = (size_t)pic->fmt.width[c], b = sample_bytes(pic, c);
        for (int y = 0; ok && y < pic->fmt.height[c]; y++) {
            const uint16_t *s = xsf_picture_row16(pic, c, y);
            for (size_t x = 0; x < w; x++) {
                row[b * x] = (uint8_t)(s[x] & 0xff);
                if (b == 2)
                    row[2 * x + 1] = (uint8_t)(s[x] >> 8);
            }
            ok = fwrite(row, b, w, f) == w;
        }
    }
    free(row);
    if (fclose(f) || !ok)
        return xsf_error_set(err, XSF_ERR_IO, "cannot write %s", path);
    return XSF_OK;
}

int cmp_planes_equal(const char *path, const xsf_picture *pic)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    uint8_t *row = malloc(2 * (size_t)pic->fmt.width[0] + 2);
    int same = row != NULL;
    for (int c = 0; same && c < pic->fmt.nc; c++) {
        const size_t w = (size_t)pic->fmt.width[c], b = sample_bytes(pic, c);
        for (int y = 0; same && y < pic->fmt.height[c]; y++) {
            const uint16_t *s = xsf_picture_row16(pic, c, y);
            same = fread(row, b, w, f) == w;
            for (size_t x = 0; same && x < w; x++)
                same = s[x] == (b == 2 ? (uint16_t)(row[2 * x] | row[2 * x + 1] << 8) : row[x]);
        }
    }
    same = same && fgetc(f) == EOF;
    free(row);
    fclose(f);
    return same;
}

/* `name` as a path to an executable: itself when it holds a '/', else the
 * first match in PATH. 0 when found. */
static int find_program(const char *name, char *out, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(out, len, "%s", name);
        return access(out, X_OK);
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        const size_t n = strcspn(p, ":");
        if ((size_t)snprintf(out, len, "%.*s/%s", (int)n, p, name) < len && n &&
            access(out, X_OK) == 0)
            return 0;
        p += n + (p[n] == ':');
    }
    snprintf(out, len, "%s", name);
    return -1;
}

void cmp_peers_init(cmp_peers *p, const cmp_options *opt)
{
    memset(p, 0, sizeof *p);
    find_program(opt->svt_enc ? opt->svt_enc : "SvtJpegxsEncApp", p->svt_enc, sizeof p->svt_enc);
    const char *dec = opt->svt_dec;
    if (!dec) {
        /* next to the encoder, else on PATH */
        const char *slash = strrchr(p->svt_enc, '/');
        if (slash &&
            (size_t)snprintf(p->svt_dec, sizeof p->svt_dec, "%.*s/SvtJpegxsDecApp",
                             (int)(slash - p->svt_enc), p->svt_enc) < sizeof p->svt_dec &&
            access(p->svt_dec, X_OK) == 0)
            dec = p->svt_dec;
        else
            dec = "SvtJpegxsDecApp";
    }
    if (dec != p->svt_dec &&
        (!strcmp(dec, "none") || find_program(dec, p->svt_dec, sizeof p->svt_dec)))
        p->svt_dec[0] = '\0';
    snprintf(p->opj, sizeof p->opj, "%s", opt->opj ? opt->opj : "libopenjp2.so.7");
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    p->threads = opt->peer_threads > 0 ? opt->peer_threads : (cpus > 0 ? (int)cpus : 1);
    cmp_cpu_name(p->cpu, sizeof p->cpu);
}

xsf_status cmp_peer_check(cmp_peers *p, cmp_variant v, xsf_error *err)
{
    if (v == CMP_SVT)
        return cmp_svt_check(p, err);
    if (v == CMP_OPJ)
        return cmp_opj_check(p, err);
    return xsf_error_set(err, XSF_ERR_ARG, "%s is no peer", cmp_variant_codec(v));
}

xsf_status cmp_peer_probe(cmp_variant v, const cmp_options *opt, char *about, size_t len,
                          xsf_error *err)
{
    cmp_peers *p = malloc(sizeof *p);
    if (!p)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory");
    cmp_peers_init(p, opt);
    const xsf_status st = cmp_peer_check(p, v, err);
    if (st == XSF_OK && about)
        snprintf(about, len, "%s", p->about[v]);
    free(p);
    return st;
}

xsf_status cmp_run_peer(cmp_job *job)
{
    if (job->variant == CMP_SVT)
        return cmp_svt_run(job);
    if (job->variant == CMP_OPJ)
        return cmp_opj_run(job);
    return xsf_error_set(&job->err, XSF_ERR_ARG, "%s is no peer", cmp_variant_codec(job->variant));
}
