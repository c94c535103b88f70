/* gst-check unit tests of the plugin's elements (GstHarness), registered
 * statically so that they run under the sanitizers too.
 * usage: test_gst_elements VECTOR_DIR */
#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/rtp.h>
#include <gst/video/video.h>

#include "rtp.h"
#include "xsflow_gst.h"

static const char *vector_dir;

static gboolean register_static(GstPlugin *plugin)
{
    return xsf_gst_register_elements(plugin);
}

static GBytes *read_vector(const char *name)
{
    char *path = g_strdup_printf("%s/%s.jxs", vector_dir, name);
    gchar *data = NULL;
    gsize len = 0;
    fail_unless(g_file_get_contents(path, &data, &len, NULL), "cannot read %s", path);
    g_free(path);
    return g_bytes_new_take(data, len);
}

/* The manifest's MD5 of a vector. */
static gchar *manifest_md5(const char *name)
{
    char *path = g_build_filename(vector_dir, "MANIFEST.tsv", NULL), *text = NULL;
    fail_unless(g_file_get_contents(path, &text, NULL, NULL));
    gchar *md5 = NULL;
    gchar **lines = g_strsplit(text, "\n", -1);
    for (gchar **l = lines; *l && !md5; l++) {
        gchar **f = g_strsplit(*l, "\t", -1);
        if (g_strv_length(f) >= 11 && !strcmp(f[0], name))
            md5 = g_strdup(f[10]);
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(text);
    g_free(path);
    fail_unless(md5 != NULL, "%s not in the manifest", name);
    return md5;
}

/* The codestreams of a .jxs file, each as its own buffer. */
static GPtrArray *split_codestreams(GBytes *file)
{
    GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify)gst_buffer_unref);
    gsize len = 0, off = 0;
    const guint8 *d = g_bytes_get_data(file, &len);
    while (off < len) {
        gsize n = 0;
        xsf_error err = {0};
        fail_unless(xsf_gst_codestream_size(d + off, len - off, &n, &err) == XSF_OK, "%s", err.msg);
        g_ptr_array_add(a, gst_buffer_new_memdup(d + off, n));
        off += n;
    }
    return a;
}

static gboolean buffer_equals(GstBuffer *b, const guint8 *data, gsize len)
{
    GstMapInfo m;
    fail_unless(gst_buffer_map(b, &m, GST_MAP_READ));
    const gboolean eq = m.size == len && memcmp(m.data, data, len) == 0;
    gst_buffer_unmap(b, &m);
    return eq;
}

GST_START_TEST(test_states)
{
    static const char *const names[] = {"xsflowdec", "xsflowenc", "xsflowjxsparse", "xsflowjxspay",
                                        "xsflowjxsdepay"};
    static const GstState order[] = {GST_STATE_READY,   GST_STATE_PAUSED, GST_STATE_PLAYING,
                                     GST_STATE_PAUSED,  GST_STATE_READY,  GST_STATE_NULL,
                                     GST_STATE_PLAYING, GST_STATE_NULL};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        GstElement *e = gst_element_factory_make(names[i], NULL);
        fail_unless(e != NULL, "no element %s", names[i]);
        for (size_t s = 0; s < G_N_ELEMENTS(order); s++)
            fail_unless(gst_element_set_state(e, order[s]) != GST_STATE_CHANGE_FAILURE,
                        "%s: state %s", names[i], gst_element_state_get_name(order[s]));
        gst_object_unref(e);
    }
}
GST_END_TEST;

GST_START_TEST(test_parse_chunks)
{
    GBytes *file = read_vector("seq_5f_422_10b");
    GPtrArray *cs = split_codestreams(file);
    fail_unless_equals_int(cs->len, 5);
    GstHarness *h = gst_harness_new("xsflowjxsparse");
    gst_harness_set_src_caps_str(h, "image/x-jxsc");
    gsize len = 0;
    const guint8 *d = g_bytes_get_data(file, &len);
    /* Some junk first, then the file in pieces that cut markers in two. */
    static const guint8 junk[] = {0x00, 0xff, 0x10, 0x12, 0xff};
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_new_memdup(junk, sizeof junk)),
                           GST_FLOW_OK);
    for (gsize off = 0; off < len; off += 777)
        fail_unless_equals_int(
            gst_harness_push(h, gst_buffer_new_memdup(d + off, MIN(777, len - off))), GST_FLOW_OK);
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    fail_unless_equals_int(gst_harness_buffers_received(h), 5);
    for (guint i = 0; i < 5; i++) {
        GstBuffer *b = gst_harness_pull(h);
        GstMapInfo m;
        gst_buffer_map(g_ptr_array_index(cs, i), &m, GST_MAP_READ);
        fail_unless(buffer_equals(b, m.data, m.size), "codestream %u differs", i);
        gst_buffer_unmap(g_ptr_array_index(cs, i), &m);
        gst_buffer_unref(b);
    }
    GstCaps *caps = gst_pad_get_current_caps(h->sinkpad);
    const GstStructure *s = gst_caps_get_structure(caps, 0);
    int w = 0, hh = 0, depth = 0;
    fail_unless(gst_structure_get_int(s, "width", &w) && w == 320);
    fail_unless(gst_structure_get_int(s, "height", &hh) && hh == 180);
    fail_unless(gst_structure_get_int(s, "depth", &depth) && depth == 10);
    fail_unless_equals_string(gst_structure_get_string(s, "sampling"), "YCbCr-4:2:2");
    fail_unless_equals_string(gst_structure_get_string(s, "alignment"), "frame");
    gst_caps_unref(caps);
    gst_harness_teardown(h);
    g_ptr_array_unref(cs);
    g_bytes_unref(file);
}
GST_END_TEST;

/* The sampling in the parser's caps, from each codestream's CDT; and the
 * rule for 4:4:4: with the RCT (Cpih=1, 21122-1 F.3) the components are
 * RGB, without it YCbCr (the vectors carry no RCT: a header says it here). */
