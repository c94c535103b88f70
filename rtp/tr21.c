/* Sender conformance as a receiver sees it (rtp.h, rtp_tr21_*): a stream's packet
 * arrivals against the two models of SMPTE ST 2110-21 (Traffic Shaping and Delivery
 * Timing for Video), as EBU LIST measures a capture.
 *
 * Sources. The standard's text was not at hand; the formulas below are those of EBU
 * LIST (github.com/ebu/pi-list, cpp/libs/st2110/.../d21: settings.cpp, c_calculator.cpp,
 * vrx_calculator.cpp, compliance.cpp, docs/cfull_and_vrx_analysis.md), which cites
 * ST 2110-21 clause by clause (6.3.2 gapped progressive, 6.3.3 gapped interlaced, 6.4
 * linear), and agree with the CMAX bounds rtp/pacing.c already used. ST 2110-22 applies
 * -21 to compressed video; compressed video has no vertical blanking, so its senders use
 * the linear read schedule (RACTIVE = 1: 2110TPNL, 2110TPW), which is also what this
 * analysis applies when no TP is declared. Read here, written in our own terms:
 *
 *   TFRAME      the frame period (the field period for interlaced video), 1 / rate
 *   NPACKETS    packets of a frame (field)
 *   RACTIVE     1 for the linear schedule (NL, W); gapped (N): 1080/1125 progressive,
 *               interlaced 487/525 (480 lines), 576/625 (576), 1080/1125 (1080)
 *   TRS         TFRAME x RACTIVE / NPACKETS: the read schedule's packet period
 *   CMAX        narrow MAX(4, INT(NPACKETS / (43200 x RACTIVE x TFRAME)))
 *               wide   MAX(16, INT(NPACKETS / (21600 x TFRAME)))
 *   VRX_FULL    narrow MAX(8, INT(NPACKETS / (27000 x TFRAME)))
 *               wide   MAX(720, INT(NPACKETS / (300 x TFRAME)))
 *               (8 and 720 are 1500 x 8 / MAXIP and 1500 x 720 / MAXIP with LIST's MAXIP
 *               of 1500 bytes; the newer revision's scaling by the SDP's MAXUDP is not
 *               applied)
 *   TROFFSET    the SDP's TROFF (us), else TRO_DEFAULT = k x the frame period: 43/1125
 *               (progressive, 1080 lines or more), 28/750 (progressive, fewer), 22/1125,
 *               26/625, 20/525 (interlaced 1080, 576, 480)
 *   TDRAIN      TFRAME / NPACKETS / beta, beta = 1.1: the network model's drain period
 *
 * Network compatibility model (Cinst): a bucket that drains one packet at each instant
 * t0 + k x TDRAIN (k >= 1; t0 the first packet measured) and receives each packet as it
 * arrives: Cinst after a packet = MAX(0, Cinst before + 1 - drain instants since the
 * previous packet); the first packet's Cinst is 0 (it leaves at t0). So a packet meeting
 * a drain instant leaves at once, and a sender exactly on a TDRAIN grid has Cinst 0. The
 * peak may not exceed CMAX.
 *
 * Virtual receiver buffer (VRX): frame n's packets are read one every TRS from TVD(n) =
 * N x TFRAME + TROFFSET, N its frame on the grid (from the epoch with a known clock,
 * else from the first frame measured, whose first packet is taken as on time), at most
 * NPACKETS reads: reads(t) = 0 before TVD, else MIN(NPACKETS, INT((t - TVD) / TRS) + 1).
 * After each arrival (reads at that very instant counted: an on-time packet leaves at
 * once) a frame holds arrived - reads; VRX is what the frame under way and the one before
 * it hold (each at least 0). The peak may not exceed VRX_FULL; a frame's level below 0 is
 * a packet later than its read (an underflow: LIST's "VRX min < 0", not conforming). LIST
 * empties the buffer at each frame's start; here the previous frame's unread packets
 * stay in it.
 *
 * Arithmetic: instants and periods are exact rationals (59.94 Hz frame periods, TDRAIN
 * with its 1.1) kept in 128-bit integers scaled by D = 9 x rate_num x f x NPACKETS x
 * RACTIVE's denominator x TRO_DEFAULT's denominator, so that a packet exactly at a read or
 * drain instant counts the same on every machine. The two quotients taken for every packet
 * (drains since t0, reads of a frame) are kept with the multiples of their divisor around
 * them (a step): one that moves on by a period or a few is followed by additions, and only
 * a jump divides (a 128-bit division costs a hundred cycles), with the same result. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rtp_internal.h"
#include "xsf_clock.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

#define NS_PER_S 1000000000ll

/* floor(x / den) for x >= 0 of a sequence that mostly grows by about den a step: the last
 * quotient k and the multiples k x den and (k + 1) x den around the last x. den > 0, fixed
 * for the life of the step (zeroed: k 0, below 0 and den to be set). */
