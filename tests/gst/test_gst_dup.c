/* gst-check tests of xsflowjxsdepay with the two legs of SMPTE ST 2022-7: request pads
 * sink_N beside `sink`, merged by RTP sequence number (rtp/'s merger).
 *   - two harnesses on one element (one thread): independent loss on each leg (never the same
 *     packet on both), the second leg some packets behind, reordering and duplicates inside
 *     the legs: every frame whole and byte-exact, every count of the merge exact;
 *   - one leg absent (either): every frame; EOS only when both legs ended; one stream-start,
 *     one segment downstream;
 *   - two streaming threads pushing at once (the locks): as the first;
 *   - a leg silent for more than a second: one warning when it goes, one info when it is back,
 *     on the bus with the leg in the details;
 *   - two udpsrc elements on 127.0.0.1 (sockets bound here, packets sent here, to loopback
 *     only) with independent loss: every frame, counts exact.
 * The tests that push as fast as they can set dup-window=450: the skew between the legs is
 * a few packets, but a loaded machine may stall a thread past 50 ms between a packet and its
 * copy, which the merge would then count as lost on the late leg.
 * usage: test_gst_dup VECTOR_DIR */
#include <string.h>
#include <sys/socket.h>

#include <gio/gio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/rtp.h>

#include "xsflow_gst.h"

static const char *vector_dir;

static gboolean register_static(GstPlugin *plugin)
{
    return xsf_gst_register_elements(plugin);
}

/* The stream: a vector's codestreams, `loops` times over, and their RTP packets from the
 * payloader, with the caps it gives them. */
typedef struct stream {
    GPtrArray *frames;  /* GstBuffer: the codestreams, in order */
    GPtrArray *packets; /* GstBuffer: the RTP packets */
    GstCaps *caps;
} stream;

static void stream_make(stream *s, int loops)
{
    char *path = g_strdup_printf("%s/seq_5f_422_10b.jxs", vector_dir);
    gchar *data = NULL;
    gsize len = 0;
    fail_unless(g_file_get_contents(path, &data, &len, NULL), "cannot read %s", path);
    g_free(path);
    s->frames = g_ptr_array_new_with_free_func((GDestroyNotify)gst_buffer_unref);
    for (int l = 0; l < loops; l++)
        for (gsize off = 0; off < len;) {
            gsize n = 0;
            xsf_error err = {0};
            fail_unless(xsf_gst_codestream_size((const guint8 *)data + off, len - off, &n, &err) ==
                            XSF_OK,
                        "%s", err.msg);
            g_ptr_array_add(s->frames, gst_buffer_new_memdup(data + off, n));
            off += n;
        }
    g_free(data);
    GstHarness *pay = gst_harness_new_parse("xsflowjxspay mtu=1200 pt=112");
    gst_harness_set_src_caps_str(pay,
                                 "image/x-jxsc, alignment=frame, width=320, height=180, depth=10, "
                                 "sampling=YCbCr-4:2:2, framerate=50/1");
    for (guint i = 0; i < s->frames->len; i++) {
        GstBuffer *b = gst_buffer_copy(g_ptr_array_index(s->frames, i));
        GST_BUFFER_PTS(b) = i * GST_SECOND / 50;
        GST_BUFFER_DURATION(b) = GST_SECOND / 50;
        fail_unless_equals_int(gst_harness_push(pay, b), GST_FLOW_OK);
    }
    s->caps = gst_pad_get_current_caps(pay->sinkpad);
    s->packets = g_ptr_array_new_with_free_func((GDestroyNotify)gst_buffer_unref);
    for (GstBuffer *p; (p = gst_harness_try_pull(pay));)
        g_ptr_array_add(s->packets, p);
    gst_harness_teardown(pay);
    fail_unless(s->packets->len >= 19u * (guint)loops * 5, "%u packets", s->packets->len);
}

static void stream_free(stream *s)
{
    g_ptr_array_unref(s->frames);
    g_ptr_array_unref(s->packets);
    gst_caps_unref(s->caps);
}

/* What each leg does with the stream's packets: lost[i] bit k, packet i lost on leg k
 * (never on both; never the first or last packet); order[k]: the order leg k sends them in
 * (adjacent swaps); dup[k][j]: leg k sends its j-th packet twice. */
