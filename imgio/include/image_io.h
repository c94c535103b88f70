/* Picture files of the xsflow program: writers for the decoder's output and
 * readers for the encoder's input.
 *
 * Formats:
 *  .yuv  raw planar, the layout of vectors/README.md: per frame, each
 *        component in order, full rows top to bottom at the component's
 *        own (subsampled) size; depth 8 as one byte, deeper as two bytes
 *        little-endian. No header: a reader is told the layout.
 *  .y4m  YUV4MPEG2: 1 (Cmono*) or 3 components (C420jpeg/C422/C444 and the
 *        pN tags for deeper samples, e.g. C422p10), samples stored as in .yuv;
 *        Ip, or It for woven interlaced frames (imgio_write_options.scan).
 *  .ppm  binary PPM (P6), R G B interleaved, maxval 2^depth - 1, two bytes
 *        big-endian per sample when the depth is above 8. Subsampled
 *        chroma is upsampled by sample replication and converted to RGB
 *        with the colour description of the higher source (xsf_colour.h:
 *        the user's over the SDP's over the codestream's) of the picture's
 *        and imgio_write_options.colour, through xsf_rgb_transform_make.
 *  .pgm  binary PGM (P5): the first component (luma) only.
 *
 * Pictures are xsf_picture (common/include/xsf_picture.h) in host memory,
 * any strides: XSF_PLANAR_U16 as above, or an output pixel format
 * (xsf_picture_convert), written where it fits and refused (with the
 * formats that take it) where it does not:
 *  .yuv  every format: its planes in order, each row xsf_format_row_bytes
 *        long (tightly packed), as they are in memory (little-endian words
 *        and samples, pgroup's bytes, float32 of the host);
 *  .y4m  planar8 (8-bit tags) and i420 (C420jpeg);
 *  .ppm  rgb48 as a 16-bit P6 (maxval 65535, big-endian as PPM wants),
 *        rgba and bgra as an 8-bit P6 (R G B, alpha dropped). The readers describe what the file
 * says of its colour, with source XSF_COLOUR_CODESTREAM (the file's own header): PPM is R'G'B' full
 * range, PGM full range, Y4M's range from its XCOLORRANGE tag (FULL or LIMITED) when present; .yuv
 * says nothing.
 *
 * Nothing here prints or exits; errors go to an xsf_error whose message
 * does not repeat the file name (the caller prefixes it). */
#ifndef XSF_IMGIO_IMAGE_IO_H
#define XSF_IMGIO_IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "xsf.h"
#include "xsf_colour.h"
#include "xsf_picture.h"

#define IMGIO_MAX_COMPONENTS XSF_MAX_COMPONENTS

/* Largest picture a reader accepts, in samples over all components. */
#define IMGIO_MAX_SAMPLES ((size_t)1 << 28)

typedef enum imgio_format {
    IMGIO_FORMAT_NONE = 0,
    IMGIO_FORMAT_YUV,
    IMGIO_FORMAT_Y4M,
    IMGIO_FORMAT_PPM,
    IMGIO_FORMAT_PGM,
} imgio_format;

/* The format named by a path's extension (case-insensitive), or NONE. */
imgio_format imgio_format_from_path(const char *path);
const char *imgio_format_name(imgio_format f);

/* "4:2:2", "4:2:0", "4:4:4", "4:0:0", "4:4:4:4", or "other": the component
 * sampling factors relative to component 0. */
const char *imgio_sampling_name(int nc, const int *sx, const int *sy);
/* Same, from a picture's plane sizes. */
const char *imgio_picture_sampling(const xsf_picture *pic);

/* How a frame was scanned: Y4M's I tag. */
typedef enum imgio_scan {
    IMGIO_SCAN_PROGRESSIVE = 0, /* Ip */
    IMGIO_SCAN_TOP_FIRST,       /* It: woven fields, the top field first (imgio_weave) */
} imgio_scan;