GST_START_TEST(test_parse_sampling)
{
    static const struct {
        const char *name, *sampling;
    } cases[] = {
        {"fmt_yuv444_10b", "YCbCr-4:4:4"},
        {"fmt_yuv422_10b", "YCbCr-4:2:2"},
        {"fmt_yuv420_10b", "YCbCr-4:2:0"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GBytes *file = read_vector(cases[i].name);
        GstHarness *h = gst_harness_new("xsflowjxsparse");
        gst_harness_set_src_caps_str(h, "image/x-jxsc");
        fail_unless_equals_int(gst_harness_push(h, gst_buffer_new_wrapped_bytes(file)),
                               GST_FLOW_OK);
        fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
        fail_unless_equals_int(gst_harness_buffers_received(h), 1);
        GstCaps *caps = gst_pad_get_current_caps(h->sinkpad);
        fail_unless_equals_string(
            gst_structure_get_string(gst_caps_get_structure(caps, 0), "sampling"),
            cases[i].sampling);
        gst_caps_unref(caps);
        gst_harness_teardown(h);
        if (i == 0) {
            gsize len = 0;
            const guint8 *d = g_bytes_get_data(file, &len);
            xs_header hdr;
            xsf_error err = {0};
            fail_unless(xs_parse_header(d, len, &hdr, &err) == XSF_OK, "%s", err.msg);
            fail_unless(hdr.cpih == 0);
            fail_unless_equals_string(xsf_gst_sampling_name(&hdr), "YCbCr-4:4:4");
            hdr.cpih = 1;
            fail_unless_equals_string(xsf_gst_sampling_name(&hdr), "RGB");
        }
        g_bytes_unref(file);
    }
}
GST_END_TEST;

/* Decodes a vector through the decoder alone (several frames in flight) and
 * compares the MD5 of the tight planes with the manifest. */
static void check_decode(const char *name, const char *device, const char *in_flight)
{
    GBytes *file = read_vector(name);
    GPtrArray *cs = split_codestreams(file);
    char *desc = g_strdup_printf("xsflowdec device=%s frames-in-flight=%s", device, in_flight);
    GstHarness *h = gst_harness_new_parse(desc);
    g_free(desc);
    gst_harness_set_src_caps_str(h, "image/x-jxsc, alignment=frame, interlace-mode=progressive");
    for (guint i = 0; i < cs->len; i++)
        fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(g_ptr_array_index(cs, i))),
                               GST_FLOW_OK);
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    fail_unless_equals_int(gst_harness_buffers_received(h), cs->len);
    GstCaps *caps = gst_pad_get_current_caps(h->sinkpad);
    GstVideoInfo info;
    fail_unless(gst_video_info_from_caps(&info, caps));
    gst_caps_unref(caps);
    GChecksum *md5 = g_checksum_new(G_CHECKSUM_MD5);
    for (guint i = 0; i < cs->len; i++) {
        GstBuffer *b = gst_harness_pull(h);
        GstVideoFrame vf;
        fail_unless(gst_video_frame_map(&vf, &info, b, GST_MAP_READ));
        for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(&vf); c++)
            for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&vf, c); y++)
                g_checksum_update(md5,
                                  GST_VIDEO_FRAME_COMP_DATA(&vf, c) +
                                      (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE(&vf, c),
                                  (gsize)GST_VIDEO_FRAME_COMP_WIDTH(&vf, c) *
                                      GST_VIDEO_FRAME_COMP_PSTRIDE(&vf, c));
        gst_video_frame_unmap(&vf);
        gst_buffer_unref(b);
    }
    gchar *want = manifest_md5(name);
    fail_unless_equals_string(g_checksum_get_string(md5), want);
    g_free(want);
    g_checksum_free(md5);
    gst_harness_teardown(h);
    g_ptr_array_unref(cs);
    g_bytes_unref(file);
}

GST_START_TEST(test_decode_vectors)
{
    check_decode("seq_5f_422_10b", "cpu", "3");
    check_decode("seq_5f_422_10b", "cpu", "1");
    check_decode("geom_334x78_420", "auto", "0");
    check_decode("fmt_yuv444_12b", "auto", "2");
}
GST_END_TEST;

GST_START_TEST(test_decode_bad_input)
{
    GBytes *file = read_vector("fmt_yuv422_10b");
    gsize len = 0;
    const guint8 *d = g_bytes_get_data(file, &len);
    GstHarness *h = gst_harness_new_parse("xsflowdec device=cpu");
    gst_harness_set_src_caps_str(h, "image/x-jxsc, alignment=frame");
    /* A codestream cut short, one with its slices flipped, then a good one. */
    gst_harness_push(h, gst_buffer_new_memdup(d, len / 2));
    guint8 *bad = g_memdup2(d, len);
    for (gsize i = 200; i < len; i += 7)
        bad[i] ^= 0x5a;
    gst_harness_push(h, gst_buffer_new_wrapped(bad, len));
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_new_memdup(d, len)), GST_FLOW_OK);
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    /* The good frame comes out; the bad ones are dropped or concealed, never more. */
    const guint n = gst_harness_buffers_received(h);
    fail_unless(n >= 1 && n <= 3, "%u pictures", n);
    gst_harness_teardown(h);
    g_bytes_unref(file);
}
GST_END_TEST;

/* The MD5 of a decoded frame's components, tight rows (the manifest's
 * layout), read through `info` (and the buffer's GstVideoMeta if any). */
static gchar *frame_md5(GstBuffer *b, const GstVideoInfo *info)
{
    GChecksum *md5 = g_checksum_new(G_CHECKSUM_MD5);
    GstVideoFrame vf;
    fail_unless(gst_video_frame_map(&vf, (GstVideoInfo *)info, b, GST_MAP_READ));
    for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(&vf); c++)
        for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&vf, c); y++)
            g_checksum_update(
                md5,
                GST_VIDEO_FRAME_COMP_DATA(&vf, c) + (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE(&vf, c),
                (gsize)GST_VIDEO_FRAME_COMP_WIDTH(&vf, c) * GST_VIDEO_FRAME_COMP_PSTRIDE(&vf, c));
    gst_video_frame_unmap(&vf);
    gchar *hex = g_strdup(g_checksum_get_string(md5));
    g_checksum_free(md5);
    return hex;
}

static void video_info(GstVideoInfo *info, const char *caps_str)
{
    GstCaps *caps = gst_caps_from_string(caps_str);
    fail_unless(gst_video_info_from_caps(info, caps), "%s", caps_str);
    gst_caps_unref(caps);
}

/* A picture lent by the decoder (zero copy) rather than a buffer of the
 * negotiated pool. */
static gboolean is_lent(GstBuffer *b)
{
    return b->pool == NULL;
}

/* geom_346x199 (4:2:2 10-bit): chroma rows of 173 samples, 346 bytes, which
 * GStreamer's default I422_10LE layout pads to 348. Downstream holds every
 * picture: pool-frames=4 with one decoder lends at most 2, the others are
 * copied (the decoder never starves); once downstream lets go, pictures are
 * lent again. With video meta the lent pictures keep their tight rows (the
 * meta says so); without it, or with zero-copy=false, every picture is a
 * copy in GStreamer's layout. Every frame has the manifest's MD5. */
