/* xsflow service: the receiver behind `xsflow recv`, put together from the
 * libraries below it: RTP sources (rtp/, through the pipeline's RTP source),
 * one pipeline decoding every stream, and per stream a sink (a file writer,
 * a null sink, or a tile of a display window), with the statistics the
 * program prints (and writes as JSON) computed here. The program parses
 * arguments, fills the configuration and prints; it makes no decision of
 * its own about the streams.
 *
 * Life of a service: svc_recv_create (packet logs, sources, pipeline),
 * svc_recv_open_display, svc_recv_start (frame log, sinks, streams
 * started), then
 * svc_recv_wait in a loop (with svc_recv_report_due once a second), then
 * svc_recv_stop, svc_recv_join of every started stream, svc_recv_display_stop,
 * svc_recv_close_writer and svc_recv_close_packets of every
 * stream, svc_recv_destroy (svc_recv_finish does all of these). Errors are
 * reported as an svc_failure: what the message is about (a file, an option,
 * a stream) and the message, and whether the configuration asked for
 * something that cannot be (the program's usage error).
 *
 * The demo (svc_demo_run) sends a clip to this host over UDP loopback and
 * checks what the pipeline decodes of it against the C reference decoder.
 *
 * The player's source (svc_jxs_source) decodes a .jxs file picture by
 * picture for the display's player (display.h, dsp_play); svc_play is the
 * whole of `xsflow play` (a window, or one picture rendered offscreen).
 *
 * Threads: one thread drives a service (the sources and the pipeline run
 * threads of their own). Nothing here prints on its own (the _format functions
 * write to the FILE the caller gives); signals are the caller's. */
#ifndef XSF_SERVICE_H
#define XSF_SERVICE_H

#include <stdint.h>
#include <stdio.h>

#include "display.h"
#include "jxs_file.h"
#include "pipeline.h"
#include "pl_encode.h"
#include "rtp.h"
#include "xsf.h"
#include "xsf_colour.h"
#include "xsf_option.h"
#include "xsf_parse.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SVC_MAX_STREAMS PL_MAX_STREAMS

/* Where a stream's frames go. */
typedef enum svc_output {
    SVC_OUT_JXS = 0,     /* the codestreams (nothing decoded) */
    SVC_OUT_YUV,         /* decoded pictures, .yuv */
    SVC_OUT_Y4M,         /* decoded pictures, .y4m */
    SVC_OUT_NULL,        /* decoded into host memory, nothing written */
    SVC_OUT_NULL_DEVICE, /* decoded, left in GPU memory (the GPU engine only) */
    SVC_OUT_DISPLAY,     /* a tile of the display (svc_recv_config.display) */
    SVC_OUT_MD5          /* a line a picture (PL_WRITE_MD5) */
} svc_output;

typedef struct svc_stream_config {
    /* What messages about the stream's source name (its SDP file or ADDR:PORT as given);
     * NULL: the capture's path. */
    const char *name;
    /* ADDR:PORT as given for a socket (the label); NULL: the bound address. */
    const char *addr;
    pl_rtp_config rtp;      /* the receiver; packet_log is set here from `packets` */
    size_t max_frame_bytes; /* of a field or a progressive frame (x 2 for interlaced frames) */
    svc_output output;
    const char *out;     /* the output as given (messages); "-": standard output */
    const char *path;    /* the file written: `out`, or for SVC_OUT_MD5 what follows "md5:" */
    xsf_rate fps;        /* Y4M frame rate; num 0: 25 */
    const char *packets; /* a CSV line per packet into this file; NULL: none */
    xsf_colour colour;   /* the display's (source XSF_COLOUR_DEFAULT: nothing said) */
    /* The pictures' pixel format (svc_stream_request.pix_fmt): the pipeline's picture
     * request (pl_stream_config.pix_fmt, with svc_recv_config.colour where the user gave
     * one, else `colour`; an interlaced frame's fields each converted alone, then woven). */
    xsf_container pix_fmt;
    char filter[512]; /* pcap and capture: the BPF filter where rtp.filter is NULL */
    /* The SDP the stream came with (has_sdp): its first frames are compared with it
     * (rtp_sdp_compare), a difference given once as a warning (svc_recv_next_warning). */
    int has_sdp;
    rtp_sdp sdp;
    /* The legs of the stream (SMPTE ST 2022-7), in the order given: rtp.legs.n of them
     * (0: one leg). Each leg's file or interface (pcap, capture) and capture filter, which
     * svc_recv_create points rtp.legs at, and what messages about it say (its ADDR:PORT,
     * file or interface). */
    char leg_path[RTP_LEGS_MAX][256];
    char leg_filter[RTP_LEGS_MAX][512];
    char leg_name[RTP_LEGS_MAX][128];
} svc_stream_config;