typedef struct plan {
    guint n;
    guint8 *lost;
    guint *order[2];
    guint8 *dup[2];
    guint lost_on[2], dups[2];
} plan;

static void plan_make(plan *p, guint n, guint32 seed, double loss, double reorder, double dup)
{
    GRand *r = g_rand_new_with_seed(seed);
    p->n = n;
    p->lost = g_new0(guint8, n);
    for (guint i = 1; i + 1 < n; i++) {
        const double x = g_rand_double(r);
        if (x < loss)
            p->lost[i] = 1;
        else if (x < 2 * loss)
            p->lost[i] = 2;
    }
    for (int k = 0; k < 2; k++) {
        p->order[k] = g_new(guint, n);
        p->dup[k] = g_new0(guint8, n);
        p->lost_on[k] = p->dups[k] = 0;
        for (guint i = 0; i < n; i++) {
            p->order[k][i] = i;
            p->lost_on[k] += (p->lost[i] >> k) & 1;
        }
        /* Not in the first packets: the merge starts at a leg's first number. */
        for (guint i = 4; i + 1 < n; i++)
            if (g_rand_double(r) < reorder) {
                const guint t = p->order[k][i];
                p->order[k][i] = p->order[k][i + 1];
                p->order[k][i + 1] = t;
                i++;
            }
        for (guint i = 0; i < n; i++)
            if (!((p->lost[p->order[k][i]] >> k) & 1) && g_rand_double(r) < dup) {
                p->dup[k][i] = 1;
                p->dups[k]++;
            }
    }
    g_rand_free(r);
    fail_unless(p->lost_on[0] > 0 && p->lost_on[1] > 0);
}

static void plan_free(plan *p)
{
    g_free(p->lost);
    for (int k = 0; k < 2; k++) {
        g_free(p->order[k]);
        g_free(p->dup[k]);
    }
}

/* Leg k's j-th send: pushes its packet (twice where the plan says) into h, unless lost. */
static void leg_send(GstHarness *h, const stream *s, const plan *p, int k, guint j)
{
    const guint i = p->order[k][j];
    if ((p->lost[i] >> k) & 1)
        return;
    for (int c = 0; c <= p->dup[k][j]; c++)
        fail_unless_equals_int(
            gst_harness_push(h, gst_buffer_ref(g_ptr_array_index(s->packets, i))), GST_FLOW_OK);
}

static guint64 get_u64(const GstStructure *st, const char *name)
{
    guint64 v = 0;
    fail_unless(gst_structure_get_uint64(st, name, &v), "no %s in %" GST_PTR_FORMAT, name, st);
    return v;
}

/* Leg k's statistics in the "legs" array. */
static const GstStructure *leg_stats(const GstStructure *st, guint k)
{
    const GValue *legs = gst_structure_get_value(st, "legs");
    fail_unless(legs && GST_VALUE_HOLDS_ARRAY(legs), "no legs in %" GST_PTR_FORMAT, st);
    fail_unless(k < gst_value_array_get_size(legs));
    return gst_value_get_structure(gst_value_array_get_value(legs, k));
}

static GstStructure *get_stats(GstElement *el)
{
    GstStructure *st = NULL;
    g_object_get(el, "stats", &st, NULL);
    fail_unless(st != NULL);
    return st;
}

/* The frames out of h (the element's src) are the stream's, all of them, in order. */
static void check_frames(GstHarness *h, const stream *s)
{
    fail_unless_equals_int(gst_harness_buffers_received(h), s->frames->len);
    for (guint i = 0; i < s->frames->len; i++) {
        GstBuffer *b = gst_harness_pull(h);
        GstMapInfo m, o;
        fail_unless(gst_buffer_map(b, &o, GST_MAP_READ));
        fail_unless(gst_buffer_map(g_ptr_array_index(s->frames, i), &m, GST_MAP_READ));
        fail_unless(o.size == m.size && !memcmp(o.data, m.data, m.size), "frame %u differs", i);
        gst_buffer_unmap(g_ptr_array_index(s->frames, i), &m);
        gst_buffer_unmap(b, &o);
        gst_buffer_unref(b);
    }
}

