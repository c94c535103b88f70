/* Output files of commands (xsf_output.h). */
#define _POSIX_C_SOURCE 200809L

#include "xsf_output.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

xsf_status xsf_output_check(const char *path, xsf_error *err)
{
    if (!path || !*path)
        return xsf_error_set(err, XSF_ERR_ARG, "no output path");
    if (!strcmp(path, "-"))
        return XSF_OK;
    /* O_NONBLOCK: a FIFO without a reader says ENXIO instead of waiting for one. */
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return XSF_OK;
    }
    if (errno == ENXIO)
        return XSF_OK;
    if (errno == ENOENT) {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            close(fd);
            unlink(path);
            return XSF_OK;
        }
    }
    return xsf_error_set(err, XSF_ERR_IO, "cannot write the file: %s", strerror(errno));
}

int xsf_output_remove(const char *path)
{
    struct stat sb;
    if (!path || !*path || !strcmp(path, "-") || lstat(path, &sb) || !S_ISREG(sb.st_mode))
        return 0;
    return unlink(path) == 0;
}
