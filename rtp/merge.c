/* SMPTE ST 2022-7 seamless protection: the legs of a stream merged by RTP
 * sequence number (rtp_merge.h says what and the memory it holds).
 *
 * A ring of `window` slots, indexed by the extended number, remembers for
 * each of the last numbers which legs delivered it and when. A number is
 * settled (its losses counted, once) when it leaves the ring or when its
 * first copy is older than the skew window, whichever comes first; a copy
 * that comes after that is still recognised in the ring and dropped. */
#include <stdlib.h>
#include <string.h>

#include "rtp_internal.h"

/* Extended numbers start this high, so that a window below the first
 * number never underflows; what the statistics call the 32-bit extended
 * number is the low 32 bits. */
#define FIRST_CYCLES ((uint64_t)1 << 40)
/* RFC 3550 A.1: a jump forward this large is believed only when the next
 * packet of the leg follows it. */
#define MAX_DROPOUT 3000
/* Reordering at the very start: numbers this far before the first one
 * merged are passed on (untracked). */
#define START_SLACK 16
/* Skew histogram: buckets of 1/20 ms. */
#define SKEW_BUCKETS_PER_MS 20

typedef struct slot {
    uint64_t ext;      /* the number; 0: never used */
    uint64_t first_ns; /* the first copy's arrival (a hole: when a higher number came) */
    uint32_t ts;       /* the first copy's RTP timestamp */
    uint8_t legs;      /* the legs that delivered it, a bit each */
    uint8_t settled;
} slot;

typedef struct leg_state {
    int synced;
    uint64_t ext_last; /* its last packet's extended number */
    uint64_t last_ns;  /* its last packet's arrival */
    int counting;      /* losses are charged to it from first_ext on */
    uint64_t first_ext;
    int probing; /* A.1: a jump seen, believed if probe_seq comes next */
    uint16_t probe_seq;
    uint32_t *hist; /* skew to leg 0 */
} leg_state;

struct rtp_merger {
    rtp_merger_config c;
    size_t window, mask;
    uint64_t window_ns;
    unsigned half_buckets; /* the histogram spans +-half_buckets */
    slot *ring;
    uint64_t *arrival; /* window x legs: each leg's arrival of the slot's number */
    uint32_t *hist_all;
    int started;
    uint64_t start_ns, start_ext;
    uint64_t highest, base; /* the numbers tracked: [base, highest] */
    uint64_t settled_to;    /* every number below is settled */
    uint64_t ssrc_last_ns;
    rtp_seq_pace pace; /* of the merged sequence: a gap of every leg placed */
    uint64_t last_ext; /* the number of the packet offered last (0: passed unmerged, dropped) */
    leg_state leg[RTP_LEGS_MAX];
    rtp_merge_stats st;
};

static unsigned window_ms(const rtp_merger_config *c)
{
    return c->window_ms ? c->window_ms : RTP_MERGE_WINDOW_MS_DEFAULT;
}

size_t rtp_merger_window(const rtp_merger_config *c)
{
    const uint64_t rate = c->max_packet_rate ? c->max_packet_rate : RTP_MERGE_RATE_DEFAULT;
    const uint64_t want = rate * window_ms(c) / 1000;
    size_t w = 1024;
    while (w < want && w < ((size_t)1 << 24))
        w <<= 1;
    return w;
}

static unsigned half_buckets(const rtp_merger_config *c)
{
    return window_ms(c) * SKEW_BUCKETS_PER_MS;
}

size_t rtp_merger_memory_bound(const rtp_merger_config *c)
{
    const size_t legs = c->legs ? c->legs : 1;
    return sizeof(rtp_merger) + rtp_merger_window(c) * (sizeof(slot) + legs * sizeof(uint64_t)) +
           legs * (2 * (size_t)half_buckets(c) + 1) * sizeof(uint32_t);
}

unsigned rtp_merger_reorder_packets(const rtp_merger_config *c, unsigned packet_rate)
{
    const uint64_t rate = packet_rate          ? packet_rate
                          : c->max_packet_rate ? c->max_packet_rate
                                               : RTP_MERGE_RATE_DEFAULT;
    const uint64_t n = rate * window_ms(c) / 1000 + 1;
    return n > RTP_REORDER_GIVEN_MAX ? RTP_REORDER_GIVEN_MAX : n < 512 ? 512 : (unsigned)n;
}

