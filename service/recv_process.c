/* The receive service's whole-process figures (service.h, svc_process_figures): frames
 * per wall second since the process started, the steady rate between the first and the
 * last picture, and the pipeline's start-up in the JSON file. */
#define _GNU_SOURCE /* CLOCK_BOOTTIME, sysconf */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recv_internal.h"
#include "xsf_clock.h"

/* A rate over `frames` frames from first_ns to last_ns too short to stand for one
 * (svc_stream_figures.fps_short). */
int svc_rate_short(uint64_t frames, uint64_t first_ns, uint64_t last_ns)
{
    return frames < SVC_RATE_MIN_FRAMES ||
           (double)(last_ns - first_ns) < SVC_RATE_MIN_S * (double)XSF_NS_PER_S;
}

uint64_t svc_process_age_ns(void)
{
    /* /proc/self/stat: the 22nd field, after the command's name in parentheses, is the
     * start in clock ticks since boot (CLOCK_BOOTTIME). */
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return 0;
    char buf[1024];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *at = strrchr(buf, ')');
    unsigned long long ticks = 0;
    for (int field = 2; at && field < 22; field++)
        at = strchr(at + 1, ' ');
    struct timespec now;
    const long hz = sysconf(_SC_CLK_TCK);
    if (!at || sscanf(at, " %llu", &ticks) != 1 || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now))
        return 0;
    const uint64_t boot = (uint64_t)now.tv_sec * XSF_NS_PER_S + (uint64_t)now.tv_nsec;
    const uint64_t start = ticks * (XSF_NS_PER_S / (uint64_t)hz);
    return boot > start ? boot - start : 0;
}

void svc_recv_process_figures(svc_recv *s, svc_process_figures *out)
{
    memset(out, 0, sizeof *out);
    uint64_t first = 0, last = 0;
    for (int k = 0; k < s->started; k++) {
        pl_stream_stats ps;
        pl_stream_stats_get(s->p, s->st[k].id, &ps);
        if (!ps.delivered)
            continue;
        out->frames += ps.delivered;
        first = first && first < ps.first_delivered_ns ? first : ps.first_delivered_ns;
        last = last > ps.last_delivered_ns ? last : ps.last_delivered_ns;
    }
    out->seconds = (double)(xsf_clock_mono_ns() - s->process_mono) / 1e9;
    out->fps = out->seconds > 0 ? (double)out->frames / out->seconds : 0;
    if (first > s->process_wall)
        out->first_picture_s = (double)(first - s->process_wall) / 1e9;
    out->steady_s = (double)(last - first) / 1e9;
    if (out->frames > 1 && last > first)
        out->steady_fps = (double)(out->frames - 1) / out->steady_s;
    out->steady_short = svc_rate_short(out->frames, first, last);
}

/* The process's rates and the pipeline's start (the teardown comes after the last
 * write), milliseconds. */
void svc_json_process(FILE *f, svc_recv *s)
{
    svc_process_figures pf;
    svc_recv_process_figures(s, &pf);
    fprintf(f,
            ",\n  \"process\": {\"process_frames\": %llu, \"wall_s\": %.3f, \"wall_fps\": %.3f, "
            "\"first_picture_s\": %.4f, \"steady_s\": %.3f, \"steady_fps\": %.3f, "
            "\"steady_short\": %s}",
            (unsigned long long)pf.frames, pf.seconds, pf.fps, pf.first_picture_s, pf.steady_s,
            pf.steady_fps, pf.steady_short ? "true" : "false");
    /* Pinning and unpinning hold the CUDA driver's lock from every decoder: after the
     * warm-up (the steady state) none should happen. The longest is the whole run's. */
    pl_pin_stats pin;
    pl_pin_stats_get(&pin);
    fprintf(f,
            ",\n  \"pinning\": {\"pins_after_warmup\": %llu, \"unpins_after_warmup\": %llu, "
            "\"pin_max_ms\": %.3f, \"unpin_max_ms\": %.3f, \"reserve_mib\": %.1f, "
            "\"reserve_used_mib\": %.1f, \"reserve_misses\": %llu}",
            (unsigned long long)(pin.pins - s->pin_warm.pins),
            (unsigned long long)(pin.unpins - s->pin_warm.unpins), (double)pin.pin_ns_max / 1e6,
            (double)pin.unpin_ns_max / 1e6, (double)pin.reserve_bytes / 1048576.0,
            (double)pin.reserve_used / 1048576.0, (unsigned long long)pin.reserve_misses);
    pl_startup_stats su;
    pl_startup_get(s->p, &su);
    fprintf(f,
            ",\n  \"startup_ms\": {\"total\": %.3f, \"driver\": %.3f, \"reserve\": %.3f, "
            "\"cpu_decoders\": %.3f, \"first_setup\": %.3f, \"first_setup_max\": %.3f, "
            "\"first_picture\": %.3f, \"gpus\": [",
            (double)su.total_ns / 1e6, (double)su.driver_ns / 1e6, (double)su.reserve_ns / 1e6,
            (double)su.decoders_ns / 1e6, (double)su.first_setup_ns / 1e6,
            (double)su.first_setup_max_ns / 1e6, (double)su.first_picture_ns / 1e6);
    for (int g = 0; g < su.ngpus && g < PL_MAX_GPUS; g++)
        fprintf(f,
                "%s{\"device\": %d, \"context\": %.3f, \"modules\": %.3f, \"decoders\": %.3f, "
                "\"ready\": %.3f}",
                g ? ", " : "", su.gpu[g].device, (double)su.gpu[g].context_ns / 1e6,
                (double)su.gpu[g].modules_ns / 1e6, (double)su.gpu[g].decoders_ns / 1e6,
                (double)su.gpu[g].ready_ns / 1e6);
    fprintf(f, "]}");
}