typedef struct quot_step {
    u128 k, lo, hi;
} quot_step;

/* Steps followed by additions before a division is cheaper. */
#define QUOT_STEPS 8

static inline u128 quot(quot_step *q, u128 x, u128 den)
{
    if (x >= q->lo && x < q->hi)
        return q->k;
    if (x >= q->hi && q->hi) {
        for (int i = 0; i < QUOT_STEPS; i++) {
            q->k++;
            q->lo = q->hi;
            q->hi += den;
            if (x < q->hi)
                return q->k;
        }
    }
    q->k = x / den;
    q->lo = q->k * den;
    q->hi = q->lo + den;
    return q->k;
}

typedef struct frame_state {
    int valid;
    uint32_t ts;
    int64_t i_int; /* the frame's instant on the arrival clock: i_int + i_frac / D ns */
    i128 i_frac;   /* 0 <= i_frac < D */
    uint64_t arrived;
    quot_step reads; /* (t - TVD) / TRS of its last level */
    int read_whole;  /* read_at is an arrival by which it was read whole */
    int64_t read_at;
} frame_state;

struct rtp_tr21 {
    rtp_tr21_config cfg;
    rtp_tr21_stats st;
    unsigned f;              /* 2 for fields */
    uint64_t q;              /* segments per den seconds: rate_num x f */
    unsigned rn, rd, mn, md; /* RACTIVE = rn / rd, TRO_DEFAULT = mn / md of the frame period */
    /* the first frames: skipped, counted (npackets 0) */
    int phase; /* 0: in the first (maybe partial) frame; 1: counting; 2: measuring */
    int seen;  /* a packet came */
    uint32_t last_ts;
    uint32_t count;
    int skip; /* packets of timestamp skip_ts are of a frame not measured */
    uint32_t skip_ts;
    int ready; /* NPACKETS known, the scaled constants set */
    i128 d, trs_d, tro_d, t_d;
    u128 drain_num, drain_den; /* drains since t0 = (t - t0) x drain_num / drain_den */
    i128 all_read;             /* (NPACKETS - 1) x TRS x D: from here a frame is read whole */
    /* Cinst */
    int c_started;
    uint64_t c_t0, c_drained;
    quot_step drains;
    int64_t cinst;
    /* VRX */
    frame_state cur, prev;
    int anchored; /* unknown clock: the grid's origin is the last frame's instant */
    double tpr0_sum;
};

rtp_tr21_type rtp_tr21_type_of_tp(const char *tp)
{
    if (!tp)
        return RTP_TR21_UNDECLARED;
    if (!strcasecmp(tp, "2110TPN"))
        return RTP_TR21_NARROW;
    if (!strcasecmp(tp, "2110TPNL"))
        return RTP_TR21_NARROW_LINEAR;
    if (!strcasecmp(tp, "2110TPW"))
        return RTP_TR21_WIDE;
    return RTP_TR21_UNDECLARED;
}

const char *rtp_tr21_type_name(rtp_tr21_type t)
{
    return t == RTP_TR21_NARROW          ? "2110TPN"
           : t == RTP_TR21_NARROW_LINEAR ? "2110TPNL"
           : t == RTP_TR21_WIDE          ? "2110TPW"
                                         : "none";
}

