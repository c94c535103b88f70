/* The registry of xsflow's codecs: every codec of the build in one table
 * (JPEG XS, BPC-PaCo), found by name or by probing a codestream's first
 * bytes. The tables are static: nothing to create or free. */
#ifndef XSF_CODECS_H
#define XSF_CODECS_H

#include <stddef.h>
#include <stdint.h>

#include "xsf_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The codec of that name ("jpeg-xs", "bpc-paco"; also "xs", "jxs", "bpc"
 * and the file extensions), NULL for none. */
const xsf_codec *xsf_codec_find(const char *name);
/* The codec whose probe is the most sure that buf[0, len) starts one of its
 * codestreams, NULL where none claims it. */
const xsf_codec *xsf_codec_probe(const uint8_t *buf, size_t len);
/* The codecs one after the other: *it = 0 first; NULL after the last. */
const xsf_codec *xsf_codec_iterate(unsigned *it);
/* Decodes the first codestream of buf[0, len) with the C decoder of the
 * codec that claims it (xsf_codec_probe) into a host picture of its own:
 * *pic (initialised or not) then holds one reference, with the colour the
 * codestream describes. XSF_ERR_UNSUPPORTED when no codec claims the bytes. */
xsf_status xsf_codec_decode_picture(const uint8_t *buf, size_t len, xsf_picture *pic,
                                    xsf_error *err);
/* The codec's place in the table, 0 .. XSF_CODECS_MAX - 1 (-1: not registered). */
int xsf_codec_index(const xsf_codec *codec);
#define XSF_CODECS_MAX 4

#ifdef __cplusplus
}
#endif
#endif
