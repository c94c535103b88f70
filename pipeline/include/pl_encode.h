/* Live encoding: the pictures of a picture file or of standard input (.y4m,
 * .yuv, .ppm, .pgm: image_io.h's readers) coded one by one by a codec's
 * encoder (common/include/xsf_codec.h: the C encoder or the GPU one) and
 * handed out in order as they are made, as the RTP sender's frame source
 * (rtp_frame_source, rtp/include/rtp_sender.h): what `xsflow send IN.y4m
 * --bpp B` and `xsflow demo --raw` send.
 *
 * The queue: frame 0 is read and coded by pl_encode_open, on the caller's
 * thread (so that a file that is not a picture file, or settings the encoder
 * refuses, fail before anything is sent); then two threads of the feed's own
 * take over: a reader, which reads each next frame into one of two pictures
 * allocated once (imgio_read_into: no allocation and, where the file's
 * samples lie as the picture's, no conversion; pinned host memory for the
 * GPU encoder, so that its upload runs as DMA), and a coder, which codes each
 * frame read into one of two codestream buffers while the caller holds
 * (sends) the one before. The reader reads frame n + 1 while the coder codes
 * frame n and the caller sends frame n - 1, and each waits once it is a frame
 * ahead: the reader at most one frame ahead of the coder, the coder at most
 * one ahead of the frame handed out. So a frame costs the slower of the read
 * and the code, not their sum, and a picture waits at most for the frame
 * before it to leave: at most one frame period of added latency where both
 * keep up with the frame rate (a live pipe is read as its frames come, and
 * backs up while the reader waits).
 *
 * pl_encode_close waits for the frame being read or coded: a reader blocked
 * on a pipe that neither writes nor closes holds it.
 *
 * Nothing here prints. Messages do not repeat the input's name. */
#ifndef XSF_PIPELINE_PL_ENCODE_H
#define XSF_PIPELINE_PL_ENCODE_H

#include "image_io.h"
#include "pipeline.h"
#include "rtp.h"
#include "xsf_codec.h" /* and xsf_option.h, the knobs */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pl_encode_config {
    const char *in;               /* the picture file; "-": standard input */
    imgio_format format;          /* of `in` (imgio_format_from_path, or the caller's for "-") */
    imgio_raw_layout raw;         /* a .yuv input's layout */
    const xsf_codec *codec;       /* with an encoder */
    xsf_encode_settings settings; /* the rate and knobs; its format comes from the first
                                     frame, rgb is set for a .ppm input; options and params
                                     must outlive the feed */
    int device;                   /* -1: the C encoder; else the GPU encoder on this GPU */
    long max_frames;              /* <= 0: every frame */
} pl_encode_config;

typedef struct pl_encode_stats {
    uint64_t frames;   /* coded (handed out or waiting) */
    uint64_t bytes;    /* their codestreams' */
    xsf_format format; /* the pictures' */
    pl_latency encode; /* time in the encoder's call per frame (us): mean, p50, p99, max;
                          a GPU encoder's includes the picture's upload and the
                          codestream's download */
    pl_latency read;   /* time in the reader per frame (us), on a thread of its own: the
                          feed keeps up with a rate where read and encode each take
                          less than a frame (count: the frames read, at most one more
                          than those coded and the one being coded) */
    size_t rate_bytes; /* every codestream's size where the rate fixes it, else 0 */
    int device;        /* the configuration's: -1 the C encoder, else the GPU's */
} pl_encode_stats;

typedef struct pl_encode_feed pl_encode_feed;

/* Opens `in`, reads its first frame, makes the encoder for its format and codes it, then
 * starts the thread that codes the next ones. Errors: the reader's (a file that is not what
 * its name says, an empty one: "no frame to encode"), the encoder's refusal of the settings
 * or the picture (*refused 1: XSF_ERR_ARG or XSF_ERR_UNSUPPORTED, a usage error), "frame 0:
 * ..." from the encoder's call. Blocks while it codes (a GPU encoder allocates here, and
 * the pictures are pinned). */
xsf_status pl_encode_open(pl_encode_feed **f, const pl_encode_config *c, int *refused,
                          xsf_error *err);