typedef struct svc_recv_config {
    svc_stream_config stream[SVC_MAX_STREAMS];
    int nstreams;
    /* The decoder. Adjusted by svc_recv_create: codestreams alone (every output
     * SVC_OUT_JXS) with engine AUTO take one CPU thread; with streams decoded by
     * slices and no contexts_per_gpu, those streams + 2 contexts per GPU (at least 3);
     * gpu_sync_auto: spin while
     * the contexts are at most a quarter of the cores, else block; pinned_mib < 0:
     * 96 MiB a stream + 256 MiB pinned at start, less for a capture file under 48 MiB
     * (twice its size, and 16 times the captures' sizes for pictures where no stream is
     * live). */
    pl_config pl;
    int gpu_sync_auto;
    long pinned_mib;
    /* Sub-frame decoding (each frame's slices decoded on the GPU as they arrive):
     * 1 asked for (--slices: the GPU engine only, a usage error else); -1 never
     * (--whole-frames); 0 by default: for each live stream (a socket or a live capture,
     * not a capture file) whose output wants pictures (not .jxs), unless the engine is
     * --cpu (where no GPU turns out usable, the CPU engine takes those frames whole).
     * The stream's own decision is its rtp.slices. */
    int slices;
    unsigned queue;        /* frames per stream (0: the pipeline's default) */
    const char *frame_log; /* a CSV line per delivered frame, every stream; NULL: none */
    double warmup_s;       /* latencies leave out the first warmup_s seconds */
    /* The host's clock is locked to the plant's PTP (`--ptp`; CLOCK_TAI kept by phc2sys):
     * every stream's RTP timestamps are read as capture instants (ST 2110-10) and each
     * frame's capture-to-picture latency measured (pl_stream_config.capture_clock).
     * Without it, a stream whose SDP names a PTP clock (a=ts-refclk:ptp=...) is measured
     * so too, with a warning once that nothing declared the host's clock locked. */
    int ptp;
    /* SVC_OUT_DISPLAY: one window, a tile a stream. */
    int vsync;
    dsp_convert convert;
    const char *headless_ppm; /* render offscreen, write the last picture shown */
    int delay_ms;             /* playout delay */
    xsf_colour colour;        /* source XSF_COLOUR_USER: every tile's; else each stream's */
} svc_recv_config;

/* Defaults: no streams, vsync on, 40 ms delay, pinned_mib -1, gpu_sync_auto on. */
void svc_recv_config_init(svc_recv_config *c);
/* Whether stream sc of cfg is decoded by slices (svc_recv_config.slices). */
int svc_stream_slices(const svc_recv_config *cfg, const svc_stream_config *sc);

/* What failed: print as "SUBJECT: MESSAGE"; usage 1 when the configuration
 * asks for what cannot be (the program exits 2), else 0 (exits 1). */
typedef struct svc_failure {
    const char *subject; /* valid while the service (or its configuration) lives */
    xsf_error err;
    int usage;
} svc_failure;

/* A stream as a command line describes it: where its packets come from, as
 * given, and where its frames go. */
/* The legs of one stream (SMPTE ST 2022-7) are given as lists joined by commas: addr,
 * pcap, capture (one item a leg, in order), iface and source (one item for every leg, or
 * one a leg); or by an SDP whose media descriptions are grouped by a=group:DUP. */
typedef struct svc_stream_request {
    const char *addr;    /* ADDR:PORT: a socket to bind (and join, for a group); with pcap
                            or capture, the destination whose packets are taken */
    const char *sdp;     /* an SDP file (at most 64 KiB) describing the stream */
    const char *pcap;    /* a .pcap or .pcapng file, or */
    const char *capture; /* a live capture on this interface; neither: a socket */
    const char *filter;  /* pcap, capture: a BPF filter; NULL: "udp", with the address's
                            destination host and port (and the source's host) where known */
    const char *source;  /* this sender only (a source-specific join; unicast: the others'
                            datagrams dropped); NULL: the SDP's source filter, else any */
    const char *iface;   /* the interface to join the group on */
    int payload_type;    /* -1: the SDP's (without an SDP: any) */
    int ssrc_given;      /* this SSRC only */
    uint32_t ssrc;
    svc_output output; /* svc_stream_config's output, out, packets; fps (num 0: the SDP's) */
    const char *out;
    const char *packets;
    xsf_rate fps;
    /* The pixel format of the stream's pictures (XSF_PLANAR_U16: as decoded): what a file,
     * md5:, null or null:device output gets; not with .jxs output nor the display, which
     * shows planar16 (svc_stream_request_check refuses them). */
    xsf_container pix_fmt;
} svc_stream_request;

