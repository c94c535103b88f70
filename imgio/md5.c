#include "md5.h"

void app_md5_init(app_md5 *m)
{
    md5_init(&m->ctx);
}

void app_md5_update(app_md5 *m, const uint8_t *data, size_t len)
{
    md5_update(&m->ctx, len, data);
}

void app_md5_final_hex(app_md5 *m, char hex[33])
{
    static const char digits[] = "0123456789abcdef";
    uint8_t d[MD5_DIGEST_SIZE];
    md5_digest(&m->ctx, sizeof d, d);
    for (int i = 0; i < MD5_DIGEST_SIZE; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[2 * MD5_DIGEST_SIZE] = '\0';
}

int app_md5_sink(void *md5, const uint8_t *data, size_t len)
{
    app_md5_update(md5, data, len);
    return 0;
}
