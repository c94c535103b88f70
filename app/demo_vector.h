/* The codestream that `xsflow demo` decodes, embedded at build time from
 * vectors/xs with its vectors/xs/MANIFEST.tsv entry (app/embed_vector.cmake
 * writes the definitions into the build tree). */
#ifndef XSF_APP_DEMO_VECTOR_H
#define XSF_APP_DEMO_VECTOR_H

#include <stddef.h>

extern const char demo_vector_name[];   /* e.g. "fmt_yuv422_10b" */
extern const char demo_vector_format[]; /* manifest format: yuv420, yuv422, yuv444, rgb */
extern const int demo_vector_width, demo_vector_height, demo_vector_depth;
extern const size_t demo_vector_decoded_bytes; /* manifest: bytes of the .yuv layout */
extern const char demo_vector_md5[];           /* manifest: MD5 of the .yuv layout */
extern const unsigned char demo_vector_data[];
extern const size_t demo_vector_size;

#endif
