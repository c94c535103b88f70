/* The receive service's figures (service.h): drops by reason, rates, the
 * display's overlay text and the JSON file. */
#include <stdio.h>
#include <string.h>

#include "recv_internal.h"
#include "xsf_clock.h"

svc_drops svc_drops_of(const rtp_stats *r, const pl_stream_stats *ps,
                       const rtp_depacketizer_config *dc)
{
    svc_drops d;
    d.invalid = r->frames_invalid;
    d.too_large = r->frames_too_large;
    d.missing =
        r->frames_dropped - r->frames_invalid - r->frames_dropped_no_buffer - r->frames_too_large;
    d.partial = r->frames_partial;
    d.behind = ps->dropped[PL_DROP_QUEUE];
    d.no_frame = ps->dropped[PL_DROP_NO_FRAME] + r->frames_dropped_no_buffer;
    d.decode = ps->dropped[PL_DROP_DECODE];
    d.field = ps->dropped[PL_DROP_FIELD];
    d.total = d.missing + d.partial + d.invalid + d.too_large + d.behind + d.no_frame + d.decode +
              d.field;
    d.refused_packets = r->invalid + r->truncated + r->wrong_pt + r->wrong_ssrc + r->on_probation +
                        r->foreign_source;
    d.memory = ps->pool_bytes + r->memory_bytes;
    d.memory_bound = (uint64_t)ps->frames * ps->max_frame_bytes + rtp_depacketizer_memory_bound(dc);
    return d;
}

void svc_recv_figures(svc_recv *s, int k, int interval, svc_stream_figures *out)
{
    svc_stream *st = &s->st[k];
    pl_rtp_source_stats(st->src, &out->rtp, &out->kernel_drops);
    pl_stream_stats_get(s->p, st->id, &out->pl);
    out->drops = svc_drops_of(&out->rtp, &out->pl, &st->rc.depacketizer);
    out->merged = pl_rtp_source_merge_stats(st->src, &out->merge);
    if (out->merged) { /* the merge's window is the stream's too */
        out->drops.memory += out->merge.memory_bytes;
        out->drops.memory_bound += out->merge.memory_bytes;
    }
    out->fps_short = 0;
    if (!interval) {
        out->fps = out->pl.fps;
        out->mbps = out->rtp.bitrate_bps / 1e6;
        out->fps_short = svc_rate_short(out->pl.delivered, out->pl.first_delivered_ns,
                                        out->pl.last_delivered_ns);
        return;
    }
    const uint64_t now = xsf_clock_mono_ns();
    const double dt = st->prev_ns ? (double)(now - st->prev_ns) / 1e9 : 0;
    out->fps = dt > 0 ? (double)(out->pl.delivered - st->prev_delivered) / dt : 0;
    out->mbps = dt > 0 ? (double)(out->rtp.bytes - st->prev_bytes) * 8 / dt / 1e6 : 0;
    st->prev_delivered = out->pl.delivered;
    st->prev_bytes = out->rtp.bytes;
    st->prev_ns = now;
}

/* The overlay text of a stream's tile: what the program's line says, shorter. */
static void overlay_stream(svc_recv *s, int k)
{
    svc_stream_figures fig;
    svc_recv_figures(s, k, 0, &fig);
    char text[256];
    snprintf(text, sizeof text,
             "%.2f Mbit/s\nlost %llu packets, dropped %llu frames\nlatency p50 %.0f us p99 %.0f us",
             fig.rtp.bitrate_bps / 1e6, (unsigned long long)fig.rtp.lost,
             (unsigned long long)fig.drops.total, fig.pl.latency.p50_us, fig.pl.latency.p99_us);
    dsp_view_set_stats(s->view, s->st[k].id, text);
}

int svc_recv_report_due(svc_recv *s)
{
    const uint64_t now = xsf_clock_mono_ns();
    if (now - s->last_report < 1000000000u)
        return 0;
    s->last_report = now;
    for (int k = 0; s->view && k < s->started; k++)
        overlay_stream(s, k);
    return 1;
}