const char *rtp_tr21_verdict_name(rtp_tr21_verdict v)
{
    return v == RTP_TR21_CONFORMS_NARROW ? "narrow"
           : v == RTP_TR21_CONFORMS_WIDE ? "wide"
           : v == RTP_TR21_CONFORMS_NOT  ? "not"
                                         : "unmeasured";
}

/* RACTIVE of a type's read schedule. */
static void ractive(rtp_tr21_type t, int interlaced, unsigned height, unsigned *n, unsigned *d)
{
    *n = *d = 1;
    if (t != RTP_TR21_NARROW)
        return;
    if (!height)
        height = 1080;
    if (interlaced && height < 576)
        *n = 487, *d = 525;
    else if (interlaced && height < 1080)
        *n = 576, *d = 625;
    else
        *n = 1080, *d = 1125;
}

/* TRO_DEFAULT as a fraction of the frame period. */
static void tro_default(unsigned height, int interlaced, unsigned *n, unsigned *d)
{
    if (!height)
        height = 1080;
    if (!interlaced)
        *n = height < 1080 ? 28 : 43, *d = height < 1080 ? 750 : 1125;
    else if (height < 576)
        *n = 20, *d = 525;
    else if (height < 1080)
        *n = 26, *d = 625;
    else
        *n = 22, *d = 1125;
}

rtp_tr21_limits rtp_tr21_limits_of(rtp_tr21_type t, int wide, uint32_t npackets, unsigned num,
                                   unsigned den, int interlaced, unsigned height)
{
    rtp_tr21_limits l = {wide ? 16u : 4u, wide ? 720u : 8u};
    if (!num || !den)
        return l;
    /* NPACKETS / (K x TFRAME) = NPACKETS x num x f / (K x den), INT() of it. */
    const uint64_t per = (uint64_t)npackets * num * (interlaced ? 2u : 1u);
    unsigned rn, rd;
    ractive(t, interlaced, height, &rn, &rd);
    const uint64_t c = wide ? per / (21600ull * den) : per * rd / (43200ull * den * rn);
    const uint64_t v = wide ? per / (300ull * den) : per / (27000ull * den);
    if (c > l.cmax)
        l.cmax = c > 0xffffffffu ? 0xffffffffu : (unsigned)c;
    if (v > l.vrx_full)
        l.vrx_full = v > 0xffffffffu ? 0xffffffffu : (unsigned)v;
    return l;
}

uint64_t rtp_tr21_tro_default_ns(unsigned height, int interlaced, unsigned num, unsigned den)
{
    if (!num || !den)
        return 0;
    unsigned mn, md;
    tro_default(height, interlaced, &mn, &md);
    return (uint64_t)((u128)mn * den * NS_PER_S / ((u128)md * num));
}

static void fill_limits(rtp_tr21 *a)
{
    const rtp_tr21_config *c = &a->cfg;
    rtp_tr21_stats *s = &a->st;
    s->narrow = rtp_tr21_limits_of(c->type, 0, s->npackets, c->rate_num, c->rate_den, c->interlaced,
                                   c->height);
    s->wide = rtp_tr21_limits_of(c->type, 1, s->npackets, c->rate_num, c->rate_den, c->interlaced,
                                 c->height);
    const rtp_tr21_limits *own = c->type == RTP_TR21_WIDE ? &s->wide : &s->narrow;
    s->cinst_max = own->cmax;
    s->vrx_full = own->vrx_full;
}

