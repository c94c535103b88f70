/* Output files of commands (common/include/xsf_output.h): a path checked
 * before a command runs (a new file in a folder that takes it, an existing
 * one, standard output, a FIFO and a device pass; a directory, a missing
 * folder and a file that may not be written are refused, and the check
 * leaves nothing behind), and what a failed command removes (its regular
 * file; never standard output, a device, a FIFO or a directory).
 * usage: test_output WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "xsf_output.h"

static int exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

static void test_check(const char *dir)
{
    char path[1024];
    xsf_error err;
    xsf_error_clear(&err);
    snprintf(path, sizeof path, "%s/new.y4m", dir);
    unlink(path);
    CHECK(xsf_output_check(path, &err) == XSF_OK && !exists(path), "a new file: '%s'", err.msg);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("kept", f);
        fclose(f);
    }
    struct stat sb;
    CHECK(xsf_output_check(path, &err) == XSF_OK && !stat(path, &sb) && sb.st_size == 4,
          "an existing file passes and is not truncated");
    CHECK(xsf_output_check("-", &err) == XSF_OK && xsf_output_check("/dev/null", &err) == XSF_OK,
          "standard output, a device");
    snprintf(path, sizeof path, "%s/fifo", dir);
    unlink(path);
    if (!mkfifo(path, 0600))
        CHECK(xsf_output_check(path, &err) == XSF_OK, "a FIFO nobody reads yet: '%s'", err.msg);
    xsf_error_clear(&err);
    CHECK(xsf_output_check(dir, &err) == XSF_ERR_IO && strstr(err.msg, "directory"),
          "a directory: '%s'", err.msg);
    snprintf(path, sizeof path, "%s/no-such-folder/out.yuv", dir);
    xsf_error_clear(&err);
    CHECK(xsf_output_check(path, &err) == XSF_ERR_IO && strstr(err.msg, "No such file"),
          "a missing folder: '%s'", err.msg);
    xsf_error_clear(&err);
    CHECK(xsf_output_check("/proc/xsflow-test.y4m", &err) == XSF_ERR_IO, "/proc: '%s'", err.msg);
    xsf_error_clear(&err);
    CHECK(xsf_output_check("", &err) != XSF_OK, "an empty path");
}

static void test_remove(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/partial.yuv", dir);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
    CHECK(xsf_output_remove(path) == 1 && !exists(path), "a regular file is removed");
    CHECK(xsf_output_remove(path) == 0, "a missing one: nothing");
    CHECK(xsf_output_remove("-") == 0 && xsf_output_remove(NULL) == 0, "standard output, NULL");
    CHECK(xsf_output_remove("/dev/null") == 0 && exists("/dev/null"), "a device stays");
    CHECK(xsf_output_remove(dir) == 0 && exists(dir), "a directory stays");
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(!exists(path) || (xsf_output_remove(path) == 0 && exists(path)), "a FIFO stays");
    unlink(path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_output WORK_DIR\n");
        return 2;
    }
    test_check(argv[1]);
    test_remove(argv[1]);
    return xsf_test_finish();
}
