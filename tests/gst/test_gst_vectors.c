/* Runs `filesrc ! xsflowjxsparse ! xsflowdec ! filesink` on one conformance
 * vector and compares the output with vectors/xs/MANIFEST.tsv: its size and
 * MD5 after GStreamer's row padding is taken out (the manifest hashes tight
 * planes; GStreamer rounds strides up to 4 bytes, so odd widths differ only
 * there), and the raw video format expected for the vector's format and
 * depth. The elements are registered statically, so this runs under the
 * sanitizers too.
 * usage: test_gst_vectors VECTOR_DIR NAME [DEVICE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "xsflow_gst.h"

static int fail(const char *name, const char *what)
{
    fprintf(stderr, "%s: %s\n", name, what);
    return 1;
}

static gboolean register_static(GstPlugin *plugin)
{
    return xsf_gst_register_elements(plugin);
}

/* Reads the manifest row of `name`: decoded bytes, MD5, format, depth, frames. */
static int manifest_row(const char *dir, const char *name, guint64 *bytes, char md5[33],
                        char format[16], int *depth, int *frames)
{
    char *path = g_build_filename(dir, "MANIFEST.tsv", NULL), *text = NULL;
    gboolean ok = g_file_get_contents(path, &text, NULL, NULL);
    g_free(path);
    if (!ok)
        return -1;
    int found = -1;
    gchar **lines = g_strsplit(text, "\n", -1);
    for (gchar **l = lines; *l && found < 0; l++) {
        gchar **f = g_strsplit(*l, "\t", -1);
        if (g_strv_length(f) >= 11 && !strcmp(f[0], name)) {
            g_strlcpy(format, f[4], 16);
            *depth = atoi(f[5]);
            *frames = atoi(f[6]);
            *bytes = g_ascii_strtoull(f[9], NULL, 10);
            g_strlcpy(md5, f[10], 33);
            found = 0;
        }
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(text);
    return found;
}

static const char *expected_format(const char *format, int depth)
{
    const int i = depth <= 8 ? 0 : depth <= 10 ? 1 : depth <= 12 ? 2 : 3;
    static const char *const yuv420[] = {"I420", "I420_10LE", "I420_12LE", NULL};
    static const char *const yuv422[] = {"Y42B", "I422_10LE", "I422_12LE", NULL};
    static const char *const yuv444[] = {"Y444", "Y444_10LE", "Y444_12LE", "Y444_16LE"};
    if (!strcmp(format, "yuv420"))
        return yuv420[i];
    if (!strcmp(format, "yuv422"))
        return yuv422[i];
    /* rgb vectors are coded without a colour transform: three planes as 4:4:4. */
    return yuv444[i];
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s VECTOR_DIR NAME [DEVICE]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1], *name = argv[2], *device = argc > 3 ? argv[3] : "auto";
    gst_init(&argc, &argv);
    if (!gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "xsflow",
                                    "xsflow elements", register_static, "0", "unknown", "xsflow",
                                    "xsflow", "none"))
        return fail(name, "cannot register the elements");

    guint64 want_bytes = 0;
    char want_md5[33] = "", format[16] = "";
    int depth = 0, frames = 0;
    if (manifest_row(dir, name, &want_bytes, want_md5, format, &depth, &frames) != 0)
        return fail(name, "not in MANIFEST.tsv");

    /* A file of its own: runs of the same vector at once (two build trees,
     * a loop beside ctest) must not write into one another's output. */
    char *tmpl = g_strdup_printf("gst-vector-%s-XXXXXX.raw", name), *out = NULL;
    const gint tmp_fd = g_file_open_tmp(tmpl, &out, NULL);
    g_free(tmpl);
    if (tmp_fd < 0)
        return fail(name, "cannot create a temporary output file");
    close(tmp_fd);
    char *jxs = g_strdup_printf("%s/%s.jxs", dir, name);
    char *desc =
        g_strdup_printf("filesrc location=\"%s\" ! xsflowjxsparse ! xsflowdec name=dec device=%s ! "
                        "filesink name=sink location=\"%s\"",
                        jxs, device, out);
    GError *error = NULL;
    GstElement *pipeline = gst_parse_launch(desc, &error);
    if (!pipeline)
        return fail(name, error ? error->message : "no pipeline");
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *msg =
        gst_bus_timed_pop_filtered(bus, 120 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    int rc = 0;
    if (!expected_format(format, depth)) {
        /* GStreamer 1.22 has no planar raw format for this sampling at this
         * depth (4:2:2 and 4:2:0 stop at 12 bits): the decoder must refuse
         * it with an error that says so, not output something else. */
        GError *e = NULL;
        if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR)
            gst_message_parse_error(msg, &e, NULL);
        if (!e || !g_error_matches(e, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT))
            rc = fail(name, "expected a stream format error: no raw video format fits");
        else
            printf("%s: refused as expected (%s depth %d has no GStreamer raw format)\n", name,
                   format, depth);
        g_clear_error(&e);
        gst_message_unref(msg);
        gst_element_set_state(pipeline, GST_STATE_NULL);
        gst_object_unref(bus);
        gst_object_unref(pipeline);
        g_unlink(out);
        g_free(out);
        g_free(jxs);
        g_free(desc);
        gst_deinit();
        return rc;
    }
    if (!msg || GST_MESSAGE_TYPE(msg) != GST_MESSAGE_EOS) {
        GError *e = NULL;
        gchar *dbg = NULL;
        if (msg)
            gst_message_parse_error(msg, &e, &dbg);
        fprintf(stderr, "%s: the pipeline failed: %s (%s)\n", name, e ? e->message : "timeout",
                dbg ? dbg : "");
        g_clear_error(&e);
        g_free(dbg);
        rc = 1;
    }
    if (msg)
        gst_message_unref(msg);
    GstVideoInfo info;
    gst_video_info_init(&info);
    if (rc == 0) {
        GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
        GstPad *pad = gst_element_get_static_pad(sink, "sink");
        GstCaps *caps = gst_pad_get_current_caps(pad);
        if (!caps || !gst_video_info_from_caps(&info, caps))
            rc = fail(name, "no raw video caps on the sink");
        if (caps)
            gst_caps_unref(caps);
        gst_object_unref(pad);
        gst_object_unref(sink);
        GstElement *dec = gst_bin_get_by_name(GST_BIN(pipeline), "dec");
        gchar *engine = NULL;
        g_object_get(dec, "engine", &engine, NULL);
        printf("%s: decoded on the %s\n", name, engine ? engine : "?");
        g_free(engine);
        gst_object_unref(dec);
    }
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(pipeline);

    gchar *data = NULL;
    gsize len = 0;
    if (rc == 0 && !g_file_get_contents(out, &data, &len, NULL))
        rc = fail(name, "no output file");
    if (rc == 0) {
        const char *fmt = gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info));
        const char *want_fmt = expected_format(format, depth);
        if (!want_fmt || strcmp(fmt, want_fmt)) {
            fprintf(stderr, "%s: format %s, expected %s\n", name, fmt,
                    want_fmt ? want_fmt : "none");
            rc = 1;
        }
        if (len != (gsize)frames * GST_VIDEO_INFO_SIZE(&info)) {
            fprintf(stderr, "%s: %zu bytes, expected %d frames of %zu\n", name, (size_t)len, frames,
                    (size_t)GST_VIDEO_INFO_SIZE(&info));
            rc = 1;
        }
    }
    if (rc == 0) {
        /* The manifest's layout: per frame, each component's rows without padding. */
        GChecksum *md5 = g_checksum_new(G_CHECKSUM_MD5);
        guint64 tight = 0;
        for (int f = 0; f < frames; f++) {
            const guint8 *frame = (const guint8 *)data + (gsize)f * GST_VIDEO_INFO_SIZE(&info);
            for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); c++) {
                const gsize row = (gsize)GST_VIDEO_INFO_COMP_WIDTH(&info, c) *
                                  GST_VIDEO_INFO_COMP_PSTRIDE(&info, c);
                for (int y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&info, c); y++) {
                    g_checksum_update(md5,
                                      frame + GST_VIDEO_INFO_COMP_OFFSET(&info, c) +
                                          (gsize)y * GST_VIDEO_INFO_COMP_STRIDE(&info, c),
                                      row);
                    tight += row;
                }
            }
        }
        const char *got = g_checksum_get_string(md5);
        if (tight != want_bytes || strcmp(got, want_md5)) {
            fprintf(stderr,
                    "%s: %" G_GUINT64_FORMAT " bytes with MD5 %s; MANIFEST.tsv: %" G_GUINT64_FORMAT
                    " bytes, MD5 %s (output kept in %s)\n",
                    name, tight, got, want_bytes, want_md5, out);
            rc = 1;
        } else {
            printf("%s: %" G_GUINT64_FORMAT " bytes, MD5 %s as in MANIFEST.tsv (%s)\n", name, tight,
                   got, gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)));
        }
        g_checksum_free(md5);
    }
    if (rc == 0)
        g_unlink(out);
    g_free(data);
    g_free(out);
    g_free(jxs);
    g_free(desc);
    g_clear_error(&error);
    gst_deinit();
    return rc;
}