static void check_lending(gboolean downstream_meta, gboolean zero_copy)
{
    GBytes *file = read_vector("geom_346x199");
    GPtrArray *cs = split_codestreams(file);
    fail_unless_equals_int(cs->len, 1);
    char *desc =
        g_strdup_printf("xsflowdec device=cpu frames-in-flight=1 pool-frames=4 zero-copy=%s",
                        zero_copy ? "true" : "false");
    GstHarness *h = gst_harness_new_parse(desc);
    g_free(desc);
    if (downstream_meta)
        gst_harness_add_propose_allocation_meta(h, GST_VIDEO_META_API_TYPE, NULL);
    gst_harness_set_src_caps_str(h, "image/x-jxsc, alignment=frame, interlace-mode=progressive");
    GstVideoInfo info;
    video_info(&info, "video/x-raw, format=I422_10LE, width=346, height=199");
    fail_unless_equals_int(GST_VIDEO_INFO_PLANE_STRIDE(&info, 1), 348);
    gchar *want = manifest_md5("geom_346x199");
    enum { HELD = 8, LEND_LIMIT = 2 };
    for (int i = 0; i < HELD; i++)
        fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(g_ptr_array_index(cs, 0))),
                               GST_FLOW_OK);
    GstBuffer *held[HELD];
    int lent = 0;
    for (int i = 0; i < HELD; i++) {
        held[i] = gst_harness_pull(h);
        fail_unless(held[i] != NULL);
        GstVideoMeta *meta = gst_buffer_get_video_meta(held[i]);
        if (is_lent(held[i])) {
            lent++;
            fail_unless(meta != NULL,
                        "a lent picture with other strides than GStreamer's needs its meta");
            fail_unless_equals_int(meta->stride[1], 346);
            fail_unless_equals_int(meta->offset[1], 346 * 199 * 2);
        } else if (!downstream_meta) {
            fail_unless(meta == NULL);
        }
        gchar *got = frame_md5(held[i], &info);
        fail_unless_equals_string(got, want);
        g_free(got);
    }
    fail_unless_equals_int(lent, downstream_meta && zero_copy ? LEND_LIMIT : 0);
    for (int i = 0; i < HELD; i++)
        gst_buffer_unref(held[i]);
    /* Downstream let go: lent again. */
    for (int i = 0; i < 2; i++)
        fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(g_ptr_array_index(cs, 0))),
                               GST_FLOW_OK);
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    for (int i = 0; i < 2; i++) {
        GstBuffer *b = gst_harness_pull(h);
        fail_unless_equals_int(is_lent(b), downstream_meta && zero_copy);
        gchar *got = frame_md5(b, &info);
        fail_unless_equals_string(got, want);
        g_free(got);
        gst_buffer_unref(b);
    }
    fail_unless(gst_harness_try_pull(h) == NULL);
    g_free(want);
    gst_harness_teardown(h);
    g_ptr_array_unref(cs);
    g_bytes_unref(file);
}

GST_START_TEST(test_decode_zero_copy)
{
    check_lending(TRUE, TRUE);
    check_lending(FALSE, TRUE);
    check_lending(TRUE, FALSE);
    /* GStreamer's layout is the picture's (320 samples, 160 in chroma):
     * lent even where downstream takes no meta, and then without one. */
    GBytes *file = read_vector("seq_5f_422_10b");
    GPtrArray *cs = split_codestreams(file);
    GstHarness *h = gst_harness_new_parse("xsflowdec device=cpu");
    gst_harness_set_src_caps_str(h, "image/x-jxsc, alignment=frame");
    for (guint i = 0; i < cs->len; i++)
        fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(g_ptr_array_index(cs, i))),
                               GST_FLOW_OK);
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    for (guint i = 0; i < cs->len; i++) {
        GstBuffer *b = gst_harness_pull(h);
        fail_unless(is_lent(b), "frame %u copied", i);
        fail_unless(gst_buffer_get_video_meta(b) == NULL);
        gst_buffer_unref(b);
    }
    gst_harness_teardown(h);
    g_ptr_array_unref(cs);
    g_bytes_unref(file);
}
GST_END_TEST;

/* Decodes the first frame of a vector through `desc`; the output buffer and
 * its caps' video info. */
static GstBuffer *decode_one(const char *desc, const char *name, GstVideoInfo *info)
{
    GBytes *file = read_vector(name);
    GPtrArray *cs = split_codestreams(file);
    GstHarness *h = gst_harness_new_parse(desc);
    gst_harness_set_src_caps_str(h, "image/x-jxsc, alignment=frame");
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(g_ptr_array_index(cs, 0))),
                           GST_FLOW_OK);
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    GstBuffer *b = gst_harness_pull(h);
    GstCaps *caps = gst_pad_get_current_caps(h->sinkpad);
    fail_unless(caps && gst_video_info_from_caps(info, caps));
    gst_caps_unref(caps);
    gst_harness_teardown(h);
    g_ptr_array_unref(cs);
    g_bytes_unref(file);
    return b;
}

/* Downstream caps force another depth of the same layout: a 10-bit stream
 * as Y42B (each sample rounded to 8 bits) and as I422_12LE (the high bits
 * repeated below), against the decoder's own 10-bit output. */
