/* The receive service's state, shared by recv.c and recv_stats.c. */
#ifndef XSF_SERVICE_RECV_INTERNAL_H
#define XSF_SERVICE_RECV_INTERNAL_H

#include "service.h"

typedef struct svc_stream {
    char label[160];
    int id;
    pl_writer *w;
    pl_rtp_source *src;
    pl_rtp_config rc;
    FILE *plog;
    /* the previous svc_recv_figures with an interval */
    uint64_t prev_delivered, prev_bytes, prev_ns;
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
    char json_tmp[4096];
};

#endif