/* The counts of a merge of plan p: exact. */
static void check_counts(GstElement *el, const stream *s, const plan *p)
{
    GstStructure *st = get_stats(el);
    const guint64 n = p->n;
    fail_unless_equals_uint64(get_u64(st, "frames-complete"), s->frames->len);
    fail_unless_equals_uint64(get_u64(st, "frames-dropped"), 0);
    fail_unless_equals_uint64(get_u64(st, "lost"), 0);
    fail_unless_equals_uint64(get_u64(st, "packets"), n); /* first copies only */
    fail_unless_equals_uint64(get_u64(st, "packets-lost"), 0);
    fail_unless_equals_uint64(get_u64(st, "packets-recovered"), p->lost_on[0] + p->lost_on[1]);
    fail_unless_equals_uint64(get_u64(st, "copies-dropped"),
                              n - p->lost_on[0] - p->lost_on[1] + p->dups[0] + p->dups[1]);
    for (guint k = 0; k < 2; k++) {
        const GstStructure *l = leg_stats(st, k);
        fail_unless_equals_string(gst_structure_get_string(l, "pad"), k ? "sink_1" : "sink");
        fail_unless_equals_uint64(get_u64(l, "packets-received"), n - p->lost_on[k] + p->dups[k]);
        fail_unless_equals_uint64(get_u64(l, "packets-lost"), p->lost_on[k]);
        fail_unless_equals_uint64(get_u64(l, "duplicates"), p->dups[k]);
    }
    gst_structure_free(st);
}

/* An element with two legs: h[0] on `sink` (and the src), h[1] on sink_1. */
static void two_legs(GstHarness *h[2], const stream *s, guint window_ms)
{
    h[0] = gst_harness_new_with_padnames("xsflowjxsdepay", "sink", "src");
    if (window_ms)
        g_object_set(h[0]->element, "dup-window", window_ms, NULL);
    h[1] = gst_harness_new_with_element(h[0]->element, "sink_1", NULL);
    fail_unless(h[1] != NULL);
    gst_harness_set_src_caps(h[0], gst_caps_ref(s->caps));
    gst_harness_set_src_caps(h[1], gst_caps_ref(s->caps));
}

/* Counts events of a type in what reached h's sink. */
static guint pull_events(GstHarness *h, GstEventType type)
{
    guint n = 0;
    for (GstEvent *e; (e = gst_harness_try_pull_event(h));) {
        n += GST_EVENT_TYPE(e) == type;
        gst_event_unref(e);
    }
    return n;
}

GST_START_TEST(test_two_legs_loss)
{
    stream s;
    stream_make(&s, 4);
    plan p;
    plan_make(&p, s.packets->len, 7, 0.05, 0.03, 0.02);
    GstHarness *h[2];
    two_legs(h, &s, 450);
    const guint skew = 23; /* leg 2 that many packets behind */
    for (guint t = 0; t < p.n + skew; t++) {
        if (t < p.n)
            leg_send(h[0], &s, &p, 0, t);
        if (t >= skew)
            leg_send(h[1], &s, &p, 1, t - skew);
    }
    fail_unless(gst_harness_push_event(h[0], gst_event_new_eos()));
    fail_unless(gst_harness_push_event(h[1], gst_event_new_eos()));
    check_frames(h[0], &s);
    check_counts(h[0]->element, &s, &p);
    gst_harness_teardown(h[1]);
    gst_harness_teardown(h[0]);
    plan_free(&p);
    stream_free(&s);
}
GST_END_TEST;

/* One leg absent (never a packet, as a source whose network is down): every frame; the
 * stream ends when both legs ended; one stream-start and one segment downstream. */
static void check_one_leg(int present)
{
    stream s;
    stream_make(&s, 2);
    GstHarness *h[2];
    two_legs(h, &s, 0);
    for (guint i = 0; i < s.packets->len; i++)
        fail_unless_equals_int(
            gst_harness_push(h[present], gst_buffer_ref(g_ptr_array_index(s.packets, i))),
            GST_FLOW_OK);
    fail_unless(gst_harness_push_event(h[present], gst_event_new_eos()));
    fail_unless_equals_int(pull_events(h[0], GST_EVENT_EOS), 0); /* the other leg goes on */
    fail_unless(gst_harness_push_event(h[!present], gst_event_new_eos()));
    fail_unless_equals_int(pull_events(h[0], GST_EVENT_EOS), 1);
    check_frames(h[0], &s);
    GstStructure *st = get_stats(h[0]->element);
    guint window = 0;
    fail_unless(gst_structure_get_uint(st, "dup-window", &window) && window == 50);
    fail_unless_equals_uint64(get_u64(st, "frames-complete"), s.frames->len);
    fail_unless_equals_uint64(get_u64(st, "packets-lost"), 0);
    fail_unless_equals_uint64(get_u64(st, "packets-recovered"), 0);
    fail_unless_equals_uint64(get_u64(leg_stats(st, present), "packets-received"), s.packets->len);
    fail_unless_equals_uint64(get_u64(leg_stats(st, !present), "packets-received"), 0);
    fail_unless_equals_uint64(get_u64(leg_stats(st, !present), "packets-lost"), 0);
    gst_structure_free(st);
    gst_harness_teardown(h[1]);
    gst_harness_teardown(h[0]);
    stream_free(&s);
}

