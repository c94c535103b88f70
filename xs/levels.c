/* ISO/IEC 21122-2 levels and sublevels: which Plev a codestream needs and
 * whether the Plev it signals holds it.
 *
 * A level bounds the picture (width, height and samples of the sampling
 * grid); a sublevel bounds the codestream's bit rate in bits per pixel of
 * the picture's own wf x hf grid, not of the level's largest picture: that
 * is how the ISO reference model (XSM) checks a stream ("overall bit rate
 * exceeds allowed bit rate of sublevel"), and an encoder that signalled the
 * sublevel against the level's largest picture produced streams it refused.
 * The Full sublevel allows the profile's own bound (Nbpp at Full). The frame
 * rate, which the level's sample rate also bounds, is not in the codestream
 * and is not checked here. */
#include <stdint.h>

#include "xs.h"

/* Levels (Plev high byte): largest width, height and samples. 4k-3 and 8k-3
 * differ from 4k-2 and 8k-2 in the sample rate only. Smallest first. */
static const struct {
    uint8_t code;
    uint32_t w, h;
    uint64_t samples;
} levels[] = {
    {0x04, 1280, 5120, 2621440},   {0x10, 2048, 8192, 4194304},   {0x20, 4096, 16384, 8912896},
    {0x24, 4096, 16384, 16777216}, {0x28, 4096, 16384, 16777216}, {0x30, 8192, 32768, 35651584},
    {0x34, 8192, 32768, 67108864}, {0x38, 8192, 32768, 67108864}, {0x40, 10240, 40960, 104857600},
};

/* Sublevels (Plev low byte) with a fixed bound, smallest first; `derive`
 * marks those xs_plev_derive may choose. Sublev4bpp (0x06) is a valid
 * sublevel that a reader should accept, but the reference model (XSM 2.0)
 * refuses it as unknown, so the encoder signals Sublev6bpp instead. */
static const struct {
    uint8_t code;
    unsigned bpp;
    int derive;
} sublevels[] = {
    {XS_SUBLEVEL_2BPP, 2, 1}, {XS_SUBLEVEL_3BPP, 3, 1}, {XS_SUBLEVEL_4BPP, 4, 0},
    {XS_SUBLEVEL_6BPP, 6, 1}, {XS_SUBLEVEL_9BPP, 9, 1}, {XS_SUBLEVEL_12BPP, 12, 1},
};

/* Nbpp at the Full sublevel per profile (21122-2 Annex A): 2 x 10 bits for
 * the 4:2:2 10-bit profiles, 3 x 12 for 4:4:4 12-bit, 4 x 12 for 4:4:4:4,
 * 1.5 x 12 for 4:2:0, 64 for the Bayer profiles. */