xsf_status rtp_merger_create(rtp_merger **out, const rtp_merger_config *c, xsf_error *err)
{
    *out = NULL;
    if (c->legs < 1 || c->legs > RTP_LEGS_MAX)
        return xsf_error_set(err, XSF_ERR_ARG, "%u legs: a stream has 1 to %d", c->legs,
                             RTP_LEGS_MAX);
    if (window_ms(c) > RTP_MERGE_WINDOW_MS_MAX)
        return xsf_error_set(err, XSF_ERR_ARG, "a skew window of %u ms is not 1..%d", c->window_ms,
                             RTP_MERGE_WINDOW_MS_MAX);
    rtp_merger *m = calloc(1, sizeof *m);
    if (!m)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the merger");
    m->c = *c;
    m->window = rtp_merger_window(c);
    m->mask = m->window - 1;
    m->window_ns = (uint64_t)window_ms(c) * 1000000u;
    m->half_buckets = half_buckets(c);
    const size_t buckets = 2 * (size_t)m->half_buckets + 1;
    m->ring = calloc(m->window, sizeof *m->ring);
    m->arrival = calloc(m->window * c->legs, sizeof *m->arrival);
    m->hist_all = calloc(buckets * c->legs, sizeof *m->hist_all);
    if (!m->ring || !m->arrival || !m->hist_all) {
        rtp_merger_destroy(m);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a merge window of %zu packets",
                             rtp_merger_window(c));
    }
    for (unsigned k = 0; k < c->legs; k++)
        m->leg[k].hist = m->hist_all + k * buckets;
    m->st.legs = c->legs;
    m->st.window = m->window;
    m->st.memory_bytes = rtp_merger_memory_bound(c);
    *out = m;
    return XSF_OK;
}

void rtp_merger_destroy(rtp_merger *m)
{
    if (!m)
        return;
    free(m->ring);
    free(m->arrival);
    free(m->hist_all);
    free(m);
}

/* Counts number e's losses, once. */
static void settle(rtp_merger *m, uint64_t e)
{
    slot *s = &m->ring[e & m->mask];
    if (s->ext != e || s->settled)
        return;
    s->settled = 1;
    int missing = 0;
    for (unsigned k = 0; k < m->c.legs; k++) {
        const leg_state *l = &m->leg[k];
        if (l->counting && e >= l->first_ext && !(s->legs & (1u << k))) {
            m->st.leg[k].packets_lost++;
            missing = 1;
        }
    }
    if (!s->legs)
        m->st.packets_lost++;
    else if (missing)
        m->st.packets_recovered++;
}

static void settle_until(rtp_merger *m, uint64_t limit)
{
    if (m->settled_to + m->window < limit)
        m->settled_to = limit - m->window; /* below that, nothing is in the ring */
    while (m->settled_to < limit)
        settle(m, m->settled_to++);
}

/* Settles the numbers whose first copy is older than the window; notices silent legs. */
static void settle_by_time(rtp_merger *m, uint64_t now)
{
    if (now > m->st.now_ns)
        m->st.now_ns = now;
    now = m->st.now_ns;
    if (!m->started)
        return;
    while (m->settled_to <= m->highest) {
        const slot *s = &m->ring[m->settled_to & m->mask];
        if (s->ext == m->settled_to && !s->settled && now < s->first_ns + m->window_ns)
            break;
        settle(m, m->settled_to++);
    }
    for (unsigned k = 0; k < m->c.legs; k++) {
        const uint64_t ref = m->leg[k].last_ns ? m->leg[k].last_ns : m->start_ns;
        rtp_leg_stats *ls = &m->st.leg[k];
        if (!ls->silent && now >= ref + RTP_LEG_SILENT_NS) {
            ls->silent = 1;
            ls->silences++;
        }
    }
}

/* Forgets the merged sequence (a new SSRC, a sender's restart); the counts stay. */
static void restart(rtp_merger *m)
{
    if (m->started)
        settle_until(m, m->highest + 1);
    m->started = 0;
    memset(&m->pace, 0, sizeof m->pace);
    for (unsigned k = 0; k < m->c.legs; k++) {
        m->leg[k].synced = 0;
        m->leg[k].counting = 0;
        m->leg[k].probing = 0;
    }
}

static void start(rtp_merger *m, uint16_t seq, uint64_t t)
{
    /* After a restart, numbers above every earlier one (rtp_merger_ext only steps on). */
    const uint64_t cycles =
        m->highest ? (m->highest + m->window + 65536) & ~(uint64_t)65535 : FIRST_CYCLES;
    const uint64_t e = cycles + seq;
    memset(m->ring, 0, m->window * sizeof *m->ring);
    m->started = 1;
    if (!m->start_ns)
        m->start_ns = t;
    m->start_ext = e;
    m->highest = e - 1;
    m->base = e;
    m->settled_to = e;
}

