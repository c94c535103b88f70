/* MD5 of decoded output, for comparing with vectors/xs/MANIFEST.tsv. The
 * digest itself is GNU Nettle's (Debian package nettle-dev). */
#ifndef XSF_IMGIO_MD5_H
#define XSF_IMGIO_MD5_H

#include <stddef.h>
#include <stdint.h>

#include <nettle/md5.h>

typedef struct app_md5 {
    struct md5_ctx ctx;
} app_md5;

void app_md5_init(app_md5 *m);
void app_md5_update(app_md5 *m, const uint8_t *data, size_t len);
/* Writes 32 lowercase hex digits and a terminating NUL to hex[33]. */
void app_md5_final_hex(app_md5 *m, char hex[33]);

/* An imgio_sink (see image_io.h) that feeds an app_md5. */
int app_md5_sink(void *md5, const uint8_t *data, size_t len);

#endif
