/* The receive service's figures in words (service.h, svc_stream_figures_format and
 * svc_recv_end_format): the lines `xsflow recv` prints, on the caller's FILE. */
#include <stdio.h>

#include "service.h"

/* A stream's rate: "-" over too few frames to stand for one, with its span where it is
 * short (svc_stream_figures.fps_short). */
static void print_rate(FILE *f, const svc_stream_figures *fig)
{
    const pl_stream_stats *ps = &fig->pl;
    if (fig->fps_short && ps->delivered < SVC_RATE_MIN_FRAMES)
        fprintf(f, "- fps (%llu frame%s)", (unsigned long long)ps->delivered,
                ps->delivered == 1 ? "" : "s");
    else if (fig->fps_short)
        fprintf(f, "%.1f fps (over %.3f s only)", fig->fps,
                (double)(ps->last_delivered_ns - ps->first_delivered_ns) / 1e9);
    else
        fprintf(f, "%.1f fps", fig->fps);
}

void svc_stream_figures_format(FILE *f, const char *label, const svc_stream_figures *fig,
                               const char (*leg_name)[128])
{
    const rtp_stats r = fig->rtp;
    const pl_stream_stats ps = fig->pl;
    const svc_drops d = fig->drops;
    fprintf(f, "%s: ", label);
    print_rate(f, fig);
    fprintf(f,
            ", %.1f Mbit/s; packets %llu, lost %llu, reordered %llu, duplicated %llu, "
            "late %llu, refused %llu; frames %llu whole, %llu dropped (missing packets %llu, "
            "partial %llu, invalid %llu, too large %llu, decoder behind %llu, no frame %llu, "
            "decode %llu, field %llu); latency p50 %.0f us, p99 %.0f us, max %.0f us; "
            "memory %.1f MiB of %.1f MiB",
            fig->mbps, (unsigned long long)r.packets, (unsigned long long)r.lost,
            (unsigned long long)r.reordered, (unsigned long long)r.duplicated,
            (unsigned long long)r.late, (unsigned long long)d.refused_packets,
            (unsigned long long)ps.delivered, (unsigned long long)d.total,
            (unsigned long long)d.missing, (unsigned long long)d.partial,
            (unsigned long long)d.invalid, (unsigned long long)d.too_large,
            (unsigned long long)d.behind, (unsigned long long)d.no_frame,
            (unsigned long long)d.decode, (unsigned long long)d.field, ps.latency.p50_us,
            ps.latency.p99_us, ps.latency.max_us, (double)d.memory / 1048576.0,
            (double)d.memory_bound / 1048576.0);
    /* --ptp: the frames' age against their capture (the RTP timestamps on the plant's
     * clock), beside the latency from their last packet above. */
    if (ps.latency_capture.count || ps.capture_after_picture)
        fprintf(f, "; capture to picture p50 %.0f us, p99 %.0f us, max %.0f us",
                ps.latency_capture.p50_us, ps.latency_capture.p99_us, ps.latency_capture.max_us);
    if (ps.capture_after_picture)
        fprintf(f, " (%llu frames captured after their picture: the clocks disagree)",
                (unsigned long long)ps.capture_after_picture);
    /* Each cause of a refused packet under its own name, every second it is not zero. */
    if (d.refused_packets)
        fprintf(f,
                "; refused packets: not RTP/RFC 9134 %llu, truncated %llu, payload type %llu, "
                "other SSRC %llu, on probation %llu, other sender %llu",
                (unsigned long long)r.invalid, (unsigned long long)r.truncated,
                (unsigned long long)r.wrong_pt, (unsigned long long)r.wrong_ssrc,
                (unsigned long long)r.on_probation, (unsigned long long)r.foreign_source);
    if (r.on_probation || r.ssrc_changes || r.wrong_ssrc)
        fprintf(f, "; SSRC 0x%08x, SSRC changes %llu", r.ssrc, (unsigned long long)r.ssrc_changes);
    if (ps.delivered > 1)
        fprintf(f, "; longest stall %.1f ms", (double)ps.max_stall_ns / 1e6);
    if (r.lost_edge || r.frames_dropped_edge)
        fprintf(f, "; at the stream's edges: lost %llu packets, dropped %llu frames",
                (unsigned long long)r.lost_edge, (unsigned long long)r.frames_dropped_edge);
    if (r.frames_dropped_no_buffer)
        fprintf(f, "; dropped for want of a free frame %llu",
                (unsigned long long)r.frames_dropped_no_buffer);
    if (ps.delivered_interlaced || ps.dropped[PL_DROP_FIELD])
        fprintf(f, "; interlaced frames %llu whole, %llu dropped with a lost field",
                (unsigned long long)ps.delivered_interlaced,
                (unsigned long long)ps.dropped[PL_DROP_FIELD]);
    if (fig->kernel_drops)
        fprintf(f, "; kernel drops %llu", (unsigned long long)fig->kernel_drops);
    /* The sender against ST 2110-21's models for the type its SDP declares. */
    const rtp_tr21_stats *t = &r.tr21;
    if (t->active && t->frames) {
        fprintf(f, "; ST 2110-21 (%s): Cinst peak %u of %u, VRX peak %lld of %u",
                rtp_tr21_type_name(t->declared), t->cinst_peak, t->cinst_max,
                (long long)t->vrx_peak, t->vrx_full);
        if (t->underflows)
            fprintf(f, ", %llu packets after their read time", (unsigned long long)t->underflows);
        if (t->tpr0_count)
            fprintf(f, ", first packet %.0f us after the timestamp", t->tpr0_mean_ns / 1000.0);
        fprintf(f, ": %s", rtp_tr21_verdict_name(t->conforms));
    }
    if (fig->merged) {
        /* Each leg's health: what a path failing at night looks like. */
        const rtp_merge_stats *m = &fig->merge;
        fprintf(f, "; recovered %llu", (unsigned long long)m->packets_recovered);
        for (unsigned i = 0; i < m->legs; i++) {
            const rtp_leg_stats *l = &m->leg[i];
            fprintf(f, "; leg %u %s: %s, packets %llu, lost %llu, last %.0f ms ago", i + 1,
                    leg_name ? leg_name[i] : "", l->silent ? "SILENT" : "ok",
                    (unsigned long long)l->packets_received, (unsigned long long)l->packets_lost,
                    l->last_packet_age_ms);
            if (i && l->skew_samples)
                fprintf(f, ", skew p50 %.1f ms max %.1f ms", l->skew_p50_ms, l->skew_max_ms);
        }
    }
    fputc('\n', f);
}