/* Fills *sc from a request: reads and parses the SDP file, takes the receiver's
 * configuration from it and the options `ro` (rtp_receiver_setup_from_sdp: its
 * bounds; ro->payload_type is the request's); from the SDP the address and the
 * source filter (where the request gives none), interlace, the frame rate (where the
 * request has none) and the colour (colorimetry, RANGE); the capture filter. `shared`
 * gives what every stream
 * shares (limits, timeouts, slices, copy threads, the socket's buffer size and GRO):
 * copied into sc->rtp before the stream's own settings. Codestreams written as they
 * come (SVC_OUT_JXS) get the depacketizer's structural check. Failures: the SDP file
 * (subject the file; an SDP too large, XSF_ERR_INVALID), an option out of its bounds
 * (subject the SDP file or "recv", usage), an address that does not parse (subject
 * the address, or "--source"; usage). */
xsf_status svc_stream_setup(svc_stream_config *sc, const svc_stream_request *req,
                            const rtp_receiver_options *ro, const pl_rtp_config *shared,
                            svc_failure *f);

/* The output an OUT names: "null" (SVC_OUT_NULL), "null:device", "md5:FILE"
 * (FILE not empty), else `format` where it is >= 0 (an svc_output the caller
 * was told), else by the extension: .jxs, .yuv or .y4m (XSF_ERR_ARG for any
 * other). */
xsf_status svc_output_from_name(const char *out, int format, svc_output *kind);

/* What every stream of a receiver shares, as a command line gives it. */
typedef struct svc_recv_limits {
    long frames;       /* stop each stream after this many whole frames; 0: never */
    double duration_s; /* stop after this long; 0: never */
    double timeout_s;  /* stop a stream after this long without a packet, once its first
                          came; 0: never */
    /* How long a socket or a live capture waits for its first packet: > 0 seconds, 0
     * forever; < 0 (the default): forever without `frames` (a service, or a run that
     * `duration_s` bounds), else timeout_s (a run that asks for frames gets its answer
     * in bounded time, as when the timeout counted from the start). */
    double wait_s;
    long reorder;             /* the reorder window, packets */
    long reorder_ms;          /* how long a missing packet is waited for */
    uint64_t max_frame_bytes; /* the largest codestream; 0: the SDP's bound, else 64 MiB */
    uint64_t rcvbuf;          /* the socket's receive buffer; 0: the source's default */
    int no_gro;               /* take datagrams one by one (no UDP GRO) */
    long copy_threads;        /* .pcap payload copy threads; -1: the source's choice */
    long queue;               /* frames per stream; 0: the pipeline's default */
    int gpu_sync_given;       /* cfg->pl.gpu_sync as given (else the service picks) */
    long dup_window_ms;       /* streams of several legs: the path skew tolerated (0: 50 ms); the
                                 reorder window is raised to cover it (rtp_receiver_cover_skew) */
} svc_recv_limits;

/* timeout 5 s, wait -1 (the default rule), reorder 512 packets and 20 ms, copy_threads -1,
 * the rest 0. */
void svc_recv_limits_init(svc_recv_limits *l);

/* What `xsflow recv`'s options set beside each stream's request: the service's
 * configuration, the limits the streams share, the JSON file of the figures and
 * whether the streams are shown (SVC_OUT_DISPLAY) instead of written. */
typedef struct svc_recv_options {
    svc_recv_config cfg;
    svc_recv_limits lim;
    const char *stats_json; /* rewritten once a second and at the end; NULL: none */
    int display;            /* the streams in a window, no outputs */
} svc_recv_options;

/* cfg and lim at their defaults (svc_recv_config_init, svc_recv_limits_init), no
 * JSON, no display. */
void svc_recv_options_init(svc_recv_options *o);

/* The knobs (xsf_option.h) on an svc_recv_options, as `xsflow recv` takes them
 * (--NAME, each bounded, with its help), in this order: the limits (frames, duration,
 * timeout, wait, reorder, reorder-ms, dup-window 1 to RTP_MERGE_WINDOW_MS_MAX, rcvbuf,
 * no-gro, max-frame-bytes); the decoder (cpu, gpu, gpus, contexts, gpu-sync, which sets
 * lim.gpu_sync_given, slices, threads); queue, pinned, copy-threads, stats-json,
 * frame-log, ptp, warmup; display and the display's (delay, no-vsync, convert, colour and
 * its hidden spelling color in xsf_colour.h's vocabulary, headless: offscreen, which
 * sets display). */
extern const xsf_option svc_recv_knobs[];