GST_START_TEST(test_one_leg_absent)
{
    check_one_leg(1);
    check_one_leg(0);
}
GST_END_TEST;

/* The serialized events of both legs: one stream-start, one segment go downstream (before
 * the first frame, after caps), whatever leg brings its events first. */
GST_START_TEST(test_events_once)
{
    stream s;
    stream_make(&s, 1);
    GstHarness *h[2];
    two_legs(h, &s, 0);
    for (guint i = 0; i < s.packets->len; i++) {
        fail_unless_equals_int(
            gst_harness_push(h[i & 1], gst_buffer_ref(g_ptr_array_index(s.packets, i))),
            GST_FLOW_OK);
        fail_unless_equals_int(
            gst_harness_push(h[!(i & 1)], gst_buffer_ref(g_ptr_array_index(s.packets, i))),
            GST_FLOW_OK);
    }
    fail_unless(gst_harness_push_event(h[1], gst_event_new_eos()));
    fail_unless(gst_harness_push_event(h[0], gst_event_new_eos()));
    guint starts = 0, segments = 0, caps = 0, eos = 0;
    for (GstEvent *e; (e = gst_harness_try_pull_event(h[0]));) {
        const GstEventType t = GST_EVENT_TYPE(e);
        fail_if(t == GST_EVENT_SEGMENT && caps == 0, "a segment before the caps");
        starts += t == GST_EVENT_STREAM_START;
        segments += t == GST_EVENT_SEGMENT;
        caps += t == GST_EVENT_CAPS;
        eos += t == GST_EVENT_EOS;
        gst_event_unref(e);
    }
    fail_unless_equals_int(starts, 1);
    fail_unless_equals_int(segments, 1);
    fail_unless_equals_int(caps, 1);
    fail_unless_equals_int(eos, 1);
    check_frames(h[0], &s);
    /* Every number on both legs: nothing recovered, every second copy dropped. */
    GstStructure *st = get_stats(h[0]->element);
    fail_unless_equals_uint64(get_u64(st, "copies-dropped"), s.packets->len);
    fail_unless_equals_uint64(get_u64(st, "packets-recovered"), 0);
    gst_structure_free(st);
    gst_harness_teardown(h[1]);
    gst_harness_teardown(h[0]);
    stream_free(&s);
}
GST_END_TEST;

/* Two threads, one a leg, pushing at once; neither more than `ahead` sends ahead of the
 * other (a bounded skew, as two network paths). */
typedef struct leg_thread {
    GstHarness *h;
    const stream *s;
    const plan *p;
    int k;
    guint *done; /* both legs' progress */
    GMutex *lock;
    GCond *cond;
} leg_thread;

static gpointer leg_run(gpointer data)
{
    leg_thread *t = data;
    const guint ahead = 16;
    for (guint j = 0; j < t->p->n; j++) {
        g_mutex_lock(t->lock);
        while (j > t->done[!t->k] + ahead)
            g_cond_wait(t->cond, t->lock);
        g_mutex_unlock(t->lock);
        leg_send(t->h, t->s, t->p, t->k, j);
        g_mutex_lock(t->lock);
        t->done[t->k] = j + 1;
        g_cond_broadcast(t->cond);
        g_mutex_unlock(t->lock);
    }
    g_mutex_lock(t->lock);
    t->done[t->k] = G_MAXUINT / 2;
    g_cond_broadcast(t->cond);
    g_mutex_unlock(t->lock);
    fail_unless(gst_harness_push_event(t->h, gst_event_new_eos()));
    return NULL;
}