typedef struct imgio_write_options {
    imgio_format format;
    /* PPM only: what components 0, 1, 2 are (the codestream does not say;
     * ST 2110-22 carries it in the SDP), converted to R'G'B' by
     * xsf_rgb_transform_make as the display converts. The picture's own
     * description wins where its source is higher; XSF_COLOUR_DEFAULT on
     * both (a zeroed description included): BT.709 narrow range. */
    xsf_colour colour;
    unsigned fps_num, fps_den; /* Y4M frame rate; 0 = 25:1 */
    int frame_files;           /* PPM/PGM: one file per frame, "-NNNN" before the extension */
    imgio_scan scan;           /* Y4M: the interlace tag */
} imgio_write_options;

/* Whether `pic` can be written with these options; touches no file. */
xsf_status imgio_check(const imgio_write_options *opt, const xsf_picture *pic, xsf_error *err);

/* Bytes that hold `pic` in the .yuv layout. */
size_t imgio_yuv_frame_bytes(const xsf_picture *pic);

/* Streams `pic` in the .yuv layout to `sink` (called with pieces of at
 * most a few kilobytes); stops at the first non-zero return of `sink` and
 * returns it. */
typedef int (*imgio_sink)(void *ctx, const uint8_t *data, size_t len);
int imgio_yuv_serialize(const xsf_picture *pic, imgio_sink sink, void *ctx);

/* A writer of one output: frames are appended (.yuv, .y4m) or go to one
 * file each (frame_files). The file is created by the first imgio_write,
 * after the picture has passed imgio_check, so a refused format leaves no
 * empty file behind. Path "-" is standard output (.yuv and .y4m). */
typedef struct imgio_writer imgio_writer;

xsf_status imgio_writer_open(imgio_writer **w, const char *path, const imgio_write_options *opt,
                             xsf_error *err);
xsf_status imgio_write(imgio_writer *w, const xsf_picture *pic, xsf_error *err);
/* Flushes and closes; reports a failed flush. Frees `w` in every case. */
xsf_status imgio_writer_close(imgio_writer *w, xsf_error *err);
/* Closes without finishing, after a failure, and removes what it created:
 * the file, or every frame file so far (standard output, devices and FIFOs
 * stay: xsf_output_remove). Frees `w` (NULL: nothing). */
void imgio_writer_discard(imgio_writer *w);
/* Bytes written so far, over all files. */
uint64_t imgio_writer_bytes(const imgio_writer *w);
/* The path the last frame went to (differs from the given one with frame_files). */
const char *imgio_writer_last_path(const imgio_writer *w);
/* The name of frame file `frame` (from 0) of `path` with frame_files: "-NNNN" (at least four
 * digits) before the extension ("dir/out.ppm", 7: "dir/out-0007.ppm"). Returns the length of
 * the name (as snprintf: out holds it where it is below cap). */
size_t imgio_frame_path(const char *path, uint64_t frame, char *out, size_t cap);

/* Interlaced video: two field pictures woven into one frame. The first
 * field's rows become the frame's even lines (0, 2, 4...), the second's the
 * odd lines, component by component (RFC 9134 / SMPTE ST 2110-22 send the
 * field with the frame's top line first: write the frame with
 * IMGIO_SCAN_TOP_FIRST). Both fields need the same components, widths and
 * depths; the second may be one line less high than the first (an odd frame
 * height). */

/* Checks two fields and gives the samples their woven frame takes. Errors
 * (XSF_ERR_INVALID) name the component and both fields' shapes. */
xsf_status imgio_weave_size(const xsf_picture *first, const xsf_picture *second, size_t *samples,
                            xsf_error *err);
/* Weaves into `buf` (buf_samples samples, at least imgio_weave_size's) and
 * describes the frame in *frame, a view (ref NULL) whose planes point into
 * buf (rows packed), with the first field's colour. The fields are not
 * changed. */
xsf_status imgio_weave(const xsf_picture *first, const xsf_picture *second, uint16_t *buf,
                       size_t buf_samples, xsf_picture *frame, xsf_error *err);