/* A stream's knobs on its svc_stream_request: filter, source, iface, pt (0 to 127),
 * ssrc (sets ssrc_given), fps (N, N/D, N:D or a decimal), pix-fmt (xsf_container_parse),
 * packets. payload_type's default, -1, is the caller's to set. */
extern const xsf_option svc_stream_request_knobs[];

/* Fills cfg's n streams from their requests (svc_stream_setup of each, with the
 * receiver's options and the shared configuration of `l` and cfg->slices), then
 * cfg->nstreams, queue and gpu_sync_auto. The first failure ends it (as
 * svc_stream_setup's). */
xsf_status svc_recv_setup(svc_recv_config *cfg, const svc_stream_request *const *req, int n,
                          const svc_recv_limits *l, svc_failure *f);

/* Checks a request as a command line gives it and settles its output: it
 * has a source (ADDR:PORT, an SDP file, a capture file or a live capture;
 * not ADDR:PORT and an SDP both); with `display`, no out and the output
 * SVC_OUT_DISPLAY; else an out, whose output svc_output_from_name gives
 * (`format` as there). Failures are usage errors (XSF_ERR_ARG) about `what`
 * (the stream, as messages name it; an unknown output format: the out). */
xsf_status svc_stream_request_check(svc_stream_request *r, int display, int format,
                                    const char *what, svc_failure *f);

typedef struct svc_recv svc_recv;

/* Checks that each stream's output file can be written (xsf_output_check:
 * subject the output), opens each stream's packet log and source (sockets
 * bind now: packets wait in their buffers while the GPU starts), then
 * creates the pipeline. A socket whose receive buffer is smaller than asked
 * (net.core.rmem_max) gets a warning (svc_recv_next_warning). `cfg` must
 * outlive the service. On failure nothing is left open. */
xsf_status svc_recv_create(svc_recv **s, const svc_recv_config *cfg, svc_failure *f);
/* The pipeline (pl_describe, pl_uses_gpu). */
pl_pipeline *svc_recv_pipeline(const svc_recv *s);

/* With an SVC_OUT_DISPLAY stream: starts the display (one tile a stream).
 * After a failure, destroy the service: nothing has run. */
xsf_status svc_recv_open_display(svc_recv *s, svc_failure *f);

/* Opens the frame log and each stream's sink, adds the
 * streams to the pipeline and starts their sources, in order. On failure
 * the streams started so far run on: the caller stops and finishes them as
 * after a run. */
xsf_status svc_recv_start(svc_recv *s, svc_failure *f);
/* Streams started so far. */
int svc_recv_started(const svc_recv *s);
/* "recv ADDR:PORT", "recv FILE.pcap": what messages about stream k say. */
const char *svc_recv_label(const svc_recv *s, int k);

/* Waits about `ms` milliseconds. 0 (at once) when every started stream has
 * ended or the display's user asked to quit; else 1. Once warmup_s has
 * passed, empties the latency histograms (once). */
int svc_recv_wait(svc_recv *s, int ms);
/* 1 when a second has passed since the last report (the first: since
 * start); then the display's overlays are brought up to date too. */
int svc_recv_report_due(svc_recv *s);
/* The next warning about a started stream, each given once: what the service
 * noticed that does not stop it (svc_rcvbuf_check's; a stream whose picture
 * or frame rate contradicts its SDP, found on its first frames; a leg of a
 * stream silent for RTP_LEG_SILENT_NS, once when it goes and once when it
 * comes back). 1 and *w
 * (subject: the stream's label), or 0 when there is none now. From the thread
 * that drives the service. */
int svc_recv_next_warning(svc_recv *s, svc_failure *w);

/* The warning of a socket that asked for a receive buffer of `asked` bytes
 * and was granted `granted` (the kernel holds SO_RCVBUF to net.core.rmem_max,
 * rmem_max here, where the process may not force it: CAP_NET_ADMIN): XSF_OK
 * when granted >= asked, else XSF_ERR_IO saying both sizes and, where
 * rmem_max is below what was asked (rmem_max < 0: not known), how to raise
 * it. */
xsf_status svc_rcvbuf_check(size_t asked, size_t granted, long long rmem_max, xsf_error *warning);

/* Frames that did not reach the output, by reason (each frame once). */
typedef struct svc_drops {
    uint64_t missing;   /* a packet never came (the stream's edges included) */
    uint64_t partial;   /* slice mode: slices missing */
    uint64_t invalid;   /* whole, but not a valid codestream */
    uint64_t too_large; /* grew past the bound of its picture (or the limit) */
    uint64_t behind;    /* the oldest waiting frame, dropped for a newer one */
    uint64_t no_frame;  /* no free frame to assemble into */
    uint64_t decode;    /* the decoder refused it */
    uint64_t field;     /* interlaced: a field without its sibling */
    uint64_t total;
    uint64_t refused_packets;      /* not RTP, truncated, other payload type or SSRC, on
                                      probation, other sender */
    uint64_t memory, memory_bound; /* bytes the stream holds (pool + depacketizer), its bound */
} svc_drops;

