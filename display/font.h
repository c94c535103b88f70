/* A tiny embedded bitmap font for the tile labels and statistics: 3x5
 * pixel glyphs for digits, letters (upper case; lower case is drawn as
 * upper) and a little punctuation. */
#ifndef XSF_DISPLAY_FONT_H
#define XSF_DISPLAY_FONT_H

#include <stddef.h>
#include <stdint.h>

#define DSP_FONT_CELL_W 4 /* glyph plus one column of spacing */
#define DSP_FONT_CELL_H 6

/* The size of `text` drawn with a one-pixel margin (lines at '\n'). */
void dsp_font_measure(const char *text, int *width, int *height);
/* Draws `text` into an 8-bit mask of width x height (255 = ink). */
void dsp_font_draw(const char *text, uint8_t *mask, int width, int height);

#endif