/* Moves the highest number to e: the numbers skipped are holes since t. */
static void advance(rtp_merger *m, uint64_t e, uint64_t t)
{
    const uint64_t new_base = e + 1 > m->window ? e + 1 - m->window : 0;
    settle_until(m, new_base < m->highest + 1 ? new_base : m->highest + 1);
    if (new_base > m->highest + 1) {
        /* A gap longer than the window (every leg silent): its numbers never enter the
         * ring, and are lost on every leg that counts. */
        const uint64_t skipped = new_base - (m->highest + 1);
        m->st.packets_lost += skipped;
        for (unsigned k = 0; k < m->c.legs; k++)
            if (m->leg[k].counting)
                m->st.leg[k].packets_lost += skipped;
    }
    if (m->settled_to < new_base)
        m->settled_to = new_base;
    for (uint64_t n = m->highest + 1 > new_base ? m->highest + 1 : new_base; n <= e; n++) {
        slot *s = &m->ring[n & m->mask];
        s->ext = n;
        s->first_ns = t;
        s->ts = 0;
        s->legs = 0;
        s->settled = 0;
    }
    m->highest = e;
    if (new_base > m->base)
        m->base = new_base;
}

/* A leg's number with no history to extend it by: the one nearest the merged highest, or
 * where the window spans more than half the 16-bit space, the candidate a wrap apart
 * whose recorded timestamp is this packet's. */
static uint64_t align(const rtp_merger *m, uint16_t seq, uint32_t ts)
{
    const uint64_t near = m->highest + (uint64_t)(int64_t)(int16_t)(uint16_t)(seq - m->highest);
    for (uint64_t c = near; c >= m->base && c + m->window > m->highest; c -= 65536) {
        const slot *s = &m->ring[c & m->mask];
        if (s->ext == c && s->legs && s->ts == ts)
            return c;
        if (c < 65536)
            break;
    }
    return near;
}

static void skew_sample(rtp_merger *m, unsigned k, int64_t ns)
{
    rtp_leg_stats *ls = &m->st.leg[k];
    const double ms = (double)ns / 1e6;
    if (!ls->skew_samples ||
        (ms < 0 ? -ms : ms) > (ls->skew_max_ms < 0 ? -ls->skew_max_ms : ls->skew_max_ms))
        ls->skew_max_ms = ms;
    ls->skew_samples++;
    const int64_t h = m->half_buckets;
    int64_t b = (ns >= 0 ? ns + 25000 : ns - 25000) / (1000000 / SKEW_BUCKETS_PER_MS);
    b = b < -h ? -h : b > h ? h : b;
    m->leg[k].hist[b + h]++;
}

/* Skew samples of number e once leg k delivered it: against leg 0, both ways. */
static void skew_of(rtp_merger *m, uint64_t e, unsigned k, uint64_t t)
{
    const slot *s = &m->ring[e & m->mask];
    const uint64_t *arr = m->arrival + (e & m->mask) * m->c.legs;
    if (k && (s->legs & 1u)) {
        skew_sample(m, k, (int64_t)(t - arr[0]));
    } else if (!k) {
        for (unsigned j = 1; j < m->c.legs; j++)
            if (s->legs & (1u << j))
                skew_sample(m, j, (int64_t)(arr[j] - t));
    }
}

