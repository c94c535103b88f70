/* The table of codecs (xsf_codecs.h). A new codec is its ops table in its
 * own folder and one line here. */
#include "xsf_codecs.h"

#include <string.h>

/* Defined in the codecs' folders (xs/codec_xs.c, bpc/codec_bpc.c). */
extern const xsf_codec xs_codec;
extern const xsf_codec bpc_codec;

static const xsf_codec *const codecs[] = {&xs_codec, &bpc_codec};
#define NCODECS (sizeof codecs / sizeof codecs[0])
_Static_assert(NCODECS <= XSF_CODECS_MAX, "raise XSF_CODECS_MAX");

/* Other names a configuration may use. */
static const struct {
    const char *alias, *name;
} aliases[] = {
    {"xs", "jpeg-xs"}, {"jpegxs", "jpeg-xs"}, {"bpc", "bpc-paco"}, {"bpcpaco", "bpc-paco"}};

const xsf_codec *xsf_codec_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t k = 0; k < sizeof aliases / sizeof aliases[0]; k++)
        if (!strcmp(name, aliases[k].alias))
            name = aliases[k].name;
    for (size_t i = 0; i < NCODECS; i++)
        if (!strcmp(name, codecs[i]->name) || !strcmp(name, codecs[i]->extension))
            return codecs[i];
    return NULL;
}

const xsf_codec *xsf_codec_probe(const uint8_t *buf, size_t len)
{
    const xsf_codec *best = NULL;
    int best_score = 0;
    for (size_t i = 0; buf && i < NCODECS; i++) {
        const int score = codecs[i]->probe ? codecs[i]->probe(buf, len) : 0;
        if (score > best_score) {
            best = codecs[i];
            best_score = score;
        }
    }
    return best;
}

const xsf_codec *xsf_codec_iterate(unsigned *it)
{
    return *it < NCODECS ? codecs[(*it)++] : NULL;
}

int xsf_codec_index(const xsf_codec *codec)
{
    for (size_t i = 0; i < NCODECS; i++)
        if (codecs[i] == codec)
            return (int)i;
    return -1;
}

xsf_status xsf_codec_decode_picture(const uint8_t *buf, size_t len, xsf_picture *pic,
                                    xsf_error *err)
{
    xsf_picture_init(pic);
    const xsf_codec *codec = xsf_codec_probe(buf, len);
    if (!codec)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED, "not a codestream of a codec xsflow has");
    xsf_codec_frame frame;
    xsf_status st = codec->parse_header(buf, len, &frame, err);
    if (st != XSF_OK)
        return st;
    pic->fmt = frame.format;
    pic->colour = frame.colour;
    if ((st = xsf_picture_alloc(pic, NULL, err)) != XSF_OK)
        return st;
    void *dec = NULL;
    if ((st = codec->cpu_create(&dec, err)) == XSF_OK) {
        st = codec->cpu_decode(dec, &frame, NULL, buf, len, pic, err);
        codec->cpu_destroy(dec);
    }
    if (st != XSF_OK)
        xsf_picture_unref(pic);
    return st;
}
