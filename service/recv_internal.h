/* The receive service's state, shared by recv.c and recv_stats.c. */
#ifndef XSF_SERVICE_RECV_INTERNAL_H
#define XSF_SERVICE_RECV_INTERNAL_H

#include <stdatomic.h>

#include "service.h"

/* A stream's first frames against its SDP (recv_check.c): a sink in front of
 * the stream's own that compares the first picture and the RTP timestamps'
 * step over the first CHECK_FRAMES frames (or all, where fewer come) with the
 * SDP, and keeps a warning for the thread that drives the service. */
typedef struct svc_check {
    const rtp_sdp *sdp;
    pl_sink next;
    unsigned frames;   /* delivered so far (up to the decision) */
    xsf_format first;  /* the first described frame's picture (nc 0: none yet) */
    uint32_t last_ts;  /* the previous frame's RTP timestamp */
    uint32_t min_step; /* the smallest step between two frames (0: none yet) */
    /* 0 comparing; 1 agreed; 2 a warning ready (written before the store); 3 taken. */
    atomic_int state;
    xsf_error warning;
} svc_check;

/* The sink that checks, then hands each frame to `next`. */
pl_sink svc_check_sink(svc_check *c, const rtp_sdp *sdp, pl_sink next);
/* The warning once it is ready (1 and *w), each once; from the driving thread. */
int svc_check_take(svc_check *c, xsf_error *w);
/* A started stream that fell short (svc_stream_end.shortfall): 1 and *f. `stopped`: the
 * source had not ended by itself when the run ended. */
int svc_stream_shortfall(const svc_stream_config *sc, const svc_stream_end *se, int stopped,
                         svc_failure *f);
/* The warning of a socket's receive buffer (svc_rcvbuf_check with net.core.rmem_max). */
xsf_status svc_rcvbuf_warning(size_t asked, size_t granted, xsf_error *w);

typedef struct svc_stream {
    char label[160];
    int id;
    pl_writer *w;
    pl_rtp_source *src;
    pl_rtp_config rc;
    FILE *plog;
    /* the previous svc_recv_figures with an interval */
    uint64_t prev_delivered, prev_bytes, prev_ns;
    svc_check check;    /* with an SDP */
    int rcvbuf_pending; /* rcvbuf holds a warning not taken yet */
    xsf_error rcvbuf;
    /* the legs' silences and returns given as warnings so far */
    uint64_t leg_silences[RTP_LEGS_MAX], leg_returns[RTP_LEGS_MAX];
    int ptp_pending; /* the SDP names PTP, --ptp was not given: ptp holds the warning */
    xsf_error ptp;
} svc_stream;

struct svc_recv {
    const svc_recv_config *cfg;
    pl_config pl;
    svc_stream st[SVC_MAX_STREAMS];
    int started;
    pl_pipeline *p;
    dsp_view *view;
    char tile_label[SVC_MAX_STREAMS][160];
    const char *tile_label_ptr[SVC_MAX_STREAMS];
    FILE *flog;
    uint64_t last_report, warmup_end;
    int warm;
    pl_pin_stats pin_warm; /* the process's pinning when the warm-up ended (or at the start) */
    /* The process's start (svc_process_figures), on the monotonic and the packet clock. */
    uint64_t process_mono, process_wall;
    pl_startup_stats *end_startup; /* svc_recv_destroy's teardown goes here (svc_recv_finish) */
    char json_tmp[4096];
};

/* recv_process.c: how long ago the process started (0 where /proc cannot say); whether a
 * rate over `frames` frames from first_ns to last_ns is too short to stand for one
 * (svc_stream_figures.fps_short); the process's figures and the pipeline's start-up as
 * members of the JSON file's object. */
uint64_t svc_process_age_ns(void);
int svc_rate_short(uint64_t frames, uint64_t first_ns, uint64_t last_ns);
void svc_json_process(FILE *f, svc_recv *s);

#endif