/* The next codestream into *fr (rtp_source_frame: index its frame number, left unknown):
 * gives back the one handed out before, waits for the thread if it is not coded yet. NULL
 * cs after the last frame (or max_frames). A failure of a later frame ("frame N: ...") comes
 * after the frames before it. One caller thread. */
xsf_status pl_encode_next(pl_encode_feed *f, rtp_source_frame *fr, xsf_error *err);
/* The feed as the sender's source: next is pl_encode_next, max_bytes the rate's size (the
 * encoder's header op) where known, stats_json pl_encode_stats_json. */
void pl_encode_source(pl_encode_feed *f, rtp_frame_source *src);
/* The figures so far (any thread). */
void pl_encode_stats_get(pl_encode_feed *f, pl_encode_stats *st);
/* The figures as one JSON member, "encoder": {"engine": "gpu"|"cpu", "frames": N, "bytes": N,
 * "encode_us": {"mean": .., "p50": .., "p99": .., "max": ..}, "read_us": {"mean": ..,
 * "p99": .., "max": ..}} into out[cap] (NUL ended);
 * returns the length snprintf gives. */
int pl_encode_stats_json(pl_encode_feed *f, char *out, size_t cap);
/* The encoder a command asks for: want 0, the C encoder (*device -1); 1, the GPU encoder
 * (*device 0; XSF_ERR_UNSUPPORTED "no usable GPU..." where none is usable or the build has
 * no kernels); -1, the GPU encoder where one is usable, else the C encoder. */
xsf_status pl_encode_pick_device(const xsf_codec *codec, int want, int *device, xsf_error *err);

/* ---- live encoding as a command line asks for it (`xsflow send IN.y4m --bpp B`) ---- */

/* What standard input holds (pl_encode_request.input). */
enum { PL_ENCODE_INPUT_AUTO, PL_ENCODE_INPUT_JXS, PL_ENCODE_INPUT_Y4M, PL_ENCODE_INPUT_YUV };

typedef struct pl_encode_request {
    const xsf_codec *codec; /* with an encoder */
    double bpp;             /* > 0: the rate a picture input is coded at */
    int engine;             /* pl_encode_pick_device's want: -1, 0 or 1 */
    int frames, frames_given;
    int input;            /* PL_ENCODE_INPUT_*: what "-" holds */
    int size[2], depth;   /* a .yuv input's picture size and bits */
    const char *sampling; /* a .yuv input's sampling ("422"), as imgio_raw_layout_make reads it */
    int tune;             /* 1: the codec's knob tune=visual (JPEG XS), 0: its default */
} pl_encode_request;

/* engine -1, a .yuv input as the codec's encoder prefers it (yuv_depth, yuv_sampling),
 * the rest 0. */
void pl_encode_request_init(pl_encode_request *r, const xsf_codec *codec);

/* The knobs (xsf_option.h) on a pl_encode_request, as `xsflow send` takes them, under the
 * heading "live encoding (IN.y4m, IN.yuv, .ppm, .pgm):": bpp (above 0, at most 1024), cpu,
 * gpu, frames (1 to 2^30; sets frames_given), format (auto|jxs|y4m|yuv: input), size (WxH),
 * depth (1 to 16), tune (psnr|visual). */
extern const xsf_option pl_encode_knobs[];

/* What `in` holds: a picture file by its name (imgio_format_from_path), or for "-" the
 * request's input (auto: Y4M with a rate, else codestreams); IMGIO_FORMAT_NONE:
 * codestreams. */
imgio_format pl_encode_request_format(const pl_encode_request *r, const char *in);

/* The feed's configuration for `in` of `format` (device -1: the caller picks it with
 * pl_encode_pick_device): the rate, the frame limit, a .yuv input's layout (XSF_ERR_ARG
 * where imgio_raw_layout_make refuses it). */
xsf_status pl_encode_request_config(const pl_encode_request *r, const char *in, imgio_format format,
                                    pl_encode_config *c, xsf_error *err);

/* Stops the threads (a frame being read or coded is finished first), destroys the encoder,
 * closes the input; NULL is fine. */
void pl_encode_close(pl_encode_feed *f);

#ifdef __cplusplus
}
#endif
#endif
