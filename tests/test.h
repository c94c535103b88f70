/* Minimal assertion helpers shared by the test programs. Each test program
 * prints one line per failed check and ends with "N passed, N failed"; its exit
 * status is non-zero if any check failed. GPU tests that find no device print
 * why and exit with XSF_TEST_SKIP, which ctest reports as skipped. */
#ifndef XSF_TEST_H
#define XSF_TEST_H

#include <stdio.h>
#include <stdlib.h>

#define XSF_TEST_SKIP 77

static int xsf_test_passed, xsf_test_failed;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            xsf_test_passed++;                                                                     \
        } else {                                                                                   \
            xsf_test_failed++;                                                                     \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static inline int xsf_test_finish(void)
{
    printf("%d passed, %d failed\n", xsf_test_passed, xsf_test_failed);
    return xsf_test_failed ? 1 : (xsf_test_passed ? 0 : 1);
}

#endif