/* NPACKETS is known: the scaled constants. */
static void set_ready(rtp_tr21 *a, uint32_t npackets)
{
    const rtp_tr21_config *c = &a->cfg;
    const uint64_t np = npackets ? npackets : 1, den = c->rate_den;
    a->st.npackets = (uint32_t)np;
    a->ready = 1;
    if (c->has_troffset)
        a->mn = 0, a->md = 1;
    a->d = (i128)9 * a->q * np * a->rd * a->md;
    a->t_d = (i128)den * NS_PER_S * 9 * np * a->rd * a->md;  /* TFRAME x D */
    a->trs_d = (i128)den * NS_PER_S * 9 * a->rn * a->md;     /* TRS x D */
    a->tro_d = c->has_troffset ? (i128)c->troffset_ns * a->d /* TROFFSET x D */
                               : (i128)a->mn * den * NS_PER_S * 9 * a->f * np * a->rd;
    /* TDRAIN = TFRAME / NPACKETS / 1.1 = 10 x den x 10^9 / (11 x NPACKETS x q) ns */
    a->drain_num = (u128)11 * np * a->q;
    a->drain_den = (u128)10 * den * NS_PER_S;
    a->all_read = (i128)(np - 1) * a->trs_d;
    a->st.trs_ns = (double)a->trs_d / (double)a->d;
    a->st.troffset_ns = (double)a->tro_d / (double)a->d;
    a->st.tdrain_ns = (double)a->drain_den / (double)a->drain_num;
    fill_limits(a);
}

static void tr21_init(rtp_tr21 *a, const rtp_tr21_config *cfg)
{
    memset(a, 0, sizeof *a);
    a->cfg = *cfg;
    a->st.active = cfg->rate_num && cfg->rate_den;
    a->st.declared = cfg->type;
    a->st.clock_known = cfg->clock_known;
    a->f = cfg->interlaced ? 2 : 1;
    a->q = (uint64_t)cfg->rate_num * a->f;
    ractive(cfg->type, cfg->interlaced, cfg->height, &a->rn, &a->rd);
    tro_default(cfg->height, cfg->interlaced, &a->mn, &a->md);
    if (a->st.active && cfg->npackets)
        set_ready(a, cfg->npackets);
}

xsf_status rtp_tr21_create(rtp_tr21 **out, const rtp_tr21_config *cfg, xsf_error *err)
{
    *out = NULL;
    rtp_tr21 *a = malloc(sizeof *a);
    if (!a)
        return xsf_error_set(err, XSF_ERR_NOMEM, "no memory for the ST 2110-21 analysis");
    tr21_init(a, cfg);
    *out = a;
    return XSF_OK;
}

void rtp_tr21_destroy(rtp_tr21 *a)
{
    free(a);
}

/* floor(x / y), y > 0, for either sign of x. */
static i128 floor_div(i128 x, i128 y)
{
    const i128 q = x / y;
    return q * y > x ? q - 1 : q;
}

/* Frame instant N x TFRAME (N from the frame grid's origin, TFRAME x D = t_d) added to
 * an instant (int, frac) in place. */
static void add_frames(const rtp_tr21 *a, int64_t *i_int, i128 *i_frac, int64_t n)
{
    const i128 x = *i_frac + (i128)n * a->t_d;
    const i128 whole = floor_div(x, a->d);
    *i_int += (int64_t)whole;
    *i_frac = x - whole * a->d;
}

/* Nearest whole number of frames to `ticks` 90 kHz ticks. */
static int64_t frames_of_ticks(const rtp_tr21 *a, i128 ticks)
{
    const i128 den = (i128)RTP_CLOCK_HZ * a->cfg.rate_den;
    return (int64_t)floor_div(2 * ticks * (i128)a->q + den, 2 * den);
}