/* The drops of a stream from its receiver's and its pipeline stream's
 * statistics; `dc` is its depacketizer's configuration (the memory bound). */
svc_drops svc_drops_of(const rtp_stats *r, const pl_stream_stats *ps,
                       const rtp_depacketizer_config *dc);

/* One stream's figures now. */
typedef struct svc_stream_figures {
    rtp_stats rtp;
    int merged;            /* several legs: merge holds their figures */
    rtp_merge_stats merge; /* packets_recovered, each leg's (rtp_merge.h) */
    uint64_t kernel_drops;
    pl_stream_stats pl;
    svc_drops drops;
    double fps, mbps; /* since the previous svc_recv_figures with `interval` (0 the first
                         time); without: the whole run's */
    /* Without `interval`: fps is over fewer than SVC_RATE_MIN_FRAMES frames or less than
     * SVC_RATE_MIN_S seconds between the first and last delivery, too few to stand for the
     * stream's rate (two frames a microsecond apart make a million frames/s): shown as "-"
     * (below the frames) or with its span. */
    int fps_short;
} svc_stream_figures;

#define SVC_RATE_MIN_FRAMES 10
#define SVC_RATE_MIN_S 1.0

/* The whole process's rates, every stream together. */
typedef struct svc_process_figures {
    uint64_t frames;        /* delivered, every stream */
    double seconds;         /* since the process started (its start time in /proc; where that
                               cannot be read, since svc_recv_create) */
    double fps;             /* frames / seconds: what the process delivered per wall second,
                               its start-up included */
    double first_picture_s; /* the first picture of any stream, seconds after the start; 0: none */
    double steady_s;        /* from the first picture of any stream to the last */
    double steady_fps;      /* (frames - 1) / steady_s: the rate once pictures came; 0 below two */
    int steady_short;       /* steady_fps is over fewer than SVC_RATE_MIN_FRAMES frames or less
                               than SVC_RATE_MIN_S seconds (see fps_short) */
} svc_process_figures;

/* The process's figures now (the started streams'). */
void svc_recv_process_figures(svc_recv *s, svc_process_figures *out);

/* Figures of started stream k. interval 1: the rates since the previous
 * call with interval 1 (which this call then is). */
void svc_recv_figures(svc_recv *s, int k, int interval, svc_stream_figures *out);

/* Every started stream's figures as JSON ({"engine", "streams": [...]}),
 * written to PATH.tmp and renamed over PATH: a reader never sees half a
 * file. */
xsf_status svc_recv_write_json(svc_recv *s, const char *path, svc_failure *f);

/* Asks every started source to stop. */
void svc_recv_stop(svc_recv *s);
/* Waits for started stream k's source (its receive error, if any) and
 * finishes its pipeline stream (every frame delivered or dropped). */
xsf_status svc_recv_join(svc_recv *s, int k, xsf_error *err);
/* Whether there is a display; svc_recv_display_stop shows what is queued,
 * writes the headless picture, closes, and gives each tile's counts
 * (stats: SVC_MAX_STREAMS entries). */
int svc_recv_has_display(const svc_recv *s);
xsf_status svc_recv_display_stop(svc_recv *s, dsp_tile_stats *stats, xsf_error *err);

/* After the streams are finished: closes stream k's writer, if it has one
 * (*wrote 1 then, and *frames the frames it wrote); its failure has the
 * output as subject. A writer that failed, or wrote no frame, is discarded
 * (pl_writer_discard: the file it created is removed, nothing half-written
 * or empty is left); one that wrote frames keeps them, however few. */
xsf_status svc_recv_close_writer(svc_recv *s, int k, int *wrote, uint64_t *frames, svc_failure *f);
/* Closes stream k's packet log, if it has one; a failed close is XSF_ERR_IO
 * with the packet file as subject. */
xsf_status svc_recv_close_packets(svc_recv *s, int k, svc_failure *f);
/* Destroys the sources and the pipeline (a writer still open is discarded:
 * its run failed), closes the frame log (a failed close: XSF_ERR_IO, subject
 * the frame log). */
xsf_status svc_recv_destroy(svc_recv *s, svc_failure *f);