GST_START_TEST(test_decode_forced_depth)
{
    GstVideoInfo i10, i8, i12;
    GstBuffer *b10 = decode_one("xsflowdec device=cpu", "fmt_yuv422_10b", &i10);
    GstBuffer *b8 = decode_one("xsflowdec device=cpu ! capsfilter caps=video/x-raw,format=Y42B",
                               "fmt_yuv422_10b", &i8);
    GstBuffer *b12 =
        decode_one("xsflowdec device=cpu ! capsfilter caps=video/x-raw,format=I422_12LE",
                   "fmt_yuv422_10b", &i12);
    fail_unless_equals_int(GST_VIDEO_INFO_FORMAT(&i10), GST_VIDEO_FORMAT_I422_10LE);
    fail_unless_equals_int(GST_VIDEO_INFO_FORMAT(&i8), GST_VIDEO_FORMAT_Y42B);
    fail_unless_equals_int(GST_VIDEO_INFO_FORMAT(&i12), GST_VIDEO_FORMAT_I422_12LE);
    GstVideoFrame f10, f8, f12;
    fail_unless(gst_video_frame_map(&f10, &i10, b10, GST_MAP_READ));
    fail_unless(gst_video_frame_map(&f8, &i8, b8, GST_MAP_READ));
    fail_unless(gst_video_frame_map(&f12, &i12, b12, GST_MAP_READ));
    guint differ8 = 0, differ12 = 0, nonzero = 0;
    for (guint c = 0; c < 3; c++)
        for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&f10, c); y++) {
            const guint16 *r10 = (const guint16 *)(GST_VIDEO_FRAME_COMP_DATA(&f10, c) +
                                                   (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE(&f10, c));
            const guint8 *r8 =
                GST_VIDEO_FRAME_COMP_DATA(&f8, c) + (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE(&f8, c);
            const guint16 *r12 = (const guint16 *)(GST_VIDEO_FRAME_COMP_DATA(&f12, c) +
                                                   (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE(&f12, c));
            for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH(&f10, c); x++) {
                const unsigned v = GUINT16_FROM_LE(r10[x]);
                nonzero += v != 0;
                differ8 += r8[x] != MIN((v + 2) >> 2, 255u);
                differ12 += GUINT16_FROM_LE(r12[x]) != ((v << 2) | (v >> 8));
            }
        }
    fail_unless(nonzero > 0);
    fail_unless_equals_int(differ8, 0);
    fail_unless_equals_int(differ12, 0);
    gst_video_frame_unmap(&f10);
    gst_video_frame_unmap(&f8);
    gst_video_frame_unmap(&f12);
    gst_buffer_unref(b10);
    gst_buffer_unref(b8);
    gst_buffer_unref(b12);
}
GST_END_TEST;

/* The first picture of a vector as the C decoder decodes it, converted by the
 * C reference (xsf_picture_convert) to `container`: what xsflowdec must give
 * where downstream's caps ask for that format. */
static void reference_picture(const char *name, xsf_container container, xsf_picture *out)
{
    GBytes *file = read_vector(name);
    gsize len = 0;
    const guint8 *d = g_bytes_get_data(file, &len);
    xs_decoder *dec = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    fail_unless(xs_decoder_create(&dec, &err) == XSF_OK, "%s", err.msg);
    size_t consumed = 0;
    const xsf_picture *img = NULL;
    fail_unless(xs_decode(dec, d, len, &consumed, &img) == XSF_OK, "%s", xs_decoder_error(dec));
    xsf_picture_init(out);
    fail_unless(xsf_format_convert(&img->fmt, &img->colour, container, &out->fmt, &err) == XSF_OK,
                "%s", err.msg);
    fail_unless(xsf_picture_alloc(out, NULL, &err) == XSF_OK, "%s", err.msg);
    fail_unless(xsf_picture_convert(out, img, &err) == XSF_OK, "%s", err.msg);
    xs_decoder_destroy(dec);
    g_bytes_unref(file);
}

/* Downstream's caps name a format the pipeline writes itself (the picture
 * request: packed, semi-planar, 8-bit of a 10-bit stream, RGB): the frame
 * has that format and, plane by plane, the C reference's bytes (rows as
 * long as the shorter of the two strides); the pad template offers them. */
GST_START_TEST(test_decode_written_formats)
{
    static const struct {
        const char *vector, *caps;
        GstVideoFormat format;
        xsf_container container;
    } cases[] = {
        {"fmt_yuv422_10b", "v210", GST_VIDEO_FORMAT_v210, XSF_V210},
        {"fmt_yuv422_10b", "UYVP", GST_VIDEO_FORMAT_UYVP, XSF_PGROUP10},
        {"fmt_yuv422_10b", "UYVY", GST_VIDEO_FORMAT_UYVY, XSF_UYVY},
        {"fmt_yuv422_10b", "NV12", GST_VIDEO_FORMAT_NV12, XSF_NV12},
        {"fmt_yuv422_10b", "I420", GST_VIDEO_FORMAT_I420, XSF_I420},
        {"fmt_yuv422_10b", "P010_10LE", GST_VIDEO_FORMAT_P010_10LE, XSF_P010},
        {"fmt_yuv422_10b", "RGBA", GST_VIDEO_FORMAT_RGBA, XSF_RGBA8},
        {"fmt_yuv422_10b", "BGRA", GST_VIDEO_FORMAT_BGRA, XSF_BGRA8},
        {"geom_334x78_420", "v210", GST_VIDEO_FORMAT_v210, XSF_V210},
        {"geom_334x78_420", "UYVP", GST_VIDEO_FORMAT_UYVP, XSF_PGROUP10},
        {"geom_334x78_420", "NV12", GST_VIDEO_FORMAT_NV12, XSF_NV12},
        /* Downstream's first choice that applies wins: v210 before UYVY. */
        {"fmt_yuv422_10b", "{ v210, UYVY }", GST_VIDEO_FORMAT_v210, XSF_V210},
    };
    GstElementFactory *factory = gst_element_factory_find("xsflowdec");
    fail_unless(factory != NULL);
    GstCaps *templ = NULL;
    for (const GList *l = gst_element_factory_get_static_pad_templates(factory); l; l = l->next) {
        const GstStaticPadTemplate *t = l->data;
        if (t->direction == GST_PAD_SRC)
            templ = gst_static_caps_get((GstStaticCaps *)&t->static_caps);
    }
    fail_unless(templ != NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GstCaps *one = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING,
                                           gst_video_format_to_string(cases[i].format), NULL);
        fail_unless(gst_caps_can_intersect(one, templ), "the template lacks %s", cases[i].caps);
        gst_caps_unref(one);
        char *desc = g_strdup_printf(
            "xsflowdec device=cpu ! capsfilter caps=\"video/x-raw,format=(string)%s\"",
            cases[i].caps);
        GstVideoInfo info;
        GstBuffer *b = decode_one(desc, cases[i].vector, &info);
        g_free(desc);
        fail_unless_equals_int(GST_VIDEO_INFO_FORMAT(&info), cases[i].format);
        xsf_picture ref;
        reference_picture(cases[i].vector, cases[i].container, &ref);
        fail_unless_equals_int(GST_VIDEO_INFO_WIDTH(&info), ref.fmt.width[0]);
        fail_unless_equals_int(GST_VIDEO_INFO_HEIGHT(&info), ref.fmt.height[0]);
        GstVideoFrame f;
        fail_unless(gst_video_frame_map(&f, &info, b, GST_MAP_READ));
        fail_unless_equals_int(GST_VIDEO_FRAME_N_PLANES(&f), xsf_format_planes(&ref.fmt));
        guint differ = 0;
        for (int p = 0; p < xsf_format_planes(&ref.fmt); p++) {
            const gsize stride = (gsize)GST_VIDEO_FRAME_PLANE_STRIDE(&f, p);
            const gsize n = MIN(xsf_format_row_bytes(&ref.fmt, p), stride);
            for (int y = 0; y < xsf_format_plane_rows(&ref.fmt, p); y++)
                differ += memcmp((const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&f, p) + y * stride,
                                 ref.data[p] + (gsize)y * ref.stride[p], n) != 0;
        }
        fail_unless_equals_int(differ, 0);
        gst_video_frame_unmap(&f);
        gst_buffer_unref(b);
        xsf_picture_unref(&ref);
    }
    gst_caps_unref(templ);
    gst_object_unref(factory);
}
GST_END_TEST;

/* Pushes every codestream of a vector. */
static void push_vector(GstHarness *h, GPtrArray *cs)
{
    for (guint i = 0; i < cs->len; i++)
        fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(g_ptr_array_index(cs, i))),
                               GST_FLOW_OK);
}