/* The instant of a new frame of timestamp ts whose first packet came at t. */
static void frame_instant(rtp_tr21 *a, frame_state *fr, uint64_t t, uint32_t ts)
{
    const rtp_tr21_config *c = &a->cfg;
    if (c->clock_known) {
        /* The timestamp's tick from the epoch, read against the clock at its arrival, then
         * its frame on the grid: N x TFRAME exactly (the tick is the instant cut to 1/90000
         * s, up to a tick early at 59.94 Hz). */
        const int64_t off = c->tai_offset_ns;
        const uint64_t tai = (uint64_t)((int64_t)t + off);
        const uint64_t tick_ns = rtp_tai_unwrap_ns(ts, tai);
        const u128 ticks = (u128)tick_ns * RTP_CLOCK_HZ / NS_PER_S;
        const u128 den = (u128)RTP_CLOCK_HZ * c->rate_den;
        const u128 n = (2 * ticks * a->q + den) / (2 * den);
        const u128 e = n * c->rate_den * NS_PER_S; /* the instant x q */
        fr->i_int = (int64_t)(uint64_t)(e / a->q) - off;
        fr->i_frac = (i128)(e % a->q) * (a->d / (i128)a->q);
        const int64_t tpr0 = (int64_t)(t - (uint64_t)((int64_t)tick_ns - off));
        if (!a->st.tpr0_count || tpr0 < a->st.tpr0_min_ns)
            a->st.tpr0_min_ns = tpr0;
        if (!a->st.tpr0_count || tpr0 > a->st.tpr0_max_ns)
            a->st.tpr0_max_ns = tpr0;
        a->st.tpr0_count++;
        a->tpr0_sum += (double)tpr0;
        a->st.tpr0_mean_ns = a->tpr0_sum / (double)a->st.tpr0_count;
        return;
    }
    /* Unknown clock: whole frames on from the last frame's instant by the timestamps; the
     * first frame (or one after a step back or of more than a second) on time. */
    const int32_t dt = a->anchored ? (int32_t)(ts - a->cur.ts) : 0;
    const int64_t n = a->anchored ? frames_of_ticks(a, dt) : 0;
    if (!a->anchored || n <= 0 || dt > RTP_CLOCK_HZ) {
        /* TVD = t: the instant is t - TROFFSET. */
        const i128 whole = floor_div(-a->tro_d, a->d);
        fr->i_int = (int64_t)t + (int64_t)whole;
        fr->i_frac = -a->tro_d - whole * a->d;
        a->anchored = 1;
        return;
    }
    fr->i_int = a->cur.i_int;
    fr->i_frac = a->cur.i_frac;
    add_frames(a, &fr->i_int, &fr->i_frac, n);
}

/* What frame fr holds at t: arrived - reads(t). */
static int64_t level(const rtp_tr21 *a, frame_state *fr, uint64_t t)
{
    /* x grows with t: a frame read whole at one arrival is read whole at every later one
     * (the frame before the one under way, mostly). */
    if (fr->read_whole && (int64_t)t >= fr->read_at)
        return (int64_t)fr->arrived - (int64_t)a->st.npackets;
    const i128 x = ((i128)(int64_t)t - fr->i_int) * a->d - fr->i_frac - a->tro_d;
    /* reads = x / TRS + 1 up to NPACKETS: all of them from (NPACKETS - 1) x TRS on. */
    if (x >= a->all_read) {
        fr->read_whole = 1;
        fr->read_at = (int64_t)t;
        return (int64_t)fr->arrived - (int64_t)a->st.npackets;
    }
    const i128 reads = x < 0 ? 0 : (i128)quot(&fr->reads, (u128)x, (u128)a->trs_d) + 1;
    return (int64_t)fr->arrived - (int64_t)reads;
}