/* What the end of a run gave, stream by stream: the label, the join, the
 * display's tile and the whole run's figures of each started stream; the
 * writer and the packet log of every stream. A failure's err.status is
 * XSF_OK where nothing failed. */
typedef struct svc_stream_end {
    char label[160];        /* svc_recv_label's */
    xsf_error join;         /* svc_recv_join's */
    dsp_tile_stats tile;    /* with a display */
    svc_stream_figures fig; /* svc_recv_figures without an interval */
    int wrote;              /* it had a writer, which wrote `frames` */
    uint64_t frames;
    svc_failure close, packets; /* svc_recv_close_writer's, svc_recv_close_packets's */
    /* A started stream that delivered no frame, or fewer than its frame limit
     * (rtp.max_frames) by the time it stopped: a failure of the run, saying
     * so and, without a frame, what came (no packet: in the --wait, in the
     * capture, before the stop; packets but no whole frame). */
    svc_failure shortfall;
    int nwarnings; /* warnings not taken before the end (svc_recv_next_warning) */
    svc_failure warning[3];
} svc_stream_end;

typedef struct svc_recv_end {
    int started, nstreams;
    int display; /* there was a display; display_err: its stop */
    xsf_error display_err;
    int gpu;                     /* the pipeline used a GPU: pin is the pinned memory's figures */
    pl_pin_stats pin;            /* taken after the figures, before the files are closed */
    svc_process_figures process; /* taken with the streams' figures */
    pl_startup_stats startup;    /* where the pipeline's start went, and its teardown */
    svc_failure json;            /* the last write of the JSON figures */
    svc_failure destroy;
    svc_stream_end stream[SVC_MAX_STREAMS];
} svc_recv_end;

/* The end of a run, in the order of the life above: stops the sources,
 * joins every started stream, stops the display, takes the figures, writes
 * them to stats_json (where it is not NULL and every stream started),
 * says which streams fell short (svc_stream_end.shortfall), takes the
 * warnings left, closes the writers and the packet logs, destroys the
 * service. Each step
 * runs whatever failed before it; *e (large: static storage suits it) says
 * what each gave. Returns XSF_OK, or the status of the first failure. */
xsf_status svc_recv_finish(svc_recv *s, const char *stats_json, svc_recv_end *e);

/* One stream's figures as one line on f, ending '\n': "LABEL: RATE fps, ... Mbit/s;
 * packets ...; frames ... whole, ... dropped (by reason); latency ...; memory ... of ...",
 * then only what is not zero or applies: capture-to-picture latency (--ptp), the refused
 * packets by cause, the SSRC, the longest stall, the stream's edges, interlaced frames,
 * kernel drops, the ST 2110-21 verdict, each leg's health (two legs; leg_name: the legs'
 * names, or NULL). The rate is "-" over too few frames (fps_short). */
void svc_stream_figures_format(FILE *f, const char *label, const svc_stream_figures *fig,
                               const char (*leg_name)[128]);

/* The figures of a finished run (svc_recv_finish) as lines on f: each started stream's
 * display counts (with a display) and svc_stream_figures_format line (its legs' names from
 * cfg), the process's rates and start-up ("process: ...", "start-up: ..."), and with a GPU
 * the pinned host memory ("pinned host memory: ..."). */
void svc_recv_end_format(FILE *f, const svc_recv_end *e, const svc_recv_config *cfg);

/* ------------------------------------------------------------------ */
/* The demo: a clip sent to this host over UDP loopback, and checked     */

/* Codestreams of a clip the demo checks (a longer clip: the first ones). */
#define SVC_DEMO_MAX_FRAMES 64

typedef struct svc_demo_config {
    const char *name;    /* what messages about the clip say */
    const uint8_t *clip; /* JPEG XS codestreams one after the other, at most */
    size_t len;          /* SVC_DEMO_MAX_FRAMES of them */
    unsigned loops;      /* times the clip is sent (at least 1) */
    pl_config pl;        /* the decoder */
    const char *out;     /* where the pictures are written (pl_writer); NULL: nowhere */
    pl_writer_options writer;
    /* What the clip's pictures are known to be (a manifest's MD5 and bytes in .yuv
     * layout, as clip_md5 and clip_bytes below); NULL: not checked. */
    const char *expect_md5;
    uint64_t expect_bytes;
    /* The whole link instead of a clip (`xsflow demo --raw`): pictures coded on the way by a
     * feed of this configuration (pl_encode.h; at most SVC_DEMO_MAX_FRAMES frames, the first
     * ones), each codestream sent as it is made and decoded by the C reference decoder
     * beside; `name` is the picture file's. clip, len, loops and expect_* are then unused
     * (sent once). NULL: the clip. */
    const pl_encode_config *encode;
} svc_demo_config;