/* Pulls `n` frames and checks that together they have the manifest's MD5 of `name`. */
static void pull_vector(GstHarness *h, const char *name, guint n, const GstVideoInfo *info)
{
    GChecksum *md5 = g_checksum_new(G_CHECKSUM_MD5);
    for (guint i = 0; i < n; i++) {
        GstBuffer *b = gst_harness_pull(h);
        fail_unless(b != NULL, "%s: frame %u missing", name, i);
        GstVideoFrame vf;
        fail_unless(gst_video_frame_map(&vf, (GstVideoInfo *)info, b, GST_MAP_READ));
        fail_unless_equals_int(gst_buffer_get_size(b) >= GST_VIDEO_INFO_SIZE(info), TRUE);
        for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(&vf); c++)
            for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&vf, c); y++)
                g_checksum_update(md5,
                                  GST_VIDEO_FRAME_COMP_DATA(&vf, c) +
                                      (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE(&vf, c),
                                  (gsize)GST_VIDEO_FRAME_COMP_WIDTH(&vf, c) *
                                      GST_VIDEO_FRAME_COMP_PSTRIDE(&vf, c));
        gst_video_frame_unmap(&vf);
        gst_buffer_unref(b);
    }
    gchar *want = manifest_md5(name);
    fail_unless_equals_string(g_checksum_get_string(md5), want);
    g_free(want);
    g_checksum_free(md5);
}

static GstVideoFormat current_format(GstHarness *h)
{
    GstCaps *caps = gst_pad_get_current_caps(h->sinkpad);
    GstVideoInfo info;
    fail_unless(caps && gst_video_info_from_caps(&info, caps));
    gst_caps_unref(caps);
    return GST_VIDEO_INFO_FORMAT(&info);
}

/* Caps change mid-stream: 4:2:2 10-bit 320x180, new input caps, 4:2:0 8-bit
 * 334x78 (the frames of the old caps leave first), then 4:2:2 10-bit again
 * with no caps event (the decoder sees the picture change and renegotiates). */
GST_START_TEST(test_decode_caps_change)
{
    GBytes *fa = read_vector("seq_5f_422_10b"), *fb = read_vector("geom_334x78_420");
    GPtrArray *a = split_codestreams(fa), *b = split_codestreams(fb);
    GstVideoInfo ia, ib;
    video_info(&ia, "video/x-raw, format=I422_10LE, width=320, height=180");
    video_info(&ib, "video/x-raw, format=I420, width=334, height=78");
    GstHarness *h = gst_harness_new_parse("xsflowdec device=cpu frames-in-flight=2");
    gst_harness_set_src_caps_str(h, "image/x-jxsc, alignment=frame, width=320, height=180");
    push_vector(h, a);
    gst_harness_set_src_caps_str(h, "image/x-jxsc, alignment=frame, width=334, height=78");
    /* set_format drained: every frame of the old caps is out, in the old format. */
    fail_unless_equals_int(gst_harness_buffers_in_queue(h), a->len);
    fail_unless_equals_int(current_format(h), GST_VIDEO_FORMAT_I422_10LE);
    pull_vector(h, "seq_5f_422_10b", a->len, &ia);
    push_vector(h, b);
    push_vector(h, a);
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    pull_vector(h, "geom_334x78_420", b->len, &ib);
    pull_vector(h, "seq_5f_422_10b", a->len, &ia);
    fail_unless_equals_int(current_format(h), GST_VIDEO_FORMAT_I422_10LE);
    fail_unless(gst_harness_try_pull(h) == NULL);
    gst_harness_teardown(h);
    g_ptr_array_unref(a);
    g_ptr_array_unref(b);
    g_bytes_unref(fa);
    g_bytes_unref(fb);
}
GST_END_TEST;

static void push_segment(GstHarness *h)
{
    GstSegment seg;
    gst_segment_init(&seg, GST_FORMAT_TIME);
    fail_unless(gst_harness_push_event(h, gst_event_new_segment(&seg)));
}

/* Frames in flight at a state change to NULL and back, and at a flushing
 * seek's flush: nothing leaks or hangs (ASan build), pictures lent before
 * the stop outlive it, and the stream afterwards decodes exactly. */