static void print_pinned(FILE *f, const pl_pin_stats *p)
{
    const pl_pin_stats pin = *p;
    fprintf(f,
            "pinned host memory: %.1f MiB now; %llu pins (%.1f MiB) took %.1f ms, the longest "
            "%.1f ms; %llu unpins took %.1f ms, the longest %.1f ms; reserve %.1f MiB, %.1f MiB "
            "of it in use, %llu buffers found no room in it\n",
            (double)pin.pinned_bytes / 1048576.0, (unsigned long long)pin.pins,
            (double)pin.pin_bytes / 1048576.0, (double)pin.pin_ns / 1e6,
            (double)pin.pin_ns_max / 1e6, (unsigned long long)pin.unpins,
            (double)pin.unpin_ns / 1e6, (double)pin.unpin_ns_max / 1e6,
            (double)pin.reserve_bytes / 1048576.0, (double)pin.reserve_used / 1048576.0,
            (unsigned long long)pin.reserve_misses);
}

/* The whole process's rates beside the streams' (never their sum), and where its start
 * went. */
static void print_process(FILE *f, const svc_process_figures *pf, const pl_startup_stats *su)
{
    fprintf(f, "process: %llu frames in %.3f s since it started: %.1f frames per wall second",
            (unsigned long long)pf->frames, pf->seconds, pf->fps);
    if (pf->frames)
        fprintf(f, "; first picture at %.3f s", pf->first_picture_s);
    if (pf->frames > 1 && pf->steady_short)
        fprintf(f, "; steady rate - (%llu frames over %.3f s: too few to tell)",
                (unsigned long long)pf->frames, pf->steady_s);
    else if (pf->frames > 1)
        fprintf(f, "; steady %.1f frames/s (first picture to last, %.3f s)", pf->steady_fps,
                pf->steady_s);
    char line[2048];
    fprintf(f, "\nstart-up: %s\n", pl_startup_format(su, line, sizeof line));
}

void svc_recv_end_format(FILE *f, const svc_recv_end *e, const svc_recv_config *cfg)
{
    for (int k = 0; e->display && k < e->started; k++)
        fprintf(f,
                "%s: display: %llu pictures shown, %llu dropped late, %llu dropped (tile full)\n",
                e->stream[k].label, (unsigned long long)e->stream[k].tile.presented,
                (unsigned long long)e->stream[k].tile.dropped_late,
                (unsigned long long)e->stream[k].tile.dropped_full);
    for (int k = 0; k < e->started; k++)
        svc_stream_figures_format(f, e->stream[k].label, &e->stream[k].fig,
                                  cfg->stream[k].leg_name);
    if (e->started)
        print_process(f, &e->process, &e->startup);
    if (e->gpu)
        print_pinned(f, &e->pin);
}