typedef struct svc_demo_result {
    unsigned clip_frames; /* codestreams of the clip (the C reference decoder decoded each);
                             live, codestreams sent */
    unsigned frames;      /* pictures delivered */
    unsigned matched;     /* of them, equal in .yuv layout to the C reference decoder's
                             picture of the same codestream (the RTP timestamp says which) */
    char clip_md5[33];    /* MD5 of the first pass through the clip's pictures, .yuv layout
                             (live: of every picture received, in order) */
    uint64_t clip_bytes;  /* its bytes */
    /* Live: the MD5 and bytes of the C reference decoder's pictures of the codestreams sent,
     * in order (equal to clip_md5's when nothing was lost), and the encoder's figures. */
    char reference_md5[33];
    uint64_t reference_bytes;
    pl_encode_stats encoded;
    uint16_t port;         /* the loopback port the stream went to */
    char engine[128];      /* pl_describe of the pipeline */
    rtp_sender_stats sent; /* the sender's counts */
    rtp_stats received;    /* the receiver's */
    pl_stream_stats stream;
    uint64_t written; /* bytes written to `out` */
    /* Every picture of every pass arrived and matched, and the clip is as expected (live:
     * every codestream sent arrived, each picture matched, clip_md5 = reference_md5). */
    int all_ok;
    /* What failed, in order: setting up (subject "demo", or `name` for a clip the C
     * decoder refuses or a picture file the encoder cannot code: refused 1 when the
     * encoder refused the settings), sending ("demo: sending"), receiving ("demo: receiving"). */
    int nfailures;
    svc_failure failure[3];
    int refused;
    /* Writing or closing `out` failed (subject `out`). */
    int write_failed;
    svc_failure write_failure;
    /* `out` was removed: the run failed, a picture did not match or the write failed
     * (nothing half-written is left). */
    int removed;
} svc_demo_result;

/* `xsflow demo`: first checks that `out` can be written (xsf_output_check: a
 * failure with `out` as subject, before anything runs), then decodes each
 * codestream of the clip with the C reference decoder, then sends the clip `loops` times as an ST
 * 2110-22 stream (RFC 9134, payload type 112, SSRC "XSFD", the picture segment boxes; each frame's
 * packets at once at its time, 25 fps, rtp_sender) over UDP loopback to an ephemeral port of this
 * host, where a socket source receives it into the pipeline (reorder window 20 ms, the structural
 * check on; it stops after every frame or 3 s without a packet). Each picture delivered is compared
 * with the C decoder's and written to `out`. Blocks until the stream has
 * ended and everything is closed; a sending thread runs meanwhile.
 * Returns XSF_OK when nothing failed (whether the pictures matched is in *r),
 * else the status of the first failure (r->failure, r->write_failure). After
 * a failure or a mismatch `out` is removed (r->removed).
 * Live (c->encode): the feed is opened first (frame 0 coded: a file it cannot code fails
 * here, subject `name`), the sending thread sends each codestream as the feed hands it out
 * (RTP timestamps from 0 at 25 fps, frames late where the encoder is slower) after decoding
 * it with the C decoder; the receiver stops once every frame sent has been delivered (or 2 s
 * after the last was sent). */
xsf_status svc_demo_run(const svc_demo_config *c, svc_demo_result *r);

/* The feed of `xsflow demo --raw RAW --bpp B [--frames N]` into *ec (svc_demo_config.encode):
 * JPEG XS at bpp, the first `frames` pictures (0: all), the picture format from RAW's name,
 * the device from `engine` (pl_encode_pick_device: PL_ENGINE_AUTO the GPU where usable).
 * Refused (f->usage 1, subject RAW): a file without a header (.yuv) or of no picture format,
 * a rate not above 0; a GPU asked for and not usable: subject "--gpu", usage 0. */
xsf_status svc_demo_live_config(pl_encode_config *ec, const char *raw, double bpp, int frames,
                                pl_engine engine, svc_failure *f);

/* What a run of the demo gave, as `xsflow demo` prints it on f: for a clip, "xsflow demo: sent
 * CLIP N times" (`clip` says what the clip is: "the built-in clip X.jxs (5 frames, ...)"), the
 * port and engine, then a line each for what was sent, received, the latency, the frames
 * matched, the clip's and the expected MD5, the verdict and the file written (unless it was
 * removed or failed); live (c->encode), the link from c->name at the encoder's rate, the
 * encoder's times, the decoded and the reference MD5 instead (`clip` unused). */
void svc_demo_format(FILE *f, const svc_demo_config *c, const svc_demo_result *r, const char *clip);

/* ------------------------------------------------------------------ */
/* Playing a .jxs file: its pictures for the display's player (dsp_play) */