GST_START_TEST(test_decode_flush_and_restart)
{
    GBytes *file = read_vector("seq_5f_422_10b");
    GPtrArray *cs = split_codestreams(file);
    GstVideoInfo info;
    video_info(&info, "video/x-raw, format=I422_10LE, width=320, height=180");
    GstHarness *h = gst_harness_new_parse("xsflowdec device=cpu frames-in-flight=1 pool-frames=12");
    gst_harness_set_src_caps_str(h, "image/x-jxsc, alignment=frame");
    push_vector(h, cs);
    push_vector(h, cs);
    /* Stop with frames in flight; the pictures already out stay valid. */
    fail_unless(gst_element_set_state(h->element, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
    GPtrArray *before = g_ptr_array_new_with_free_func((GDestroyNotify)gst_buffer_unref);
    for (GstBuffer *b; (b = gst_harness_try_pull(h)) != NULL;)
        g_ptr_array_add(before, b);
    fail_unless(before->len <= 2 * cs->len);
    fail_unless(gst_element_set_state(h->element, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
    fail_unless(gst_harness_push_event(h, gst_event_new_stream_start("again")));
    gst_harness_set_src_caps_str(h, "image/x-jxsc, alignment=frame, interlace-mode=progressive");
    push_segment(h);
    push_vector(h, cs);
    /* A flushing seek's flush with frames in flight. */
    fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()));
    fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
    push_segment(h);
    for (GstBuffer *b; (b = gst_harness_try_pull(h)) != NULL;)
        gst_buffer_unref(b);
    push_vector(h, cs);
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    pull_vector(h, "seq_5f_422_10b", cs->len, &info);
    fail_unless(gst_harness_try_pull(h) == NULL);
    /* The pictures from before the stop are whole (the first frames of the vector). */
    if (before->len > 0) {
        gchar *got = frame_md5(g_ptr_array_index(before, 0), &info);
        gchar *want = NULL;
        GstHarness *one = gst_harness_new_parse("xsflowdec device=cpu");
        gst_harness_set_src_caps_str(one, "image/x-jxsc, alignment=frame");
        fail_unless_equals_int(gst_harness_push(one, gst_buffer_ref(g_ptr_array_index(cs, 0))),
                               GST_FLOW_OK);
        fail_unless(gst_harness_push_event(one, gst_event_new_eos()));
        GstBuffer *first = gst_harness_pull(one);
        want = frame_md5(first, &info);
        gst_buffer_unref(first);
        gst_harness_teardown(one);
        fail_unless_equals_string(got, want);
        g_free(got);
        g_free(want);
    }
    gst_harness_teardown(h);
    g_ptr_array_unref(before); /* after the element is gone */
    g_ptr_array_unref(cs);
    g_bytes_unref(file);
}
GST_END_TEST;

/* A codestream that does not decode between good ones: a warning with the
 * decoder's message, the later frames still decode (max-errors allows);
 * with max-errors=0 the same posts an error. */
static GstMessage *decode_with_bad(const char *desc, GstMessageType type, guint *received)
{
    GBytes *file = read_vector("fmt_yuv422_10b");
    gsize len = 0;
    const guint8 *d = g_bytes_get_data(file, &len);
    GstHarness *h = gst_harness_new_parse(desc);
    GstBus *bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    gst_harness_set_src_caps_str(h, "image/x-jxsc, alignment=frame");
    guint8 *bad = g_memdup2(d, len);
    bad[0] = 0x12; /* no SOC marker: refused by the decoder */
    gst_harness_push(h, gst_buffer_new_memdup(d, len));
    gst_harness_push(h, gst_buffer_new_wrapped(bad, len));
    gst_harness_push(h, gst_buffer_new_memdup(d, len));
    gst_harness_push(h, gst_buffer_new_memdup(d, len));
    gst_harness_push_event(h, gst_event_new_eos());
    *received = gst_harness_buffers_received(h);
    GstMessage *msg = gst_bus_pop_filtered(bus, type);
    gst_element_set_bus(h->element, NULL);
    gst_object_unref(bus);
    gst_harness_teardown(h);
    g_bytes_unref(file);
    return msg;
}

GST_START_TEST(test_decode_error_goes_on)
{
    guint received = 0;
    GstMessage *msg =
        decode_with_bad("xsflowdec device=cpu frames-in-flight=2", GST_MESSAGE_WARNING, &received);
    fail_unless_equals_int(received, 3);
    fail_unless(msg != NULL, "no warning for the frame that does not decode");
    GError *e = NULL;
    gst_message_parse_warning(msg, &e, NULL);
    fail_unless(g_error_matches(e, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE));
    fail_unless(strstr(e->message, "frame 1 does not decode") != NULL, "%s", e->message);
    g_clear_error(&e);
    gst_message_unref(msg);

    msg = decode_with_bad("xsflowdec device=cpu max-errors=0", GST_MESSAGE_ERROR, &received);
    fail_unless(msg != NULL, "max-errors=0: no error for the frame that does not decode");
    gst_message_parse_error(msg, &e, NULL);
    fail_unless(strstr(e->message, "does not decode") != NULL, "%s", e->message);
    fail_unless(received < 4);
    g_clear_error(&e);
    gst_message_unref(msg);
}
GST_END_TEST;

/* Pushes `frames` random pictures through encoder and decoder; returns the
 * worst PSNR in dB (INFINITY when every sample came back). */
static double round_trip(const char *enc_props, const char *caps_str, int frames)
{
    char *desc = g_strdup_printf("xsflowenc %s ! xsflowdec", enc_props);
    GstHarness *h = gst_harness_new_parse(desc);
    g_free(desc);
    gst_harness_set_src_caps_str(h, caps_str);
    GstCaps *caps = gst_caps_from_string(caps_str);
    GstVideoInfo info;
    fail_unless(gst_video_info_from_caps(&info, caps));
    gst_caps_unref(caps);
    GRand *rnd = g_rand_new_with_seed(1234);
    GPtrArray *in = g_ptr_array_new_with_free_func((GDestroyNotify)gst_buffer_unref);
    for (int f = 0; f < frames; f++) {
        GstBuffer *b = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&info), NULL);
        GstVideoFrame vf;
        fail_unless(gst_video_frame_map(&vf, &info, b, GST_MAP_WRITE));
        for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(&vf); c++) {
            const int depth = GST_VIDEO_FRAME_COMP_DEPTH(&vf, c), max = (1 << depth) - 1;
            for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&vf, c); y++) {
                guint8 *row = GST_VIDEO_FRAME_COMP_DATA(&vf, c) +
                              (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE(&vf, c);
                for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH(&vf, c); x++) {
                    /* A smooth ramp with noise: compressible, not trivial. */
                    int v = (x * 7 + y * 5 + f * 11 + (int)c * 50) % (max + 1);
                    const int noise = g_rand_int_range(rnd, -(max / 16), max / 16 + 1);
                    v = CLAMP(v + noise, 0, max);
                    if (depth > 8)
                        GST_WRITE_UINT16_LE(row + 2 * x, (guint16)v);
                    else
                        row[x] = (guint8)v;
                }
            }
        }
        gst_video_frame_unmap(&vf);
        GST_BUFFER_PTS(b) = f * GST_SECOND / 25;
        g_ptr_array_add(in, gst_buffer_ref(b));
        fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    }
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    fail_unless_equals_int(gst_harness_buffers_received(h), frames);
    GstCaps *out_caps = gst_pad_get_current_caps(h->sinkpad);
    GstVideoInfo out_info;
    fail_unless(gst_video_info_from_caps(&out_info, out_caps));
    gst_caps_unref(out_caps);
    fail_unless_equals_int(GST_VIDEO_INFO_FORMAT(&out_info), GST_VIDEO_INFO_FORMAT(&info));
    fail_unless_equals_int(GST_VIDEO_INFO_HEIGHT(&out_info), GST_VIDEO_INFO_HEIGHT(&info));
    fail_unless_equals_int(GST_VIDEO_INFO_INTERLACE_MODE(&out_info),
                           GST_VIDEO_INFO_INTERLACE_MODE(&info));
    double worst = INFINITY;
    for (int f = 0; f < frames; f++) {
        GstBuffer *b = gst_harness_pull(h);
        GstVideoFrame a, o;
        fail_unless(gst_video_frame_map(&a, &info, g_ptr_array_index(in, f), GST_MAP_READ));
        fail_unless(gst_video_frame_map(&o, &out_info, b, GST_MAP_READ));
        double se = 0, n = 0;
        const int depth = GST_VIDEO_FRAME_COMP_DEPTH(&a, 0), max = (1 << depth) - 1;
        for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(&a); c++)
            for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&a, c); y++) {
                const guint8 *ra = GST_VIDEO_FRAME_COMP_DATA(&a, c) +
                                   (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE(&a, c);
                const guint8 *ro = GST_VIDEO_FRAME_COMP_DATA(&o, c) +
                                   (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE(&o, c);
                for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH(&a, c); x++) {
                    const int va = depth > 8 ? GST_READ_UINT16_LE(ra + 2 * x) : ra[x];
                    const int vo = depth > 8 ? GST_READ_UINT16_LE(ro + 2 * x) : ro[x];
                    se += (double)(va - vo) * (va - vo);
                    n++;
                }
            }
        gst_video_frame_unmap(&a);
        gst_video_frame_unmap(&o);
        gst_buffer_unref(b);
        const double psnr = se == 0 ? INFINITY : 10 * log10((double)max * max * n / se);
        worst = MIN(worst, psnr);
    }
    g_ptr_array_unref(in);
    g_rand_free(rnd);
    gst_harness_teardown(h);
    return worst;
}

