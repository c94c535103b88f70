/* Runs a libFuzzer target on files without libFuzzer: each argument is a
 * file or a directory of files, fed once to LLVMFuzzerTestOneInput. Built as
 * replay_<target> when XSF_FUZZ is off, so that ctest replays the seed
 * corpus (and any crash file) in every build. */
#define _POSIX_C_SOURCE 200809L /* opendir */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 65536;
            uint8_t *b = realloc(buf, cap);
            if (!b) {
                fclose(f);
                free(buf);
                fprintf(stderr, "replay: out of memory for %s\n", path);
                return 1;
            }
            buf = b;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    /* An exact-size copy, so that a read past the input is caught by ASan. */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact) {
        memcpy(exact, buf, n);
        LLVMFuzzerTestOneInput(exact, n);
    }
    free(exact);
    free(buf);
    return exact ? 0 : 1;
}

static int replay(const char *path, int *files)
{
    struct stat st;
    if (stat(path, &st)) {
        fprintf(stderr, "replay: no such file or directory: %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        ++*files;
        return replay_file(path);
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: cannot read directory %s\n", path);
        return 1;
    }
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        bad |= replay(child, files);
    }
    closedir(d);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0, files = 0;
    for (int i = 1; i < argc; i++)
        bad |= replay(argv[i], &files);
    printf("replayed %d inputs\n", files);
    return bad || files == 0;
}