GST_START_TEST(test_two_legs_threads)
{
    stream s;
    stream_make(&s, 8);
    plan p;
    plan_make(&p, s.packets->len, 11, 0.05, 0.02, 0.01);
    GstHarness *h[2];
    two_legs(h, &s, 450);
    GMutex lock;
    GCond cond;
    g_mutex_init(&lock);
    g_cond_init(&cond);
    guint done[2] = {0, 0};
    leg_thread lt[2];
    GThread *th[2];
    for (int k = 0; k < 2; k++) {
        lt[k] = (leg_thread){h[k], &s, &p, k, done, &lock, &cond};
        th[k] = g_thread_new(k ? "leg2" : "leg1", leg_run, &lt[k]);
    }
    for (int k = 0; k < 2; k++)
        g_thread_join(th[k]);
    g_mutex_clear(&lock);
    g_cond_clear(&cond);
    fail_unless_equals_int(pull_events(h[0], GST_EVENT_EOS), 1);
    check_frames(h[0], &s);
    check_counts(h[0]->element, &s, &p);
    gst_harness_teardown(h[1]);
    gst_harness_teardown(h[0]);
    plan_free(&p);
    stream_free(&s);
}
GST_END_TEST;

/* The leg messages on the bus: (silent, leg) of each, in order, as "1:1 0:1". */
static GString *leg_messages(GstBus *bus)
{
    GString *out = g_string_new(NULL);
    for (GstMessage *m; (m = gst_bus_pop(bus));) {
        const GstStructure *d = NULL;
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING)
            gst_message_parse_warning_details(m, &d);
        else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_INFO)
            gst_message_parse_info_details(m, &d);
        gboolean silent = FALSE;
        guint leg = 0;
        if (d && gst_structure_get_boolean(d, "silent", &silent) &&
            gst_structure_get_uint(d, "leg", &leg))
            g_string_append_printf(out, "%s%d:%u", out->len ? " " : "", silent, leg);
        gst_message_unref(m);
    }
    return out;
}

/* A leg silent for over a second (a pulled cable): logged once when it goes, once when it is
 * back; no frame lost. */
GST_START_TEST(test_leg_silence)
{
    stream s;
    stream_make(&s, 2);
    GstHarness *h[2];
    two_legs(h, &s, 0);
    GstBus *bus = gst_bus_new();
    gst_element_set_bus(h[0]->element, bus);
    const guint n = s.packets->len, cut = n / 3, back = 2 * n / 3;
    for (guint i = 0; i < n; i++) {
        if (i == cut)
            g_usleep(1100 * 1000); /* leg 2 silent from here */
        if (i == back || i == back + 1)
            g_usleep(150 * 1000); /* the silences are looked at every 100 ms */
        fail_unless_equals_int(
            gst_harness_push(h[0], gst_buffer_ref(g_ptr_array_index(s.packets, i))), GST_FLOW_OK);
        if (i < cut || i >= back)
            fail_unless_equals_int(
                gst_harness_push(h[1], gst_buffer_ref(g_ptr_array_index(s.packets, i))),
                GST_FLOW_OK);
    }
    fail_unless(gst_harness_push_event(h[0], gst_event_new_eos()));
    fail_unless(gst_harness_push_event(h[1], gst_event_new_eos()));
    GString *msgs = leg_messages(bus);
    fail_unless_equals_string(msgs->str, "1:1 0:1");
    g_string_free(msgs, TRUE);
    check_frames(h[0], &s);
    GstStructure *st = get_stats(h[0]->element);
    const GstStructure *l = leg_stats(st, 1);
    fail_unless_equals_uint64(get_u64(l, "silences"), 1);
    fail_unless_equals_uint64(get_u64(l, "returns"), 1);
    fail_unless_equals_uint64(get_u64(l, "packets-lost"), back - cut);
    fail_unless_equals_uint64(get_u64(st, "packets-recovered"), back - cut);
    gst_structure_free(st);
    gst_element_set_bus(h[0]->element, NULL);
    gst_object_unref(bus);
    gst_harness_teardown(h[1]);
    gst_harness_teardown(h[0]);
    stream_free(&s);
}
GST_END_TEST;

/* ---- two udpsrc elements on 127.0.0.1 ---- */