static void json_latency(FILE *f, const char *key, const pl_latency *l)
{
    fprintf(f,
            "\"%s\": {\"count\": %llu, \"p50\": %.1f, \"p99\": %.1f, \"max\": %.1f, "
            "\"mean\": %.1f}",
            key, (unsigned long long)l->count, l->p50_us, l->p99_us, l->max_us, l->mean_us);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* A stream of several legs: what was recovered, and each leg in the order given. */
static void json_legs(FILE *f, const svc_stream_config *sc, const rtp_merge_stats *m)
{
    fprintf(f,
            ", \"packets_recovered\": %llu, \"merge_window_packets\": %llu, "
            "\"packets_dropped_copies\": %llu, \"legs\": [",
            (unsigned long long)m->packets_recovered, (unsigned long long)m->window,
            (unsigned long long)m->dropped);
    for (unsigned i = 0; i < m->legs; i++) {
        const rtp_leg_stats *l = &m->leg[i];
        fprintf(f, "%s{\"name\": ", i ? ", " : "");
        json_string(f, sc->leg_name[i]);
        fprintf(f,
                ", \"packets_received\": %llu, \"packets_lost\": %llu, \"packets_duplicated\": "
                "%llu, \"last_packet_age_ms\": %.1f, \"silent\": %s, \"silences\": %llu, "
                "\"skew_ms\": {\"count\": %llu, \"p50\": %.2f, \"max\": %.2f}}",
                (unsigned long long)l->packets_received, (unsigned long long)l->packets_lost,
                (unsigned long long)l->duplicates, l->last_packet_age_ms,
                l->silent ? "true" : "false", (unsigned long long)l->silences,
                (unsigned long long)l->skew_samples, l->skew_p50_ms, l->skew_max_ms);
    }
    fprintf(f, "]");
}

/* The sender against ST 2110-21 (rtp_tr21_stats): null without a frame rate to measure by. */
static void json_tr21(FILE *f, const rtp_tr21_stats *t)
{
    if (!t->active) {
        fprintf(f, ", \"tr21\": null");
        return;
    }
    fprintf(f,
            ", \"tr21\": {\"type_declared\": \"%s\", \"conforms\": \"%s\", "
            "\"conforms_declared\": %s, \"npackets\": %u, \"frames\": %llu, \"packets\": %llu, "
            "\"cinst_peak\": %u, \"cinst_max\": %u, \"vrx_peak\": %lld, \"vrx_min\": %lld, "
            "\"vrx_full\": %u, \"underflows\": %llu, \"cinst_max_narrow\": %u, "
            "\"vrx_full_narrow\": %u, \"cinst_max_wide\": %u, \"vrx_full_wide\": %u, "
            "\"trs_ns\": %.1f, \"tdrain_ns\": %.1f, \"troffset_us\": %.1f, "
            "\"packet_bytes_max\": %zu, \"clock_known\": %s, \"tpr0_us\": ",
            rtp_tr21_type_name(t->declared), rtp_tr21_verdict_name(t->conforms),
            t->conforms_declared ? "true" : "false", t->npackets, (unsigned long long)t->frames,
            (unsigned long long)t->packets, t->cinst_peak, t->cinst_max, (long long)t->vrx_peak,
            (long long)t->vrx_min, t->vrx_full, (unsigned long long)t->underflows, t->narrow.cmax,
            t->narrow.vrx_full, t->wide.cmax, t->wide.vrx_full, t->trs_ns, t->tdrain_ns,
            t->troffset_ns / 1000.0, t->packet_bytes_max, t->clock_known ? "true" : "false");
    if (t->tpr0_count)
        fprintf(f, "{\"count\": %llu, \"min\": %.1f, \"mean\": %.1f, \"max\": %.1f}}",
                (unsigned long long)t->tpr0_count, (double)t->tpr0_min_ns / 1000.0,
                t->tpr0_mean_ns / 1000.0, (double)t->tpr0_max_ns / 1000.0);
    else
        fprintf(f, "null}");
}

static void json_stream(FILE *f, const char *name, const svc_stream_config *sc,
                        const svc_stream_figures *fig)
{
    const rtp_stats r = fig->rtp;
    const pl_stream_stats ps = fig->pl;
    const svc_drops d = fig->drops;
    fprintf(f, "{\"name\": ");
    json_string(f, name);
    /* The pixel format of the pictures delivered (--pix-fmt; .jxs output: none decoded). */
    fprintf(f, ", \"pix_fmt\": ");
    json_string(f, sc->output == SVC_OUT_JXS ? "none" : xsf_container_name(sc->pix_fmt));
    fprintf(f,
            ", \"ssrc\": %u, \"packets\": %llu, \"bytes\": %llu, \"packets_lost\": %llu, "
            "\"packets_reordered\": %llu, \"packets_duplicated\": %llu, \"packets_late\": "
            "%llu, \"packets_refused\": %llu, \"kernel_drops\": %llu, \"frames_received\": "
            "%llu, \"frames_whole\": %llu, \"frames_dropped\": %llu, \"frames_dropped_by_reason\": "
            "{\"missing_packets\": %llu, \"partial\": %llu, \"invalid\": %llu, "
            "\"too_large\": %llu, \"decoder_behind\": %llu, \"no_frame\": %llu, "
            "\"decode\": %llu, \"field\": %llu}, "
            "\"mbps\": %.3f, \"fps\": %.3f, \"jitter_ms\": %.4f, \"packets_on_probation\": "
            "%llu, \"ssrc_changes\": %llu, \"packets_lost_edge\": %llu, "
            "\"frames_dropped_edge\": %llu, \"frames_dropped_no_buffer\": %llu, ",
            r.ssrc, (unsigned long long)r.packets, (unsigned long long)r.bytes,
            (unsigned long long)r.lost, (unsigned long long)r.reordered,
            (unsigned long long)r.duplicated, (unsigned long long)r.late,
            (unsigned long long)d.refused_packets, (unsigned long long)fig->kernel_drops,
            (unsigned long long)r.frames_complete, (unsigned long long)ps.delivered,
            (unsigned long long)d.total, (unsigned long long)d.missing,
            (unsigned long long)d.partial, (unsigned long long)d.invalid,
            (unsigned long long)d.too_large, (unsigned long long)d.behind,
            (unsigned long long)d.no_frame, (unsigned long long)d.decode,
            (unsigned long long)d.field, r.bitrate_bps / 1e6, ps.fps, r.jitter_ms,
            (unsigned long long)r.on_probation, (unsigned long long)r.ssrc_changes,
            (unsigned long long)r.lost_edge, (unsigned long long)r.frames_dropped_edge,
            (unsigned long long)r.frames_dropped_no_buffer);
    fprintf(f,
            "\"packets_refused_by_reason\": {\"invalid\": %llu, \"truncated\": %llu, "
            "\"payload_type\": %llu, \"other_ssrc\": %llu, \"on_probation\": %llu, "
            "\"other_sender\": %llu}, \"memory_bytes\": %llu, \"memory_bound_bytes\": %llu, "
            "\"pool_bytes\": %llu, \"depacketizer_bytes\": %llu, \"max_frame_bytes\": %llu, "
            "\"frames_in_pool\": %u, \"max_delivery_gap_ms\": %.3f, \"max_stall_ms\": %.3f, "
            "\"frames_delivered\": %llu, ",
            (unsigned long long)r.invalid, (unsigned long long)r.truncated,
            (unsigned long long)r.wrong_pt, (unsigned long long)r.wrong_ssrc,
            (unsigned long long)r.on_probation, (unsigned long long)r.foreign_source,
            (unsigned long long)d.memory, (unsigned long long)d.memory_bound,
            (unsigned long long)ps.pool_bytes, (unsigned long long)r.memory_bytes,
            (unsigned long long)ps.max_frame_bytes, ps.frames, (double)ps.max_delivery_gap_ns / 1e6,
            (double)ps.max_stall_ns / 1e6, (unsigned long long)ps.delivered);
    json_latency(f, "latency_us", &ps.latency);
    fprintf(f, ", ");
    json_latency(f, "latency_first_packet_us", &ps.latency_first);
    fprintf(f, ", ");
    json_latency(f, "decode_us", &ps.decode);
    fprintf(f, ", ");
    json_latency(f, "wait_us", &ps.wait);
    fprintf(f, ", ");
    json_latency(f, "latency_device_us", &ps.latency_device);
    fprintf(f, ", ");
    json_latency(f, "latency_host_us", &ps.latency_host);
    fprintf(f, ", \"frames_partial_submitted\": %llu, \"frames_aborted_partial\": %llu",
            (unsigned long long)ps.partial_submitted,
            (unsigned long long)ps.dropped[PL_DROP_INCOMPLETE]);
    /* After the warm-up (pl_stream_latency_reset): the GPU's steps of partial frames and
     * the buffers allocated on frames' ways (none in a steady state). */
    fprintf(f, ", \"steps\": %llu, ", (unsigned long long)ps.steps);
    json_latency(f, "step_us", &ps.step);
    fprintf(f, ", ");
    json_latency(f, "final_enqueue_us", &ps.final_enqueue);
    fprintf(f, ", ");
    json_latency(f, "final_sync_us", &ps.final_sync);
    fprintf(f, ", \"allocs\": %llu, \"alloc_max_us\": %.1f", (unsigned long long)ps.allocs,
            ps.alloc_max_us);
    if (fig->merged)
        json_legs(f, sc, &fig->merge);
    fprintf(f, ", \"fps_short\": %s, \"first_picture_ms\": %.3f", fig->fps_short ? "true" : "false",
            (double)ps.first_picture_ns / 1e6);
    /* --ptp: from the capture instant (the RTP timestamp on TAI) to the picture. */
    fprintf(f, ", ");
    json_latency(f, "latency_capture_us", &ps.latency_capture);
    fprintf(f, ", \"frames_capture_after_picture\": %llu",
            (unsigned long long)ps.capture_after_picture);
    json_tr21(f, &r.tr21);
    fprintf(f, "}");
}

xsf_status svc_recv_write_json(svc_recv *s, const char *path, svc_failure *f)
{
    f->usage = 0;
    xsf_error_clear(&f->err);
    if (snprintf(s->json_tmp, sizeof s->json_tmp, "%s.tmp", path) >= (int)sizeof s->json_tmp) {
        f->subject = path;
        return xsf_error_set(&f->err, XSF_ERR_ARG, "the name is too long");
    }
    FILE *out = fopen(s->json_tmp, "w");
    if (!out) {
        f->subject = s->json_tmp;
        return xsf_error_set(&f->err, XSF_ERR_IO, "cannot create the file");
    }
    fprintf(out, "{\n  \"engine\": ");
    json_string(out, pl_describe(s->p));
    svc_json_process(out, s);
    fprintf(out, ",\n  \"streams\": [");
    for (int k = 0; k < s->started; k++) {
        svc_stream_figures fig;
        svc_recv_figures(s, k, 0, &fig);
        fprintf(out, "%s\n    ", k ? "," : "");
        json_stream(out, s->st[k].label, &s->cfg->stream[k], &fig);
    }
    fprintf(out, "\n  ]\n}\n");
    if (fclose(out)) {
        f->subject = s->json_tmp;
        return xsf_error_set(&f->err, XSF_ERR_IO, "write failed");
    }
    if (rename(s->json_tmp, path)) {
        f->subject = path;
        return xsf_error_set(&f->err, XSF_ERR_IO, "cannot rename %s to it", s->json_tmp);
    }
    return XSF_OK;
}
