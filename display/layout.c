/* Multiviewer grid: where each tile goes in the window. */
#include <string.h>

#include "display.h"

void dsp_layout_grid(int n, int win_w, int win_h, double aspect, int *cols, int *rows)
{
    if (n < 1)
        n = 1;
    if (!(aspect > 0))
        aspect = 16.0 / 9.0;
    int best_c = 1, best_r = n;
    double best_area = -1;
    for (int c = 1; c <= n; c++) {
        const int r = (n + c - 1) / c;
        if ((r - 1) * c >= n)
            continue; /* a whole empty row: the same grid with fewer rows exists */
        const double cw = (double)win_w / c, ch = (double)win_h / r;
        const double pw = cw / ch > aspect ? ch * aspect : cw;
        const double area = pw * (pw / aspect);
        /* c ascends, rows descend: a tie (within rounding) goes to the
         * later grid, the one with fewer rows. */
        if (area >= best_area * (1 - 1e-9)) {
            best_area = area;
            best_c = c;
            best_r = r;
        }
    }
    *cols = best_c;
    *rows = best_r;
}

dsp_rect dsp_layout_cell(int i, int cols, int rows, int win_w, int win_h)
{
    const int c = i % cols, r = i / cols;
    /* Edges at rounded multiples, so that the cells tile the window exactly. */
    const int x0 = (int)((long long)win_w * c / cols),
              x1 = (int)((long long)win_w * (c + 1) / cols);
    const int y0 = (int)((long long)win_h * r / rows),
              y1 = (int)((long long)win_h * (r + 1) / rows);
    return (dsp_rect){x0, y0, x1 - x0, y1 - y0};
}

dsp_rect dsp_layout_fit(dsp_rect cell, int pic_w, int pic_h)
{
    if (pic_w <= 0 || pic_h <= 0 || cell.w <= 0 || cell.h <= 0)
        return (dsp_rect){cell.x, cell.y, 0, 0};
    int w = cell.w, h = (int)((long long)cell.w * pic_h / pic_w);
    if (h > cell.h) {
        h = cell.h;
        w = (int)((long long)cell.h * pic_w / pic_h);
    }
    return (dsp_rect){cell.x + (cell.w - w) / 2, cell.y + (cell.h - h) / 2, w, h};
}

xsf_status dsp_convert_parse(const char *text, dsp_convert *out)
{
    static const char *const names[] = {"auto", "shader", "cuda"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(text, names[i])) {
            *out = (dsp_convert)i;
            return XSF_OK;
        }
    return XSF_ERR_ARG;
}