static const struct {
    uint16_t ppih;
    unsigned bpp;
} full_bpp[] = {
    {0x0000, 128}, /* Unrestricted */
    {0x1500, 20},  /* Light 422.10 */
    {0x1a00, 36},  /* Light 444.12 */
    {0x2500, 20},  /* Light-Subline 422.10 */
    {0x3240, 18},  /* Main 420.12 */
    {0x3540, 20},  /* Main 422.10 */
    {0x3a40, 36},  /* Main 444.12 */
    {0x3e40, 48},  /* Main 4444.12 */
    {0x4a40, 36},  /* High 444.12 */
    {0x4e40, 48},  /* High 4444.12 */
    {0x6ec0, 48},  /* MLS.12 */
    {0x9300, 64},  /* Light Bayer */
    {0xb340, 64},  /* Main Bayer */
    {0xc340, 64},  /* High Bayer */
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

unsigned xs_sublevel_max_bpp(uint16_t ppih, uint8_t sublevel)
{
    if (sublevel == XS_SUBLEVEL_UNRESTRICTED)
        return UINT32_MAX;
    if (sublevel == XS_SUBLEVEL_FULL) {
        for (size_t i = 0; i < COUNT(full_bpp); i++)
            if (full_bpp[i].ppih == ppih)
                return full_bpp[i].bpp;
        return 0;
    }
    for (size_t i = 0; i < COUNT(sublevels); i++)
        if (sublevels[i].code == sublevel)
            return sublevels[i].bpp;
    return 0;
}

int xs_level_holds(uint8_t level, uint32_t wf, uint32_t hf)
{
    if (level == 0)
        return 1; /* Unrestricted */
    for (size_t i = 0; i < COUNT(levels); i++)
        if (levels[i].code == level)
            return wf <= levels[i].w && hf <= levels[i].h && (uint64_t)wf * hf <= levels[i].samples;
    return 0;
}

/* The pixels a bit rate is taken over: the sampling grid, or for the
 * Star-Tetrix transform (Cpih 3: four components of wf x hf from one colour
 * filter array) the array's 4 x wf x hf pixels, as the reference model does. */
static uint64_t rate_pixels(uint32_t wf, uint32_t hf, unsigned cpih)
{
    return (uint64_t)wf * hf * (cpih == 3 ? 4u : 1u);
}

/* bytes x 8 <= bpp x pixels; pixels < 2^34 and bpp <= 128 here. */
static int rate_holds(uint64_t codestream_bytes, uint64_t pixels, unsigned bpp)
{
    if (bpp == UINT32_MAX)
        return 1;
    return codestream_bytes <= UINT64_MAX / 8 && codestream_bytes * 8 <= (uint64_t)bpp * pixels;
}

xsf_status xs_plev_derive(uint16_t ppih, uint32_t wf, uint32_t hf, unsigned cpih,
                          uint64_t codestream_bytes, uint16_t *plev, xsf_error *err)
{
    int level = -1;
    for (size_t i = 0; i < COUNT(levels) && level < 0; i++)
        if (xs_level_holds(levels[i].code, wf, hf))
            level = levels[i].code;
    if (level < 0)
        return xsf_error_set(err, XSF_ERR_ARG, "a %ux%u picture exceeds every level", wf, hf);
    const uint64_t pixels = rate_pixels(wf, hf, cpih);
    for (size_t i = 0; i < COUNT(sublevels); i++)
        if (sublevels[i].derive && rate_holds(codestream_bytes, pixels, sublevels[i].bpp)) {
            *plev = (uint16_t)(level << 8 | sublevels[i].code);
            return XSF_OK;
        }
    const unsigned full = xs_sublevel_max_bpp(ppih, XS_SUBLEVEL_FULL);
    if (!full)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "profile Ppih=0x%04x has no known Full sublevel bound", ppih);
    if (!rate_holds(codestream_bytes, pixels, full))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "%llu bytes for a %ux%u picture (%.2f bpp) exceed the profile's Full "
                             "sublevel (%u bpp)",
                             (unsigned long long)codestream_bytes, wf, hf,
                             pixels ? (double)codestream_bytes * 8 / (double)pixels : 0.0, full);
    *plev = (uint16_t)(level << 8 | XS_SUBLEVEL_FULL);
    return XSF_OK;
}

xsf_status xs_plev_check(uint16_t ppih, uint16_t plev, uint32_t wf, uint32_t hf, unsigned cpih,
                         uint64_t codestream_bytes, xsf_error *err)
{
    const uint8_t level = (uint8_t)(plev >> 8), sub = (uint8_t)(plev & 0xff);
    int known = level == 0;
    for (size_t i = 0; i < COUNT(levels); i++)
        known |= levels[i].code == level;
    if (!known)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "Plev 0x%04x: level 0x%02x is not a 21122-2 level", plev, level);
    const unsigned bpp = xs_sublevel_max_bpp(ppih, sub);
    if (!bpp)
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "Plev 0x%04x: sublevel 0x%02x is not a 21122-2 sublevel%s", plev, sub,
                             sub == XS_SUBLEVEL_FULL ? " bound known for this profile" : "");
    uint16_t need = 0;
    xsf_error derr;
    xsf_error_clear(&derr);
    const xsf_status dst = xs_plev_derive(ppih, wf, hf, cpih, codestream_bytes, &need, &derr);
    if (!xs_level_holds(level, wf, hf))
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "Plev 0x%04x: level %s does not hold a %ux%u picture (it needs %s)",
                             plev, xs_level_name(plev), wf, hf,
                             dst == XSF_OK ? xs_level_name(need) : "more than any level");
    const uint64_t pixels = rate_pixels(wf, hf, cpih);
    if (!rate_holds(codestream_bytes, pixels, bpp))
        return xsf_error_set(err, XSF_ERR_INVALID,
                             "Plev 0x%04x: %llu bytes for a %ux%u picture are %.2f bpp, above the "
                             "%u bpp of sublevel %s (it needs %s)",
                             plev, (unsigned long long)codestream_bytes, wf, hf,
                             pixels ? (double)codestream_bytes * 8 / (double)pixels : 0.0, bpp,
                             xs_sublevel_name(plev),
                             dst == XSF_OK ? xs_sublevel_name(need)
                                           : "more than the Full sublevel");
    return XSF_OK;
}
