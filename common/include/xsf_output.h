/* Output files of commands: what a command checks before it starts work,
 * and what it removes when it fails, so that a failed command leaves
 * nothing half-written behind (what users of dav1d, FFmpeg or srt expect
 * of a script's tools). "-" (standard output) is never checked or removed;
 * devices, FIFOs and directories are never removed.
 *
 * Nothing here prints. Thread-safe (no state). */
#ifndef XSF_OUTPUT_H
#define XSF_OUTPUT_H

#include "xsf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether `path` can be written, before anything is: an existing file is
 * opened for writing and closed (not truncated; a FIFO nobody reads yet
 * passes), a missing one is created and removed again (so the folder is
 * known to take it). XSF_ERR_IO naming why not ("is a directory", "No such
 * file or directory", ...). */
xsf_status xsf_output_check(const char *path, xsf_error *err);

/* Removes `path` where it is a regular file (not "-", NULL, a device, a FIFO
 * or a directory): the output a failed command created or truncated itself
 * and did not finish. 1 when a file was removed, else 0. */
int xsf_output_remove(const char *path);

#ifdef __cplusplus
}
#endif
#endif