GST_START_TEST(test_round_trip_lossless)
{
    static const char *const caps[] = {
        "video/x-raw, format=I420, width=64, height=48, framerate=25/1",
        "video/x-raw, format=Y42B, width=70, height=33, framerate=25/1",
        "video/x-raw, format=I422_10LE, width=96, height=32, framerate=25/1",
        "video/x-raw, format=Y444_12LE, width=40, height=40, framerate=25/1",
        "video/x-raw, format=GRAY8, width=48, height=16, framerate=25/1",
        "video/x-raw, format=GBR_10LE, width=32, height=32, framerate=25/1",
        "video/x-raw, format=I420, width=64, height=64, framerate=25/1, interlace-mode=interleaved",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
        const double psnr = round_trip("lossless=true device=cpu", caps[i], 3);
        fail_unless(isinf(psnr), "%s: not lossless (PSNR %.2f dB)", caps[i], psnr);
    }
}
GST_END_TEST;

GST_START_TEST(test_round_trip_lossy)
{
    const double psnr =
        round_trip("bits-per-pixel=4 decomp-v=1 device=cpu",
                   "video/x-raw, format=I422_10LE, width=128, height=64, framerate=25/1", 3);
    fail_unless(psnr > 30 && !isinf(psnr), "PSNR %.2f dB at 4 bpp", psnr);
    /* The visual tune (xsflow encode --tune visual) through the same knobs. */
    const double visual =
        round_trip("bits-per-pixel=4 decomp-v=1 tune=visual device=cpu",
                   "video/x-raw, format=I422_10LE, width=128, height=64, framerate=25/1", 3);
    fail_unless(visual > 30 && !isinf(visual) && visual != psnr,
                "tune=visual: PSNR %.2f dB at 4 bpp (psnr tune %.2f)", visual, psnr);
}
GST_END_TEST;

/* Codestreams through the payloader and depayloader in one harness. */
static void check_pay_depay(const char *mode, const char *name, int fields, int cs_height)
{
    GBytes *file = read_vector(name);
    GPtrArray *cs = split_codestreams(file);
    GPtrArray *units = g_ptr_array_new_with_free_func((GDestroyNotify)gst_buffer_unref);
    if (fields == 2) {
        for (guint i = 0; i + 1 < cs->len; i += 2)
            g_ptr_array_add(units, gst_buffer_append(gst_buffer_ref(g_ptr_array_index(cs, i)),
                                                     gst_buffer_ref(g_ptr_array_index(cs, i + 1))));
    } else {
        for (guint i = 0; i < cs->len; i++)
            g_ptr_array_add(units, gst_buffer_ref(g_ptr_array_index(cs, i)));
    }
    char *desc =
        g_strdup_printf("xsflowjxspay packetization-mode=%s mtu=1000 ! xsflowjxsdepay", mode);
    GstHarness *h = gst_harness_new_parse(desc);
    g_free(desc);
    gst_harness_set_src_caps_str(
        h, fields == 2 ? "image/x-jxsc, alignment=frame, interlace-mode=fields, "
                         "framerate=25/1"
                       : "image/x-jxsc, alignment=frame, interlace-mode=progressive, "
                         "framerate=50/1");
    for (guint i = 0; i < units->len; i++) {
        GstBuffer *b = gst_buffer_ref(g_ptr_array_index(units, i));
        GST_BUFFER_PTS(b) = i * GST_SECOND / 25;
        GST_BUFFER_DURATION(b) = GST_SECOND / 25;
        fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    }
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    fail_unless_equals_int(gst_harness_buffers_received(h), units->len);
    for (guint i = 0; i < units->len; i++) {
        GstBuffer *b = gst_harness_pull(h);
        GstMapInfo m;
        gst_buffer_map(g_ptr_array_index(units, i), &m, GST_MAP_READ);
        fail_unless(buffer_equals(b, m.data, m.size), "%s: frame %u differs", mode, i);
        gst_buffer_unmap(g_ptr_array_index(units, i), &m);
        gst_buffer_unref(b);
    }
    GstCaps *caps = gst_pad_get_current_caps(h->sinkpad);
    const GstStructure *s = gst_caps_get_structure(caps, 0);
    fail_unless_equals_string(gst_structure_get_string(s, "interlace-mode"),
                              fields == 2 ? "fields" : "progressive");
    /* The frame's height: two fields of the codestreams' height. */
    int height = 0;
    fail_unless(gst_structure_get_int(s, "height", &height) && height == fields * cs_height,
                "%s: height %d, expected %d", mode, height, fields * cs_height);
    gst_caps_unref(caps);
    gst_harness_teardown(h);
    g_ptr_array_unref(units);
    g_ptr_array_unref(cs);
    g_bytes_unref(file);
}

GST_START_TEST(test_pay_depay)
{
    check_pay_depay("codestream", "seq_5f_422_10b", 1, 180);
    check_pay_depay("slice", "seq_5f_422_10b", 1, 180);
    check_pay_depay("codestream", "seq_5f_422_10b", 2, 180);
    check_pay_depay("slice", "seq_5f_422_10b", 2, 180);
    check_pay_depay("slice", "hd_422_10b_bpp3", 1, 1080);
}
GST_END_TEST;

/* The payloader's packets: as many as the rtp/ packetizer counts, RTP caps
 * as GStreamer's RFC 9134 elements use; one packet lost gives one frame
 * fewer out of the depayloader, the others whole. */