int rtp_merger_offer(rtp_merger *m, unsigned k, const uint8_t *p, size_t len, uint64_t t)
{
    if (k >= m->c.legs || len < RTP_HEADER_BYTES || (p[0] >> 6) != 2) {
        m->st.unmerged++;
        return 1;
    }
    const uint16_t seq = (uint16_t)(p[2] << 8 | p[3]);
    const uint32_t ts = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
    const uint32_t ssrc =
        (uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 | (uint32_t)p[10] << 8 | p[11];
    if (m->started && ssrc != m->st.ssrc) {
        if (t < m->ssrc_last_ns + RTP_SSRC_TIMEOUT_NS) {
            m->st.unmerged++; /* the depacketizer refuses it (another SSRC) */
            return 1;
        }
        restart(m);
        m->st.ssrc_changes++;
    }
    if (!m->started) {
        m->st.ssrc = ssrc;
        start(m, seq, t);
    }
    m->ssrc_last_ns = t;
    leg_state *l = &m->leg[k];
    rtp_leg_stats *ls = &m->st.leg[k];
    ls->packets_received++;
    if (!ls->first_arrival_ns)
        ls->first_arrival_ns = t;
    ls->last_arrival_ns = t;
    if (ls->silent) {
        ls->silent = 0;
        ls->returns++;
    }
    const int continuous = l->synced && t < l->last_ns + m->window_ns;
    l->last_ns = t;
    m->last_ext = 0;
    uint64_t e;
    /* Every leg silent for longer than the 16-bit numbers measure: the merged sequence's
     * pace places the packet; else a leg's own history, or the others'. */
    int placed = !continuous && rtp_seq_pace_expected(&m->pace, t) > 16384 &&
                 rtp_seq_pace_place(&m->pace, seq, ts, t, &e);
    if (!placed)
        e = continuous ? l->ext_last + (uint64_t)(int64_t)(int16_t)(uint16_t)(seq - l->ext_last)
                       : align(m, seq, ts);
    /* A jump the pace explains (a path restored): the numbers between are lost. */
    if (!placed && e > m->highest + MAX_DROPOUT)
        placed = rtp_seq_pace_place(&m->pace, seq, ts, t, &e);
    if (!placed && e > m->highest + MAX_DROPOUT) {
        /* A jump: a sender that restarted, or a stray packet. Believed when the leg's next
         * packet follows it; the merged sequence then starts again there. */
        if (!(l->probing && seq == l->probe_seq)) {
            l->probing = 1;
            l->probe_seq = (uint16_t)(seq + 1);
            m->st.unmerged++;
            settle_by_time(m, t);
            return 1;
        }
        restart(m);
        start(m, seq, t);
        e = m->start_ext;
    }
    l->probing = 0;
    l->synced = 1;
    l->ext_last = e;
    if (!l->counting) {
        l->counting = 1;
        l->first_ext = e;
    }
    int pass;
    if (e < m->base) {
        /* Behind the window; just before the start, reordering: passed on untracked. */
        pass = e < m->start_ext && e + START_SLACK >= m->start_ext && m->base == m->start_ext;
        if (pass)
            m->st.passed++;
        else
            m->st.too_old++;
    } else {
        if (e > m->highest) {
            advance(m, e, t);
            rtp_seq_pace_note(&m->pace, e, ts, t);
        }
        slot *s = &m->ring[e & m->mask];
        uint64_t *arr = m->arrival + (e & m->mask) * m->c.legs;
        const uint8_t bit = (uint8_t)(1u << k);
        if (s->legs & bit) {
            ls->duplicates++;
            m->st.dropped++;
            pass = 0;
        } else if (s->legs) {
            arr[k] = t;
            skew_of(m, e, k, t);
            s->legs |= bit;
            m->st.dropped++;
            pass = 0;
        } else {
            if (s->settled)
                m->st.late++;
            else
                s->first_ns = t;
            s->legs = bit;
            s->ts = ts;
            arr[k] = t;
            m->st.passed++;
            pass = 1;
        }
    }
    if (pass)
        m->last_ext = e;
    settle_by_time(m, t);
    return pass;
}

uint64_t rtp_merger_ext(const rtp_merger *m)
{
    return m->last_ext;
}

void rtp_merger_poll(rtp_merger *m, uint64_t now_ns)
{
    settle_by_time(m, now_ns);
}

void rtp_merger_flush(rtp_merger *m)
{
    if (m->started)
        settle_until(m, m->highest + 1);
}

static double skew_p50(const rtp_merger *m, unsigned k)
{
    const uint64_t n = m->st.leg[k].skew_samples;
    if (!n)
        return 0;
    const uint32_t *h = m->leg[k].hist;
    uint64_t acc = 0;
    const size_t buckets = 2 * (size_t)m->half_buckets + 1;
    for (size_t b = 0; b < buckets; b++) {
        acc += h[b];
        if (2 * acc >= n)
            return ((double)b - m->half_buckets) / SKEW_BUCKETS_PER_MS;
    }
    return 0;
}

const rtp_merge_stats *rtp_merger_stats(rtp_merger *m)
{
    for (unsigned k = 0; k < m->c.legs; k++) {
        rtp_leg_stats *ls = &m->st.leg[k];
        const uint64_t ref = ls->last_arrival_ns ? ls->last_arrival_ns : m->start_ns;
        ls->last_packet_age_ms = ref && m->st.now_ns > ref ? (double)(m->st.now_ns - ref) / 1e6 : 0;
        ls->skew_p50_ms = skew_p50(m, k);
    }
    return &m->st;
}