static void measure(rtp_tr21 *a, uint64_t t, uint32_t ts, size_t bytes, int begins)
{
    rtp_tr21_stats *s = &a->st;
    s->packets++;
    if (bytes > s->packet_bytes_max)
        s->packet_bytes_max = bytes;
    /* Cinst */
    if (!a->c_started) {
        a->c_started = 1;
        a->c_t0 = t;
        a->cinst = 0;
    } else {
        const uint64_t k =
            t > a->c_t0
                ? (uint64_t)quot(&a->drains, (u128)(t - a->c_t0) * a->drain_num, a->drain_den)
                : 0;
        const uint64_t drained = k > a->c_drained ? k - a->c_drained : 0;
        if (k > a->c_drained)
            a->c_drained = k;
        const int64_t c =
            a->cinst + 1 - (int64_t)(drained > (uint64_t)INT64_MAX ? INT64_MAX : drained);
        a->cinst = c > 0 ? c : 0;
    }
    if ((uint64_t)a->cinst > s->cinst_peak)
        s->cinst_peak = (unsigned)a->cinst;
    /* VRX */
    frame_state *fr;
    if (begins) {
        frame_state nf = {1, ts, 0, 0, 0, {0, 0, 0}, 0, 0};
        frame_instant(a, &nf, t, ts);
        a->prev = a->cur;
        a->cur = nf;
        s->frames++;
        fr = &a->cur;
    } else {
        fr = ts == a->cur.ts ? &a->cur : &a->prev;
    }
    fr->arrived++;
    /* The packet's own frame is the one under way or the one before (then valid). */
    const int64_t lc = level(a, &a->cur, t);
    const int64_t lp = a->prev.valid ? level(a, &a->prev, t) : 0;
    const int64_t own = fr == &a->cur ? lc : lp;
    if (own < 0)
        s->underflows++;
    if (own < s->vrx_min || (s->packets == 1))
        s->vrx_min = own;
    const int64_t vrx = (lc > 0 ? lc : 0) + (lp > 0 ? lp : 0);
    if (vrx > s->vrx_peak)
        s->vrx_peak = vrx;
}

int rtp_tr21_packet(rtp_tr21 *a, uint64_t arrival_ns, uint32_t timestamp, int marker, size_t bytes)
{
    if (!a->st.active)
        return 0;
    const int changed = a->seen && timestamp != a->last_ts;
    a->seen = 1;
    a->last_ts = timestamp;
    if (a->phase == 0) {
        /* The first frame may have begun before the first packet: not measured. */
        if (!changed) {
            if (marker) { /* it ended: the next packet begins a whole frame */
                a->phase = a->ready ? 2 : 1;
                a->skip = 1;
                a->skip_ts = timestamp;
            }
            return 0;
        }
        a->phase = a->ready ? 2 : 1;
    }
    if (a->phase == 1) {
        if (changed && a->count) {
            set_ready(a, a->count); /* the frame counted ended without its marker */
            a->phase = 2;
        } else {
            a->count++;
            if (marker) { /* the frame counted ended: measuring from the next one */
                set_ready(a, a->count);
                a->phase = 2;
                a->skip = 1;
                a->skip_ts = timestamp;
            }
            return 0;
        }
    }
    if (a->skip && timestamp == a->skip_ts)
        return 0; /* a late packet of a frame not measured */
    a->skip = 0;
    /* A packet begins a frame when its timestamp is neither the frame under way's nor (a
     * late packet) the one before's. */
    const int begins =
        !a->cur.valid || (timestamp != a->cur.ts && !(a->prev.valid && timestamp == a->prev.ts));
    measure(a, arrival_ns, timestamp, bytes, begins);
    return begins;
}

void rtp_tr21_get(const rtp_tr21 *a, rtp_tr21_stats *out)
{
    *out = a->st;
    out->conforms = RTP_TR21_UNMEASURED;
    out->conforms_declared = 0;
    if (!out->frames)
        return;
    const int under = out->vrx_min < 0;
    if (!under && out->cinst_peak <= out->narrow.cmax && out->vrx_peak <= out->narrow.vrx_full)
        out->conforms = RTP_TR21_CONFORMS_NARROW;
    else if (!under && out->cinst_peak <= out->wide.cmax && out->vrx_peak <= out->wide.vrx_full)
        out->conforms = RTP_TR21_CONFORMS_WIDE;
    else
        out->conforms = RTP_TR21_CONFORMS_NOT;
    switch (out->declared) {
    case RTP_TR21_NARROW:
    case RTP_TR21_NARROW_LINEAR:
        out->conforms_declared = out->conforms == RTP_TR21_CONFORMS_NARROW;
        break;
    case RTP_TR21_WIDE:
        out->conforms_declared =
            out->conforms == RTP_TR21_CONFORMS_NARROW || out->conforms == RTP_TR21_CONFORMS_WIDE;
        break;
    default: break;
    }
}