typedef struct svc_jxs_source svc_jxs_source;

/* The codestreams data[0, len) (kept by the caller while the source lives),
 * decoded by `engine`: GPU, device pictures (it needs a usable GPU and a
 * build with CUDA-GL interop: XSF_ERR_UNSUPPORTED or the GPU's error
 * otherwise); CPU, host pictures of the C decoder; AUTO, the GPU where both
 * are there, else the CPU. err says why it failed. */
xsf_status svc_jxs_source_open(svc_jxs_source **s, const uint8_t *data, size_t len,
                               jxs_engine engine, xsf_error *err);
void svc_jxs_source_close(svc_jxs_source *s);
/* The next picture (a view of the decoder's planes, valid until the next
 * call), its colour the codestream's (xs_header_colour: R'G'B' after a
 * colour transform, else nothing said); at most 3 components, all of one
 * depth (XSF_ERR_UNSUPPORTED otherwise). *bytes: its codestream's. */
xsf_status svc_jxs_source_next(svc_jxs_source *s, xsf_picture *pic, size_t *bytes, xsf_error *err);
/* 1 once every codestream has been taken. */
int svc_jxs_source_done(const svc_jxs_source *s);
/* Pictures taken since the start (or the last rewind). */
unsigned long svc_jxs_source_frames(const svc_jxs_source *s);
/* "GPU" or "CPU". */
const char *svc_jxs_source_decoder(const svc_jxs_source *s);
/* The source as dsp_play takes it (its rewind starts the file again). */
dsp_player_source svc_jxs_source_player(svc_jxs_source *s);

/* `xsflow play`: a .jxs file shown in a window by the display's player
 * (dsp_play) from the source above, or one of its pictures rendered
 * offscreen (dsp_render_rgb) into a .ppm file. */
typedef struct svc_play_options {
    dsp_play_options play;    /* the window; play.name is what failures name */
    jxs_engine engine;        /* AUTO: the GPU decoder (device pictures, interop) where usable */
    const char *headless_ppm; /* no window: picture `frame` rendered into this .ppm */
    unsigned long frame;      /* from 0 */
} svc_play_options;

/* The window of dsp_play_options_init, engine AUTO, no headless picture. */
void svc_play_options_init(svc_play_options *o);

typedef struct svc_play_result {
    dsp_play_result window; /* the window's counts (opened 0: it never opened) */
    /* Headless: the picture written, as shown: its format, chroma, the colour
     * it was converted with (the user's over the codestream's), and 1 when
     * the GPU decoded it into device memory (CUDA-GL interop). */
    xsf_format format;
    dsp_chroma chroma;
    xsf_colour colour;
    int device;
} svc_play_result;

/* Plays data[0, len) as the options say; blocks until the window is closed
 * (or the picture is written). Failures: the source, the decoder, the
 * window or the rendering (subject play.name; a headless frame past the
 * last, XSF_ERR_ARG "has N frames; --frame F does not exist"), the .ppm
 * (subject headless_ppm). *r is filled as far as it got (window.opened
 * says whether the window opened, its counts then valid). */
xsf_status svc_play(const uint8_t *data, size_t len, const svc_play_options *o, svc_play_result *r,
                    svc_failure *f);
/* The same for the codestreams of the file `path` ("-": standard input).
 * Failures also: a build without a display (XSF_ERR_UNSUPPORTED, subject
 * "play"), a file that does not read (subject the path). */
xsf_status svc_play_file(const char *path, const svc_play_options *o, svc_play_result *r,
                         svc_failure *f);

/* ------------------------------------------------------------------ */
/* This build                                                           */

/* What this build of xsflow is: its version, the git commit it was
 * configured from ("" where unknown), and the optional parts built in. */
typedef struct svc_build {
    const char *version;
    const char *git_commit;
    int cuda;         /* the CUDA kernels (a GPU is still looked for at run time) */
    int gl;           /* the OpenGL display (play, recv --display; offscreen at least) */
    int gl_window;    /* of it, windows (GLFW) */
    int gstreamer;    /* the GStreamer plugin (libgstxsflow) */
    int nmos;         /* the NMOS node (xsflow node) */
    const char *pcap; /* libpcap's own version text (always built in) */
} svc_build;
void svc_build_get(svc_build *b);
/* The text `xsflow --version` prints: "xsflow VERSION (git COMMIT)", then a line for each
 * part ("CUDA: yes (...)", "GL display: ...", "GStreamer plugin: ...", "NMOS node: ...",
 * "libpcap: yes (...)"). Returns its length; out holds it where that is below cap. */
size_t svc_build_describe(char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
