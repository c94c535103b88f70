/* Live encoding: the pictures of a picture file or of standard input (.y4m,
 * .yuv, .ppm, .pgm: image_io.h's readers) coded one by one by a codec's
 * encoder (common/include/xsf_codec.h: the C encoder or the GPU one) and
 * handed out in order as they are made, as the RTP sender's frame source
 * (rtp_frame_source, rtp/include/rtp_sender.h): what `xsflow send IN.y4m
 * --bpp B` and `xsflow demo --raw` send.
 *
 * The queue: frame 0 is read and coded by pl_encode_open, on the caller's
 * thread (so that a file that is not a picture file, or settings the encoder
 * refuses, fail before anything is sent); then a thread of the feed's own
 * reads and codes each next frame into one of two codestream buffers while
 * the caller holds (sends) the one before, and waits once it is a frame
 * ahead. So the coding of frame n+1 overlaps the sending of frame n, and a
 * picture waits at most for the frame before it to leave: at most one frame
 * period of added latency where the encoder keeps up with the frame rate
 * (and the reader waits for the input meanwhile: a live pipe backs up).
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
#include "xsf_codec.h"

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
    pl_latency read;   /* time in the reader per frame (us): the thread's other work, so
                          the feed keeps up with a rate where read + encode < a frame */
    size_t rate_bytes; /* every codestream's size where the rate fixes it, else 0 */
    int device;        /* the configuration's: -1 the C encoder, else the GPU's */
} pl_encode_stats;

typedef struct pl_encode_feed pl_encode_feed;

/* Opens `in`, reads its first frame, makes the encoder for its format and codes it, then
 * starts the thread that codes the next ones. Errors: the reader's (a file that is not what
 * its name says, an empty one: "no frame to encode"), the encoder's refusal of the settings
 * or the picture (*refused 1: XSF_ERR_ARG or XSF_ERR_UNSUPPORTED, a usage error), "frame 0:
 * ..." from the encoder's call. Blocks while it codes (a GPU encoder allocates here). */
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

/* Stops the thread (a frame being coded is finished first), destroys the encoder, closes
 * the input; NULL is fine. */
void pl_encode_close(pl_encode_feed *f);

#ifdef __cplusplus
}
#endif
#endif