static GSocket *bound_socket(guint16 *port)
{
    GError *e = NULL;
    GSocket *sock =
        g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_UDP, &e);
    fail_unless(sock != NULL, "socket: %s", e ? e->message : "");
    GSocketAddress *a = g_inet_socket_address_new_from_string("127.0.0.1", 0);
    fail_unless(g_socket_bind(sock, a, FALSE, &e), "bind: %s", e ? e->message : "");
    g_object_unref(a);
    g_socket_set_option(sock, SOL_SOCKET, SO_RCVBUF, 4 << 20, NULL); /* best effort */
    GSocketAddress *local = g_socket_get_local_address(sock, &e);
    *port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(local));
    g_object_unref(local);
    return sock;
}

static void on_handoff(GstElement *sink, GstBuffer *b, GstPad *pad, gpointer data)
{
    (void)sink;
    (void)pad;
    g_ptr_array_add(data, gst_buffer_ref(b)); /* one streaming thread at a time (depay_lock) */
}

GST_START_TEST(test_two_udpsrc)
{
    GstElementFactory *f = gst_element_factory_find("udpsrc");
    if (!f) {
        GST_INFO("udpsrc not installed (gst-plugins-good): skipped");
        return;
    }
    gst_object_unref(f);
    stream s;
    stream_make(&s, 4);
    plan p;
    plan_make(&p, s.packets->len, 13, 0.05, 0, 0);
    guint16 port[2];
    GSocket *rx[2] = {bound_socket(&port[0]), bound_socket(&port[1])};
    gchar *caps = gst_caps_to_string(s.caps);
    gchar *desc = g_strdup_printf("xsflowjxsdepay name=d dup-window=450 ! fakesink name=out "
                                  "signal-handoffs=true sync=false async=false "
                                  "udpsrc name=u0 close-socket=false caps=\"%s\" ! d.sink "
                                  "udpsrc name=u1 close-socket=false caps=\"%s\" ! d.sink_1",
                                  caps, caps);
    GError *e = NULL;
    GstElement *pipe = gst_parse_launch(desc, &e);
    fail_unless(pipe != NULL && !e, "%s: %s", desc, e ? e->message : "");
    g_free(desc);
    g_free(caps);
    for (int k = 0; k < 2; k++) {
        GstElement *u = gst_bin_get_by_name(GST_BIN(pipe), k ? "u1" : "u0");
        g_object_set(u, "socket", rx[k], NULL);
        gst_object_unref(u);
    }
    GPtrArray *got = g_ptr_array_new_with_free_func((GDestroyNotify)gst_buffer_unref);
    GstElement *out = gst_bin_get_by_name(GST_BIN(pipe), "out");
    g_signal_connect(out, "handoff", G_CALLBACK(on_handoff), got);
    gst_object_unref(out);
    GstElement *depay = gst_bin_get_by_name(GST_BIN(pipe), "d");
    /* The sockets are bound: what is sent from now on waits in them. */
    fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);

    GSocket *tx =
        g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_UDP, &e);
    fail_unless(tx != NULL);
    GSocketAddress *to[2];
    for (int k = 0; k < 2; k++)
        to[k] = g_inet_socket_address_new_from_string("127.0.0.1", port[k]);
    for (guint i = 0; i < p.n; i++) {
        GstMapInfo m;
        fail_unless(gst_buffer_map(g_ptr_array_index(s.packets, i), &m, GST_MAP_READ));
        for (int k = 0; k < 2; k++)
            if (!((p.lost[i] >> k) & 1))
                fail_unless(g_socket_send_to(tx, to[k], (const gchar *)m.data, m.size, NULL, &e) ==
                            (gssize)m.size);
        gst_buffer_unmap(g_ptr_array_index(s.packets, i), &m);
        if (i % 16 == 15)
            g_usleep(1000);
    }
    /* Both legs' packets taken in (at most 10 s), then the end. */
    for (int waited = 0; waited < 1000; waited++) {
        GstStructure *st = get_stats(depay);
        const GValue *legs = gst_structure_get_value(st, "legs");
        const gboolean all = legs && gst_value_array_get_size(legs) == 2 &&
                             get_u64(leg_stats(st, 0), "packets-received") == p.n - p.lost_on[0] &&
                             get_u64(leg_stats(st, 1), "packets-received") == p.n - p.lost_on[1];
        gst_structure_free(st);
        if (all)
            break;
        g_usleep(10 * 1000);
    }
    fail_unless(gst_element_send_event(pipe, gst_event_new_eos()));
    GstBus *bus = gst_element_get_bus(pipe);
    GstMessage *msg =
        gst_bus_timed_pop_filtered(bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless(msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS, "no EOS");
    gst_message_unref(msg);
    gst_object_unref(bus);
    check_counts(depay, &s, &p);
    fail_unless_equals_int(gst_element_set_state(pipe, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    fail_unless_equals_int(got->len, s.frames->len);
    for (guint i = 0; i < got->len; i++) {
        GstMapInfo m, o;
        fail_unless(gst_buffer_map(g_ptr_array_index(got, i), &o, GST_MAP_READ));
        fail_unless(gst_buffer_map(g_ptr_array_index(s.frames, i), &m, GST_MAP_READ));
        fail_unless(o.size == m.size && !memcmp(o.data, m.data, m.size), "frame %u differs", i);
        gst_buffer_unmap(g_ptr_array_index(s.frames, i), &m);
        gst_buffer_unmap(g_ptr_array_index(got, i), &o);
    }
    gst_object_unref(depay);
    gst_object_unref(pipe);
    g_ptr_array_unref(got);
    for (int k = 0; k < 2; k++) {
        g_object_unref(to[k]);
        g_socket_close(rx[k], NULL);
        g_object_unref(rx[k]);
    }
    g_object_unref(tx);
    plan_free(&p);
    stream_free(&s);
}
GST_END_TEST;

/* Pads: sink_1.. requested by name or not, sink_0 and a fifth leg refused; one leg without
 * request pads has the statistics of before (no merge fields). */
GST_START_TEST(test_pads)
{
    GstElement *el = gst_element_factory_make("xsflowjxsdepay", NULL);
    fail_unless(el != NULL);
    GstStructure *st = get_stats(el);
    fail_if(gst_structure_has_field(st, "legs"));
    gst_structure_free(st);
    guint window = 0;
    g_object_get(el, "dup-window", &window, NULL);
    fail_unless_equals_int(window, 50);
    GstPad *a = gst_element_request_pad_simple(el, "sink_%u");
    GstPad *b = gst_element_request_pad_simple(el, "sink_3");
    fail_unless(a && b);
    fail_unless_equals_string(GST_PAD_NAME(a), "sink_1");
    fail_unless_equals_string(GST_PAD_NAME(b), "sink_3");
    GstPad *c = gst_element_request_pad_simple(el, "sink_%u");
    fail_unless(c != NULL);
    fail_unless_equals_string(GST_PAD_NAME(c), "sink_2");
    fail_unless(gst_element_request_pad_simple(el, "sink_%u") == NULL);
    gst_element_release_request_pad(el, a);
    gst_object_unref(a);
    fail_unless(gst_element_request_pad_simple(el, "sink_0") == NULL);
    st = get_stats(el);
    const GValue *legs = gst_structure_get_value(st, "legs");
    fail_unless(legs && gst_value_array_get_size(legs) == 4);
    gst_structure_free(st);
    gst_element_release_request_pad(el, b);
    gst_element_release_request_pad(el, c);
    gst_object_unref(b);
    gst_object_unref(c);
    st = get_stats(el);
    fail_if(gst_structure_has_field(st, "legs"));
    gst_structure_free(st);
    gst_object_unref(el);
}
GST_END_TEST;

static Suite *dup_suite(void)
{
    Suite *s = suite_create("xsflowjxsdepay-dup");
    TCase *tc = tcase_create("legs");
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    tcase_add_test(tc, test_pads);
    tcase_add_test(tc, test_two_legs_loss);
    tcase_add_test(tc, test_one_leg_absent);
    tcase_add_test(tc, test_events_once);
    tcase_add_test(tc, test_two_legs_threads);
    tcase_add_test(tc, test_leg_silence);
    tcase_add_test(tc, test_two_udpsrc);
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        g_printerr("usage: %s VECTOR_DIR\n", argv[0]);
        return 2;
    }
    vector_dir = argv[1];
    gst_check_init(&argc, &argv);
    if (!gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "xsflow",
                                    "xsflow elements", register_static, "0", "unknown", "xsflow",
                                    "xsflow", "none"))
        return 1;
    return gst_check_run_suite(dup_suite(), "xsflowjxsdepay-dup", __FILE__);
}