GST_START_TEST(test_pay_packets_and_loss)
{
    GBytes *file = read_vector("seq_5f_422_10b");
    GPtrArray *cs = split_codestreams(file);
    GstHarness *pay = gst_harness_new_parse("xsflowjxspay mtu=1200 pt=112");
    gst_harness_set_src_caps_str(pay,
                                 "image/x-jxsc, alignment=frame, width=320, height=180, depth=10, "
                                 "sampling=YCbCr-4:2:2, framerate=50/1");
    for (guint i = 0; i < cs->len; i++)
        fail_unless_equals_int(gst_harness_push(pay, gst_buffer_ref(g_ptr_array_index(cs, i))),
                               GST_FLOW_OK);
    rtp_packetizer_config cfg = {
        .mode = RTP_JXS_CODESTREAM, .packet_bytes = 1200, .payload_type = 112, .boxes = 1};
    rtp_packetizer *pk = NULL;
    xsf_error err = {0};
    fail_unless(rtp_packetizer_create(&pk, &cfg, &err) == XSF_OK);
    size_t want = 0;
    for (guint i = 0; i < cs->len; i++) {
        GstMapInfo m;
        size_t n = 0;
        gst_buffer_map(g_ptr_array_index(cs, i), &m, GST_MAP_READ);
        fail_unless(rtp_packetize_count(pk, m.data, m.size, &n, &err) == XSF_OK);
        gst_buffer_unmap(g_ptr_array_index(cs, i), &m);
        want += n;
    }
    rtp_packetizer_destroy(pk);
    fail_unless_equals_int(gst_harness_buffers_received(pay), want);

    GstCaps *caps = gst_pad_get_current_caps(pay->sinkpad);
    const GstStructure *s = gst_caps_get_structure(caps, 0);
    fail_unless_equals_string(gst_structure_get_string(s, "encoding-name"), "JXSV");
    fail_unless_equals_string(gst_structure_get_string(s, "sampling"), "YCbCr-4:2:2");
    fail_unless_equals_string(gst_structure_get_string(s, "exactframerate"), "50");
    fail_if(gst_structure_has_field(s, "interlace"), "progressive caps say interlace");
    int packetmode = -1, clock = 0;
    fail_unless(gst_structure_get_int(s, "packetmode", &packetmode) && packetmode == 0);
    fail_unless(gst_structure_get_int(s, "clock-rate", &clock) && clock == 90000);

    GstHarness *depay = gst_harness_new("xsflowjxsdepay");
    gst_harness_set_src_caps(depay, gst_caps_ref(caps));
    guint lost_frame_packets = 0;
    for (size_t i = 0; i < want; i++) {
        GstBuffer *p = gst_harness_pull(pay);
        GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
        fail_unless(gst_rtp_buffer_map(p, GST_MAP_READ, &rtp));
        const guint8 *ph = gst_rtp_buffer_get_payload(&rtp);
        const int f = (ph[0] & 0x7) << 2 | ph[1] >> 6; /* RFC 9134 F counter */
        const guint32 pt = gst_rtp_buffer_get_payload_type(&rtp);
        gst_rtp_buffer_unmap(&rtp);
        fail_unless_equals_int(pt, 112);
        /* Drop the fourth packet of frame 1 (F counter 1). */
        if (f == 1 && ++lost_frame_packets == 4) {
            gst_buffer_unref(p);
            continue;
        }
        fail_unless_equals_int(gst_harness_push(depay, p), GST_FLOW_OK);
    }
    fail_unless(gst_harness_push_event(depay, gst_event_new_eos()));
    fail_unless_equals_int(gst_harness_buffers_received(depay), cs->len - 1);
    /* exactframerate=50 (an integer rate, RFC 9134 7.1) is the frame rate downstream. */
    GstCaps *out_caps = gst_pad_get_current_caps(depay->sinkpad);
    int fps_n = 0, fps_d = 0;
    fail_unless(gst_structure_get_fraction(gst_caps_get_structure(out_caps, 0), "framerate", &fps_n,
                                           &fps_d) &&
                    fps_n == 50 && fps_d == 1,
                "depay framerate %d/%d", fps_n, fps_d);
    gst_caps_unref(out_caps);
    for (guint i = 0; i < cs->len; i++) {
        if (i == 1)
            continue;
        GstBuffer *b = gst_harness_pull(depay);
        GstMapInfo m;
        gst_buffer_map(g_ptr_array_index(cs, i), &m, GST_MAP_READ);
        fail_unless(buffer_equals(b, m.data, m.size), "frame %u differs", i);
        gst_buffer_unmap(g_ptr_array_index(cs, i), &m);
        gst_buffer_unref(b);
    }
    GstStructure *stats = NULL;
    GstElement *el = gst_harness_find_element(depay, "xsflowjxsdepay");
    g_object_get(el, "stats", &stats, NULL);
    gst_object_unref(el);
    guint64 lost = 0, complete = 0;
    fail_unless(stats && gst_structure_get_uint64(stats, "lost", &lost) && lost == 1);
    fail_unless(gst_structure_get_uint64(stats, "frames-complete", &complete) &&
                complete == cs->len - 1);
    gst_caps_unref(caps);
    gst_harness_teardown(depay);
    gst_harness_teardown(pay);
    gst_structure_free(stats);
    g_ptr_array_unref(cs);
    g_bytes_unref(file);
}
GST_END_TEST;

/* The payloader's jpvi box (RFC 9134 4.1, 21122-3 A.2): 60000/1001 caps
 * are 60 frames/s divided by 1.001; 25/1 an integer rate. */
static void check_pay_frat(const char *framerate, int num, int den_code)
{
    GBytes *file = read_vector("seq_5f_422_10b");
    GPtrArray *cs = split_codestreams(file);
    GstHarness *pay = gst_harness_new_parse("xsflowjxspay mtu=1200");
    char *caps = g_strdup_printf(
        "image/x-jxsc, alignment=frame, width=320, height=180, framerate=%s", framerate);
    gst_harness_set_src_caps_str(pay, caps);
    g_free(caps);
    fail_unless_equals_int(gst_harness_push(pay, gst_buffer_ref(g_ptr_array_index(cs, 0))),
                           GST_FLOW_OK);
    GstBuffer *p = gst_harness_pull(pay);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    fail_unless(gst_rtp_buffer_map(p, GST_MAP_READ, &rtp));
    const guint8 *payload = gst_rtp_buffer_get_payload(&rtp);
    const guint len = gst_rtp_buffer_get_payload_len(&rtp);
    rtp_jxs_boxes boxes;
    size_t cs_off = 0;
    xsf_error err = {0};
    fail_unless(len > 4 &&
                    rtp_jxs_boxes_parse(payload + 4, len - 4, &cs_off, &boxes, &err) == XSF_OK,
                "%s", err.msg);
    fail_unless(boxes.present && boxes.frat_num == num && boxes.frat_den_code == den_code,
                "%s: jpvi frame rate %u code %u", framerate, boxes.frat_num, boxes.frat_den_code);
    gst_rtp_buffer_unmap(&rtp);
    gst_buffer_unref(p);
    gst_harness_teardown(pay);
    g_ptr_array_unref(cs);
    g_bytes_unref(file);
}

GST_START_TEST(test_pay_frame_rate_box)
{
    check_pay_frat("60000/1001", 60, 2);
    check_pay_frat("25/1", 25, 1);
}
GST_END_TEST;

static Suite *xsflow_suite(void)
{
    Suite *s = suite_create("xsflow");
    TCase *tc = tcase_create("elements");
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    tcase_add_test(tc, test_states);
    tcase_add_test(tc, test_parse_chunks);
    tcase_add_test(tc, test_parse_sampling);
    tcase_add_test(tc, test_decode_vectors);
    tcase_add_test(tc, test_decode_bad_input);
    tcase_add_test(tc, test_decode_zero_copy);
    tcase_add_test(tc, test_decode_caps_change);
    tcase_add_test(tc, test_decode_forced_depth);
    tcase_add_test(tc, test_decode_written_formats);
    tcase_add_test(tc, test_decode_flush_and_restart);
    tcase_add_test(tc, test_decode_error_goes_on);
    tcase_add_test(tc, test_round_trip_lossless);
    tcase_add_test(tc, test_round_trip_lossy);
    tcase_add_test(tc, test_pay_depay);
    tcase_add_test(tc, test_pay_packets_and_loss);
    tcase_add_test(tc, test_pay_frame_rate_box);
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
    return gst_check_run_suite(xsflow_suite(), "xsflow", __FILE__);
}
