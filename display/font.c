#include "font.h"

#include <string.h>

/* One glyph is five rows of three pixels, top row first, each row one octal
 * digit (4 = left pixel, 1 = right pixel). */
static const char font_chars[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.,:-+/%()=_#?";
static const uint16_t font_rows[] = {
    075557, 026227, 071747, 071717, 055711, 074717, 074757, 071122, 075757, 075717, /* 0-9 */
    025755, 065656, 034443, 065556, 074647, 074644, 034553, 055755, 072227, 011152, /* A-J */
    055655, 044447, 057755, 065555, 025552, 065644, 025563, 065655, 034216, 072222, /* K-T */
    055557, 055552, 055775, 055255, 055222, 071247,                                 /* U-Z */
    000002, 000024, 002020, 000700, 002720, 011244, 051245, 024442, 021112, 007070, /* .,:-+/%()= */
    000007, 057575, 071202,                                                         /* _#? */
};

static uint16_t glyph(char ch)
{
    if (ch >= 'a' && ch <= 'z')
        ch = (char)(ch - 'a' + 'A');
    else if (ch == '[')
        ch = '(';
    else if (ch == ']')
        ch = ')';
    if (ch == ' ')
        return 0;
    const char *p = ch ? strchr(font_chars, ch) : NULL;
    return p ? font_rows[p - font_chars] : font_rows[sizeof font_rows / sizeof font_rows[0] - 1];
}

void dsp_font_measure(const char *text, int *width, int *height)
{
    int cols = 0, lines = 1, col = 0;
    for (const char *s = text ? text : ""; *s; s++) {
        if (*s == '\n') {
            lines++;
            col = 0;
            continue;
        }
        if (++col > cols)
            cols = col;
    }
    *width = cols * DSP_FONT_CELL_W + 1;
    *height = lines * DSP_FONT_CELL_H + 1;
}

void dsp_font_draw(const char *text, uint8_t *mask, int width, int height)
{
    memset(mask, 0, (size_t)width * height);
    int x0 = 1, y0 = 1;
    for (const char *s = text ? text : ""; *s; s++) {
        if (*s == '\n') {
            x0 = 1;
            y0 += DSP_FONT_CELL_H;
            continue;
        }
        const uint16_t g = glyph(*s);
        for (int r = 0; r < 5; r++) {
            const int bits = (g >> (3 * (4 - r))) & 7;
            for (int c = 0; c < 3; c++) {
                const int x = x0 + c, y = y0 + r;
                if ((bits >> (2 - c)) & 1 && x < width && y < height)
                    mask[(size_t)y * width + x] = 255;
            }
        }
        x0 += DSP_FONT_CELL_W;
    }
}