/* The layout of a headerless .yuv file. */
typedef struct imgio_raw_layout {
    int width, height; /* of component 0 */
    int nc;            /* 1, 3, or 4 (4:4:4:4: the fourth at full size) */
    int sx, sy;        /* subsampling of components 1 and 2 (1 or 2) */
    int depth;         /* 1..16, all components */
} imgio_raw_layout;

/* Fills `layout` from a sampling name ("420", "422", "444", "4444", "mono"
 * or "400"; also with colons, "4:2:2"), a size and a depth. */
xsf_status imgio_raw_layout_make(imgio_raw_layout *layout, const char *sampling, int width,
                                 int height, int depth, xsf_error *err);

typedef struct imgio_reader imgio_reader;

/* Opens `path` ("-" is standard input) as `format`; `raw` describes a .yuv
 * file and is ignored for the others. */
xsf_status imgio_reader_open(imgio_reader **r, const char *path, imgio_format format,
                             const imgio_raw_layout *raw, xsf_error *err);
/* Reads the next frame into planes owned by the reader: *pic is a view
 * (ref NULL) valid until the next call, rows tightly packed, props.index the
 * frame's number. At the clean end of the file *pic is NULL and XSF_OK is
 * returned; a file that ends inside a frame is XSF_ERR_TRUNCATED. Samples
 * above the depth are XSF_ERR_INVALID. */
xsf_status imgio_read(imgio_reader *r, const xsf_picture **pic, xsf_error *err);
/* The format of every frame (planar16, rows as the file's), where the file fixes one
 * (.y4m: its header; .yuv: the layout): 1 and *fmt filled. 0 for .ppm and .pgm, each of
 * whose images says its own. */
int imgio_reader_format(const imgio_reader *r, xsf_format *fmt);
/* Reads the next frame into the caller's `pic`, whose planes stay the caller's (a ring of
 * pictures allocated once, pinned memory): samples, colour (the file's), props (index the
 * frame's number, the rest 0). *got 1 where a frame was read, 0 at the clean end of the
 * file (XSF_OK, pic untouched). For a .y4m or .yuv file `pic` is host or pinned memory of
 * imgio_reader_format's components, sizes and depths, planar16, or planar8 where the
 * samples are of 8 bits, each stride at least a row's bytes, else XSF_ERR_ARG before
 * anything is read (the reader stays usable); samples that lie in the file as in the picture
 * (16-bit little-endian into planar16 on a little-endian host, 8-bit into planar8) are read
 * straight into its planes, one call per group of rows where the rows are packed, with no
 * conversion pass and no allocation. A .ppm or .pgm image is read as imgio_read reads it
 * and copied into `pic`, whose format must equal the image's (else XSF_ERR_ARG, the image
 * consumed). The other errors are imgio_read's; after one the reader is of no further use. */
xsf_status imgio_read_into(imgio_reader *r, xsf_picture *pic, int *got, xsf_error *err);
void imgio_reader_close(imgio_reader *r);

/* The first frame of a file (opened as imgio_reader_open does) into a host
 * picture of its own: *pic (initialised or not) then holds one reference.
 * A file without a frame is XSF_ERR_INVALID ("no picture in the file"). */
xsf_status imgio_read_picture(const char *path, imgio_format format, const imgio_raw_layout *raw,
                              xsf_picture *pic, xsf_error *err);

/* Reads a whole file ("-": standard input) into memory the caller frees. */
xsf_status imgio_read_file(const char *path, uint8_t **data, size_t *len, xsf_error *err);

/* A whole file in memory: mapped where it is a regular file (no copy), read
 * otherwise ("-": standard input). */
typedef struct imgio_mapped {
    const uint8_t *data;
    size_t len;
    int mapped;
} imgio_mapped;
xsf_status imgio_map_file(const char *path, imgio_mapped *m, xsf_error *err);
void imgio_unmap_file(imgio_mapped *m);

#endif
