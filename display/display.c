/* The display's GL objects and its per-frame work: uploads (host or CUDA
 * interop), the conversion pass into each tile's R'G'B' texture, the tiled
 * draw with labels and statistics, read-back and screenshots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compose.h"
#include "font.h"
#include "gl_internal.h"
#include "interop.h"
#include "xsf_colour.h"

int dsp_have_gl(void)
{
    return 1;
}

int dsp_have_window(void)
{
#ifdef XSF_DISPLAY_GLFW
    return 1;
#else
    return 0;
#endif
}

int dsp_have_interop(void)
{
    return dsp_interop_built();
}

static xsf_status compose_unmap(dsp_display *d);

/* ---- shaders ---- */

/* One triangle that covers the viewport; no vertex data. */
static const char vertex_src[] =
    "#version 330 core\n"
    "void main() {\n"
    "    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));\n"
    "    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n"
    "}\n";

/* Planes to R'G'B' at the picture's size: texel (x, y) of plane 0 with the
 * chroma texel (x / sx, y / sy), as dsp_convert_rgb8 does. Texels are
 * sample / 65535; in_scale and in_bias fold that into xsf_rgb_transform_make's factors. */
static const char convert_src[] = "#version 330 core\n"
                                  "uniform sampler2D plane0, plane1, plane2;\n"
                                  "uniform int nc;\n"
                                  "uniform ivec2 sub;\n"
                                  "uniform vec3 in_scale, in_bias;\n"
                                  "uniform mat3 m;\n"
                                  "out vec4 colour;\n"
                                  "void main() {\n"
                                  "    ivec2 p = ivec2(gl_FragCoord.xy);\n"
                                  "    vec3 e = vec3(texelFetch(plane0, p, 0).r, 0.0, 0.0);\n"
                                  "    if (nc == 3) {\n"
                                  "        ivec2 q = p / sub;\n"
                                  "        e.y = texelFetch(plane1, q, 0).r;\n"
                                  "        e.z = texelFetch(plane2, q, 0).r;\n"
                                  "    }\n"
                                  "    e = e * in_scale + in_bias;\n"
                                  "    colour = vec4(clamp(m * e, 0.0, 1.0), 1.0);\n"
                                  "}\n";

/* A tile's R'G'B' picture scaled into its rectangle (view: x, y, w, h in
 * framebuffer pixels, y up); row 0 of the picture at the top. */
static const char blit_src[] = "#version 330 core\n"
                               "uniform sampler2D img;\n"
                               "uniform vec4 view;\n"
                               "out vec4 colour;\n"
                               "void main() {\n"
                               "    vec2 uv = (gl_FragCoord.xy - view.xy) / view.zw;\n"
                               "    colour = vec4(texture(img, vec2(uv.x, 1.0 - uv.y)).rgb, 1.0);\n"
                               "}\n";

/* Text: white ink on a translucent dark box. */
static const char text_src[] = "#version 330 core\n"
                               "uniform sampler2D img;\n"
                               "uniform vec4 view;\n"
                               "out vec4 colour;\n"
                               "void main() {\n"
                               "    vec2 uv = (gl_FragCoord.xy - view.xy) / view.zw;\n"
                               "    float ink = texture(img, vec2(uv.x, 1.0 - uv.y)).r;\n"
                               "    colour = vec4(vec3(ink), max(ink, 0.6));\n"
                               "}\n";

static GLuint compile(dsp_display *d, GLenum type, const char *src)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[200] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        xsf_error_set(&d->err, XSF_ERR_UNSUPPORTED, "shader: %s", log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

static GLuint program(dsp_display *d, const char *fragment)
{
    GLuint vs = compile(d, GL_VERTEX_SHADER, vertex_src),
           fs = compile(d, GL_FRAGMENT_SHADER, fragment);
    GLuint p = 0;
    if (vs && fs) {
        p = glCreateProgram();
        glAttachShader(p, vs);
        glAttachShader(p, fs);
        glLinkProgram(p);
        GLint ok = 0;
        glGetProgramiv(p, GL_LINK_STATUS, &ok);
        if (!ok) {
            xsf_error_set(&d->err, XSF_ERR_UNSUPPORTED, "shader program does not link");
            glDeleteProgram(p);
            p = 0;
        }
    }
    glDeleteShader(vs);
    glDeleteShader(fs);
    return p;
}

static xsf_status make_programs(dsp_display *d)
{
    d->prog_convert = program(d, convert_src);
    d->prog_blit = program(d, blit_src);
    d->prog_text = program(d, text_src);
    if (!d->prog_convert || !d->prog_blit || !d->prog_text)
        return d->err.status ? d->err.status : XSF_ERR_UNSUPPORTED;
    static const char *const planes[3] = {"plane0", "plane1", "plane2"};
    glUseProgram(d->prog_convert);
    for (int i = 0; i < 3; i++) {
        d->u_plane[i] = glGetUniformLocation(d->prog_convert, planes[i]);
        glUniform1i(d->u_plane[i], i);
    }
    d->u_nc = glGetUniformLocation(d->prog_convert, "nc");
    d->u_sub = glGetUniformLocation(d->prog_convert, "sub");
    d->u_scale = glGetUniformLocation(d->prog_convert, "in_scale");
    d->u_bias = glGetUniformLocation(d->prog_convert, "in_bias");
    d->u_matrix = glGetUniformLocation(d->prog_convert, "m");
    d->u_blit_img = glGetUniformLocation(d->prog_blit, "img");
    d->u_blit_view = glGetUniformLocation(d->prog_blit, "view");
    d->u_text_img = glGetUniformLocation(d->prog_text, "img");
    d->u_text_view = glGetUniformLocation(d->prog_text, "view");
    glGenVertexArrays(1, &d->vao);
    return XSF_OK;
}

/* ---- create / destroy ---- */

void dsp_options_init(dsp_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->title = "xsflow";
    opt->tiles = 1;
    opt->vsync = 1;
}

xsf_status dsp_create(dsp_display **out, const dsp_options *opt, xsf_error *err)
{
    *out = NULL;
    if (!opt || opt->tiles < 1 || opt->tiles > DSP_MAX_TILES || opt->width < 0 || opt->height < 0 ||
        opt->width > 16384 || opt->height > 16384)
        return xsf_error_set(err, XSF_ERR_ARG, "display options: %d tiles (1..%d), size %dx%d",
                             opt ? opt->tiles : 0, DSP_MAX_TILES, opt ? opt->width : 0,
                             opt ? opt->height : 0);
    dsp_display *d = calloc(1, sizeof *d);
    if (!d)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    d->opt = *opt;
    if (!d->opt.width || !d->opt.height) {
        d->opt.width = 1280;
        d->opt.height = 720;
    }
    d->tiles = opt->tiles;
    d->overlay = 0;
    for (int t = 0; t < d->tiles; t++) {
        dsp_pacer_init(&d->tile[t].pacer);
        d->tile[t].converted = -1;
        d->tile[t].text_dirty = 1;
        if (opt->labels && opt->labels[t])
            snprintf(d->tile[t].label, sizeof d->tile[t].label, "%s", opt->labels[t]);
    }
    if (opt->convert == DSP_CONVERT_CUDA && !dsp_interop_usable()) {
        xsf_error_set(err, XSF_ERR_NODEVICE,
                      "the CUDA compositor needs CUDA-GL interop and a CUDA device (%s)",
                      dsp_interop_built() ? "no usable CUDA device" : "this build has no CUDA");
        free(d);
        return XSF_ERR_NODEVICE;
    }
    d->compose = opt->convert == DSP_CONVERT_CUDA ||
                 (opt->convert == DSP_CONVERT_AUTO && dsp_interop_usable());
    xsf_status st = dsp_context_create(d);
    if (st == XSF_OK)
        st = make_programs(d);
    if (st != XSF_OK) {
        if (err)
            *err = d->err;
        dsp_destroy(d);
        return st;
    }
    *out = d;
    return XSF_OK;
}

/* Compositions known done, from the events recorded after them. */
static void poll_fences(dsp_display *d)
{
    while (d->done_seq < d->compose_seq) {
        const uint64_t next = d->done_seq + 1;
        const int k = (int)(next % DSP_FENCES);
        if (d->fence_seq[k] != next || !dsp_cuda_event_done(d->fence[k]))
            break;
        d->done_seq = next;
    }
}

/* Releases the pending pictures whose last reader is done; every one when
 * `all` (after waiting for the stream). */
static void release_pending(dsp_display *d, int all)
{
    if (all && d->cuda_stream) {
        dsp_interop_stream_sync(d->cuda_stream, &d->err);
        d->done_seq = d->compose_seq;
    }
    poll_fences(d);
    int kept = 0;
    for (int i = 0; i < d->npending; i++) {
        if (d->pending[i].seq <= d->done_seq)
            xsf_picture_unref(&d->pending[i].pic);
        else
            d->pending[kept++] = d->pending[i];
    }
    d->npending = kept;
}

/* Gives a kept picture back: now if no composition still to run reads it,
 * else once that one is done. */
static void slot_release(dsp_display *d, dsp_slot *s)
{
    if (!s->kept.ref)
        return;
    poll_fences(d);
    if (s->read_seq <= d->done_seq) {
        xsf_picture_unref(&s->kept);
    } else {
        if (d->npending == DSP_PENDING)
            release_pending(d, 1);
        d->pending[d->npending++] = (dsp_pending){s->kept, s->read_seq};
    }
    xsf_picture_init(&s->kept);
    s->read_seq = 0;
}

static void slot_free(dsp_slot *s)
{
    for (int c = 0; c < 3; c++) {
        dsp_interop_unregister(s->cuda[c]);
        s->cuda[c] = NULL;
    }
    glDeleteTextures(3, s->tex);
    dsp_cuda_free(s->dev);
    memset(s, 0, sizeof *s);
}

void dsp_destroy(dsp_display *d)
{
    if (!d)
        return;
    /* Before the GL objects go: the compositor's registration, the kept
     * pictures (after the kernels that read them). */
    compose_unmap(d);
    if (d->compose_res)
        dsp_interop_unregister(d->compose_res);
    d->compose_res = NULL;
    if (d->window || d->egl_context) {
        release_pending(d, 1);
        for (int t = 0; t < d->tiles; t++) {
            dsp_tile *tile = &d->tile[t];
            for (int i = 0; i < DSP_PACER_SLOTS; i++) {
                slot_release(d, &tile->slot[i]);
                slot_free(&tile->slot[i]);
            }
            glDeleteTextures(1, &tile->rgb_tex);
            glDeleteFramebuffers(1, &tile->rgb_fbo);
            glDeleteTextures(1, &tile->text_tex);
        }
        glDeleteProgram(d->prog_convert);
        glDeleteProgram(d->prog_blit);
        glDeleteProgram(d->prog_text);
        glDeleteVertexArrays(1, &d->vao);
        glDeleteFramebuffers(1, &d->target_fbo);
        glDeleteTextures(1, &d->target_tex);
    }
    if (d->window || d->egl_context) {
        glDeleteFramebuffers(1, &d->compose_fbo);
        glDeleteTextures(1, &d->compose_tex);
    }
    for (int k = 0; k < DSP_FENCES; k++)
        dsp_cuda_event_destroy(d->fence[k]);
    dsp_interop_stream_destroy(d->cuda_stream);
    dsp_context_destroy(d);
    free(d);
}

const char *dsp_error(const dsp_display *d)
{
    return d ? d->err.msg : "no display";
}

/* ---- textures ---- */

/* Binds `tex` (GL_TEXTURE_2D) and sets its filter, edges clamped. */
static void texture_params(GLuint tex, GLint filter)
{
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

/* A new RGBA16 texture of w x h in *tex, the framebuffer *fbo drawing into it
 * (the old ones deleted); 0 when that framebuffer is not complete. */
static int rgba16_target(GLuint *tex, GLuint *fbo, int w, int h, GLint filter)
{
    glDeleteFramebuffers(1, fbo);
    glDeleteTextures(1, tex);
    glGenTextures(1, tex);
    texture_params(*tex, filter);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16, w, h, 0, GL_RGBA, GL_UNSIGNED_SHORT, NULL);
    glGenFramebuffers(1, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, *tex, 0);
    return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

/* ---- submit ---- */

/* Gives the slot textures of the picture's plane sizes (allocating only
 * when they differ from what it has). */
static xsf_status slot_configure(dsp_display *d, dsp_slot *s, const xsf_picture *pic,
                                 dsp_chroma chroma)
{
    const xsf_format *f = &pic->fmt;
    const int nc = chroma == DSP_CHROMA_GRAY ? 1 : 3;
    if (d->compose) {
        slot_release(d, s);
        if (pic->memory == XSF_MEMORY_DEVICE && pic->ref) {
            /* Kept where they are (a reference of our own): nothing to copy. */
            xsf_picture_ref(&s->kept, pic);
            for (int c = 0; c < nc; c++) {
                s->width[c] = f->width[c];
                s->height[c] = f->height[c];
            }
            s->nc = nc;
            s->depth = f->depth[0];
            s->chroma = chroma;
            s->colour = pic->colour;
            return XSF_OK;
        }
        /* The planes, packed, in device memory (grown, never per picture). */
        size_t bytes = 0;
        for (int c = 0; c < nc; c++) {
            s->plane_off[c] = bytes;
            bytes += (size_t)f->width[c] * (size_t)f->height[c] * sizeof(uint16_t);
            s->width[c] = f->width[c];
            s->height[c] = f->height[c];
        }
        if (bytes > s->dev_bytes) {
            dsp_cuda_free(s->dev);
            s->dev_bytes = 0;
            if (!(s->dev = dsp_cuda_alloc(bytes)))
                return xsf_error_set(&d->err, XSF_ERR_NOMEM,
                                     "no device memory for a picture of %dx%d", f->width[0],
                                     f->height[0]);
            s->dev_bytes = bytes;
        }
        s->nc = nc;
        s->depth = f->depth[0];
        s->chroma = chroma;
        s->colour = pic->colour;
        return XSF_OK;
    }
    int same = s->nc == nc;
    for (int c = 0; c < nc && same; c++)
        same = s->tex[c] && s->width[c] == f->width[c] && s->height[c] == f->height[c];
    if (!same) {
        slot_free(s);
        glGenTextures(nc, s->tex);
        for (int c = 0; c < nc; c++) {
            texture_params(s->tex[c], GL_NEAREST);
            glTexImage2D(GL_TEXTURE_2D, 0, GL_R16, f->width[c], f->height[c], 0, GL_RED,
                         GL_UNSIGNED_SHORT, NULL);
            s->width[c] = f->width[c];
            s->height[c] = f->height[c];
        }
        s->nc = nc;
        if (glGetError() != GL_NO_ERROR)
            return xsf_error_set(&d->err, XSF_ERR_NOMEM, "cannot allocate textures of %dx%d",
                                 f->width[0], f->height[0]);
    }
    s->depth = f->depth[0];
    s->chroma = chroma;
    s->colour = pic->colour;
    return XSF_OK;
}

static xsf_status upload(dsp_display *d, dsp_slot *s, const xsf_picture *pic, void *cuda_stream)
{
    const int on_device = pic->memory == XSF_MEMORY_DEVICE;
    if (d->compose) {
        /* Into the slot's device memory on our own stream; done before we
         * return, so the caller may reuse the planes (a device picture on a
         * stream of the caller's is waited for first). */
        if (!d->cuda_stream && !(d->cuda_stream = dsp_interop_stream_create()))
            return xsf_error_set(&d->err, XSF_ERR_CUDA, "cannot create the display's CUDA stream");
        if (on_device && cuda_stream && dsp_interop_stream_sync(cuda_stream, &d->err) != XSF_OK)
            return d->err.status;
        if (s->kept.ref)
            return XSF_OK;
        for (int c = 0; c < s->nc; c++) {
            const size_t row = (size_t)s->width[c] * sizeof(uint16_t);
            if (dsp_cuda_copy_plane(s->dev + s->plane_off[c], row, pic->data[c], pic->stride[c],
                                    row, (size_t)s->height[c], !on_device, d->cuda_stream,
                                    &d->err) != XSF_OK)
                return d->err.status;
        }
        return dsp_interop_stream_sync(d->cuda_stream, &d->err);
    }
    if (on_device) {
        for (int c = 0; c < s->nc; c++)
            if (!s->cuda[c] && dsp_interop_register(s->tex[c], &s->cuda[c], &d->err) != XSF_OK)
                return d->err.status;
        if (cuda_stream)
            return dsp_interop_copy(s->cuda, s->nc, pic, cuda_stream, &d->err);
        /* No stream given: the picture is ready now, and the caller may reuse
         * its planes once we return. The copy runs on our own non-blocking
         * stream (not the legacy default stream, which would wait for every
         * decoder's work in flight) and we wait for it alone. */
        if (!d->cuda_stream && !(d->cuda_stream = dsp_interop_stream_create()))
            return xsf_error_set(&d->err, XSF_ERR_CUDA, "cannot create the display's CUDA stream");
        if (dsp_interop_copy(s->cuda, s->nc, pic, d->cuda_stream, &d->err) != XSF_OK)
            return d->err.status;
        return dsp_interop_stream_sync(d->cuda_stream, &d->err);
    }
    glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
    for (int c = 0; c < s->nc; c++) {
        glBindTexture(GL_TEXTURE_2D, s->tex[c]);
        glPixelStorei(GL_UNPACK_ROW_LENGTH, (GLint)(pic->stride[c] / 2));
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, s->width[c], s->height[c], GL_RED,
                        GL_UNSIGNED_SHORT, pic->data[c]);
    }
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    return glGetError() == GL_NO_ERROR
               ? XSF_OK
               : xsf_error_set(&d->err, XSF_ERR_IO, "texture upload failed");
}

static xsf_status submit(dsp_display *d, int tile, const xsf_picture *pic, void *cuda_stream,
                         int64_t pts_ns)
{
    xsf_error_clear(&d->err);
    const dsp_chroma chroma = dsp_picture_chroma(pic, &d->err);
    if (chroma == DSP_CHROMA_INVALID)
        return d->err.status;
    if (pic->memory == XSF_MEMORY_DEVICE && !dsp_interop_built())
        return xsf_error_set(&d->err, XSF_ERR_NODEVICE,
                             "a device picture, but this build has no CUDA-GL interop");
    dsp_tile *t = &d->tile[tile];
    int evicted = 0;
    const int slot = dsp_pacer_push(&t->pacer, pts_ns, &evicted);
    if (t->converted == slot)
        t->converted = -1;
    dsp_slot *s = &t->slot[slot];
    xsf_status st = slot_configure(d, s, pic, chroma);
    if (st == XSF_OK)
        st = upload(d, s, pic, cuda_stream);
    if (st != XSF_OK) {
        /* Nothing usable in the slot: take it back from the pacer. */
        t->pacer.seq[slot] = 0;
        t->pacer.pushed--;
    }
    return st;
}

xsf_status dsp_submit(dsp_display *d, int tile, const xsf_picture *pic, void *cuda_stream,
                      int64_t pts_ns)
{
    if (!d || tile < 0 || tile >= d->tiles || !pic)
        return d ? xsf_error_set(&d->err, XSF_ERR_ARG, "tile %d of %d", tile, d->tiles)
                 : XSF_ERR_ARG;
    const int64_t t0 = dsp_now_ns();
    const xsf_status st = submit(d, tile, pic, cuda_stream, pts_ns);
    d->submit_ns[tile] += (uint64_t)(dsp_now_ns() - t0);
    return st;
}

/* ---- present ---- */

/* The colour conversion of a slot's picture: xsf_rgb_transform_make's factors, for
 * samples in [0, 2^16) (the CUDA compositor) or texels in [0, 1] (the
 * shader: `texel_scale` 65535). */
static void slot_factors(const dsp_slot *s, double texel_scale, float scale[3], float bias[3],
                         float m[9])
{
    xsf_rgb_transform x;
    xsf_rgb_transform_make(&x, &s->colour, s->depth, s->nc);
    for (int k = 0; k < 3; k++) {
        scale[k] = (float)(x.in_scale[k] * texel_scale);
        bias[k] = (float)x.in_bias[k];
        for (int j = 0; j < 3; j++)
            m[3 * k + j] = (float)x.m[k][j];
    }
}

static xsf_status convert_tile(dsp_display *d, dsp_tile *t, int slot)
{
    const dsp_slot *s = &t->slot[slot];
    if (!t->rgb_tex || t->rgb_w != s->width[0] || t->rgb_h != s->height[0]) {
        if (!rgba16_target(&t->rgb_tex, &t->rgb_fbo, s->width[0], s->height[0], GL_LINEAR))
            return xsf_error_set(&d->err, XSF_ERR_UNSUPPORTED, "no RGBA16 render target of %dx%d",
                                 s->width[0], s->height[0]);
        t->rgb_w = s->width[0];
        t->rgb_h = s->height[0];
    }
    glBindFramebuffer(GL_FRAMEBUFFER, t->rgb_fbo);
    glViewport(0, 0, t->rgb_w, t->rgb_h);
    glUseProgram(d->prog_convert);
    GLfloat scale[3], bias[3], m[9];
    slot_factors(s, 65535.0, scale, bias, m);
    glUniform3fv(d->u_scale, 1, scale);
    glUniform3fv(d->u_bias, 1, bias);
    glUniformMatrix3fv(d->u_matrix, 1, GL_TRUE, m);
    glUniform1i(d->u_nc, s->nc);
    glUniform2i(d->u_sub, s->chroma == DSP_CHROMA_444 ? 1 : 2, s->chroma == DSP_CHROMA_420 ? 2 : 1);
    for (int c = 0; c < 3; c++) {
        glActiveTexture(GL_TEXTURE0 + c);
        glBindTexture(GL_TEXTURE_2D, s->tex[c < s->nc ? c : 0]);
    }
    glActiveTexture(GL_TEXTURE0);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    t->converted = slot;
    return XSF_OK;
}

/* The overlay text of a tile: its label, then (overlay on) the caller's
 * statistics and the display's own counts. */
static void tile_text(const dsp_display *d, const dsp_tile *t, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s", t->label);
    if (d->overlay && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "%s%s%sSHOWN %llu DROPPED %llu", n ? "\n" : "", t->stats,
                 t->stats[0] ? "\n" : "", (unsigned long long)t->pacer.presented,
                 (unsigned long long)(t->pacer.dropped_late + t->pacer.dropped_full));
}

static void draw_text(dsp_display *d, dsp_tile *t, dsp_rect cell)
{
    char text[512];
    tile_text(d, t, text, sizeof text);
    if (!text[0])
        return;
    /* Redrawn only when it changes: the counts move at most once per frame. */
    const uint64_t dropped = t->pacer.dropped_late + t->pacer.dropped_full;
    if (t->text_dirty || (d->overlay && (t->overlay_presented != t->pacer.presented ||
                                         t->overlay_dropped != dropped))) {
        int w, h;
        dsp_font_measure(text, &w, &h);
        uint8_t *mask = malloc((size_t)w * h);
        if (!mask)
            return;
        dsp_font_draw(text, mask, w, h);
        if (!t->text_tex) {
            glGenTextures(1, &t->text_tex);
            texture_params(t->text_tex, GL_NEAREST);
        }
        glBindTexture(GL_TEXTURE_2D, t->text_tex);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, w, h, 0, GL_RED, GL_UNSIGNED_BYTE, mask);
        free(mask);
        t->text_w = w;
        t->text_h = h;
        t->text_dirty = 0;
        t->overlay_presented = t->pacer.presented;
        t->overlay_dropped = dropped;
    }
    /* Twice the font's size where the cell has room for it. */
    const int zoom = cell.w >= 4 * t->text_w && cell.h >= 6 * t->text_h ? 2 : 1;
    const int w = t->text_w * zoom, h = t->text_h * zoom;
    const int x = cell.x + 4, y = d->fb_h - (cell.y + 4 + h);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glViewport(x, y, w, h);
    glUseProgram(d->prog_text);
    glUniform1i(d->u_text_img, 0);
    glUniform4f(d->u_text_view, (GLfloat)x, (GLfloat)y, (GLfloat)w, (GLfloat)h);
    glBindTexture(GL_TEXTURE_2D, t->text_tex);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glDisable(GL_BLEND);
}

static void screenshot(dsp_display *d)
{
    compose_unmap(d);
    d->want_shot = 0;
    const size_t n = (size_t)d->fb_w * d->fb_h * 3;
    uint8_t *rgb = malloc(n);
    if (!rgb) {
        snprintf(d->notice, sizeof d->notice, "screenshot: out of memory");
        return;
    }
    char path[288];
    snprintf(path, sizeof path, "%.255s-%04u.ppm",
             d->opt.screenshot_prefix ? d->opt.screenshot_prefix : "xsflow", d->shots++);
    xsf_error err = {0};
    if (dsp_read_rgb(d, rgb, n) == XSF_OK &&
        dsp_write_ppm(path, rgb, d->fb_w, d->fb_h, &err) == XSF_OK)
        snprintf(d->notice, sizeof d->notice, "screenshot: %s", path);
    else
        snprintf(d->notice, sizeof d->notice, "screenshot: %s",
                 err.msg[0] ? err.msg : "cannot read the frame");
    free(rgb);
}

/* Gives the compositor's texture back to GL (before GL draws into or reads
 * it); the unmap orders GL's use after the kernels. */
static xsf_status compose_unmap(dsp_display *d)
{
    if (!d->compose_mapped)
        return XSF_OK;
    d->compose_mapped = 0;
    return dsp_compose_unmap(d->compose_res, d->compose_surface, d->cuda_stream, &d->err);
}

/* The compositor's texture at the framebuffer's size, registered with CUDA
 * (again only when the size changes). */
static xsf_status compose_target(dsp_display *d)
{
    if (d->compose_res && d->compose_w == d->fb_w && d->compose_h == d->fb_h)
        return XSF_OK;
    if (compose_unmap(d) != XSF_OK)
        return d->err.status;
    if (!d->window && !d->opt.deep_colour) {
        /* Offscreen into RGBA8: the kernels write the target itself, and GL
         * draws nothing but the overlay text. */
        if (d->compose_res)
            dsp_interop_unregister(d->compose_res);
        d->compose_res = NULL;
        if (dsp_compose_register(d->target_tex, &d->compose_res, &d->err) != XSF_OK)
            return d->err.status;
        d->compose_direct = 1;
        d->compose_w = d->fb_w;
        d->compose_h = d->fb_h;
        return XSF_OK;
    }
    if (d->compose_res)
        dsp_interop_unregister(d->compose_res);
    d->compose_res = NULL;
    if (!rgba16_target(&d->compose_tex, &d->compose_fbo, d->fb_w, d->fb_h, GL_NEAREST))
        return xsf_error_set(&d->err, XSF_ERR_UNSUPPORTED,
                             "no RGBA16 texture of %dx%d to compose into", d->fb_w, d->fb_h);
    if (dsp_compose_register(d->compose_tex, &d->compose_res, &d->err) != XSF_OK)
        return d->err.status;
    d->compose_w = d->fb_w;
    d->compose_h = d->fb_h;
    return XSF_OK;
}

/* Every tile's shown picture converted and scaled into the compositor's
 * texture by CUDA, then copied 1:1 into the framebuffer. */
static xsf_status compose(dsp_display *d, int cols, int rows)
{
    if (compose_target(d) != XSF_OK)
        return d->err.status;
    if (!d->cuda_stream && !(d->cuda_stream = dsp_interop_stream_create()))
        return xsf_error_set(&d->err, XSF_ERR_CUDA, "cannot create the display's CUDA stream");
    const uint64_t seq = d->compose_seq + 1;
    const int k = (int)(seq % DSP_FENCES);
    if (!d->fence[k] && !(d->fence[k] = dsp_cuda_event_create()))
        return xsf_error_set(&d->err, XSF_ERR_CUDA, "cannot create a CUDA event");
    if (d->fence_seq[k] > d->done_seq)
        release_pending(d, 1); /* DSP_FENCES compositions in flight: wait for them */
    if (!d->compose_mapped) {
        if (dsp_compose_map(d->compose_res, d->cuda_stream, &d->compose_surface, &d->err) != XSF_OK)
            return d->err.status;
        d->compose_mapped = 1;
    }
    const unsigned long long surface = d->compose_surface;
    dsp_compose_clear(surface, d->fb_w, d->fb_h, d->compose_direct, d->cuda_stream);
    for (int i = 0; i < d->tiles; i++) {
        const dsp_tile *t = &d->tile[i];
        if (t->converted < 0)
            continue;
        dsp_slot *s = &d->tile[i].slot[t->converted];
        s->read_seq = seq;
        const dsp_rect r =
            dsp_layout_fit(dsp_layout_cell(i, cols, rows, d->fb_w, d->fb_h), t->rgb_w, t->rgb_h);
        dsp_compose_params cp;
        memset(&cp, 0, sizeof cp);
        if (s->kept.ref) {
            cp.pic = s->kept;
            cp.pic.ref = NULL; /* a view: the slot holds the reference */
        } else {
            xsf_format f;
            memset(&f, 0, sizeof f);
            uint8_t *data[3];
            size_t stride[3];
            f.container = XSF_PLANAR_U16;
            f.nc = s->nc;
            for (int c = 0; c < s->nc; c++) {
                f.width[c] = s->width[c];
                f.height[c] = s->height[c];
                f.depth[c] = s->depth;
                data[c] = s->dev + s->plane_off[c];
                stride[c] = (size_t)s->width[c] * sizeof(uint16_t);
            }
            xsf_picture_wrap(&cp.pic, &f, data, stride, XSF_MEMORY_DEVICE, -1);
        }
        cp.pic.fmt.nc = s->nc; /* 1 or 3: a fourth plane is not shown */
        cp.subx = s->chroma == DSP_CHROMA_444 || s->nc == 1 ? 1 : 2;
        cp.suby = s->chroma == DSP_CHROMA_420 ? 2 : 1;
        slot_factors(s, 1.0, cp.scale, cp.bias, cp.m);
        dsp_compose_tile(surface, d->fb_h, d->compose_direct, r.x, r.y, r.w, r.h, &cp,
                         d->cuda_stream);
    }
    /* Offscreen, the target stays mapped until GL needs it: text to draw
     * this present, a read-back, a screenshot. A window's copy needs it at
     * every present. */
    int gl_needs = !d->compose_direct || d->want_shot || d->overlay;
    for (int i = 0; i < d->tiles && !gl_needs; i++)
        gl_needs = d->tile[i].label[0] != 0; /* tile_text's text: the label, or the overlay */
    xsf_status st = dsp_compose_check(&d->err);
    if (st == XSF_OK && gl_needs)
        st = compose_unmap(d);
    d->compose_seq = seq;
    d->fence_seq[k] = seq;
    if (dsp_cuda_event_record(d->fence[k], d->cuda_stream))
        release_pending(d, 1);
    else
        release_pending(d, 0);
    if (st != XSF_OK)
        return st;
    if (d->compose_direct) {
        dsp_context_bind_target(d);
        return XSF_OK;
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, d->compose_fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, d->window ? 0 : d->target_fbo);
    glBlitFramebuffer(0, 0, d->fb_w, d->fb_h, 0, 0, d->fb_w, d->fb_h, GL_COLOR_BUFFER_BIT,
                      GL_NEAREST);
    dsp_context_bind_target(d);
    return XSF_OK;
}

xsf_status dsp_present(dsp_display *d)
{
    if (!d)
        return XSF_ERR_ARG;
    const int64_t now = dsp_now_ns();
    /* With vsync the frame drawn now reaches the screen at the next blank,
     * about one period from now. */
    const int64_t deadline = now + (d->opt.vsync ? d->frame_ns : 0);
    glBindVertexArray(d->vao);
    glDisable(GL_BLEND);
    for (int i = 0; i < d->tiles; i++) {
        dsp_tile *t = &d->tile[i];
        if (d->paused) {
            dsp_pacer_flush(&t->pacer);
            continue;
        }
        const int slot = dsp_pacer_pick(&t->pacer, deadline, d->opt.vsync);
        if (slot < 0)
            continue;
        if (d->compose) {
            t->converted = slot; /* converted by the compositor below */
            t->rgb_w = t->slot[slot].width[0];
            t->rgb_h = t->slot[slot].height[0];
        } else if (convert_tile(d, t, slot) != XSF_OK) {
            return d->err.status;
        }
    }
    dsp_context_bind_target(d);
    glViewport(0, 0, d->fb_w, d->fb_h);
    int cols = 1, rows = 1;
    const double aspect =
        d->tile[0].rgb_w > 0 ? (double)d->tile[0].rgb_w / d->tile[0].rgb_h : 16.0 / 9.0;
    dsp_layout_grid(d->tiles, d->fb_w, d->fb_h, aspect, &cols, &rows);
    if (d->compose) {
        if (compose(d, cols, rows) != XSF_OK)
            return d->err.status;
    } else {
        glClearColor(0, 0, 0, 1);
        glClear(GL_COLOR_BUFFER_BIT);
    }
    for (int i = 0; i < d->tiles; i++) {
        dsp_tile *t = &d->tile[i];
        const dsp_rect cell = dsp_layout_cell(i, cols, rows, d->fb_w, d->fb_h);
        if (t->converted >= 0 && !d->compose) {
            const dsp_rect r = dsp_layout_fit(cell, t->rgb_w, t->rgb_h);
            const int y = d->fb_h - (r.y + r.h); /* GL counts rows from the bottom */
            glViewport(r.x, y, r.w, r.h);
            glUseProgram(d->prog_blit);
            glUniform1i(d->u_blit_img, 0);
            glUniform4f(d->u_blit_view, (GLfloat)r.x, (GLfloat)y, (GLfloat)r.w, (GLfloat)r.h);
            glBindTexture(GL_TEXTURE_2D, t->rgb_tex);
            glDrawArrays(GL_TRIANGLES, 0, 3);
        }
        draw_text(d, t, cell);
    }
    if (d->want_shot)
        screenshot(d);
    dsp_context_swap(d);
    d->present_ns += (uint64_t)(dsp_now_ns() - now);
    d->presents++;
    return glGetError() == GL_NO_ERROR
               ? XSF_OK
               : xsf_error_set(&d->err, XSF_ERR_IO, "OpenGL error while drawing");
}

/* ---- events, overlay, statistics, read-back ---- */

int dsp_poll(dsp_display *d)
{
    if (!d)
        return 1;
    const int overlay = d->overlay;
    dsp_context_poll(d);
    if (overlay != d->overlay)
        for (int t = 0; t < d->tiles; t++)
            d->tile[t].text_dirty = 1;
    return d->quit;
}

int dsp_paused(const dsp_display *d)
{
    return d && d->paused;
}

void dsp_set_overlay(dsp_display *d, int on)
{
    if (!d)
        return;
    d->overlay = on != 0;
    for (int t = 0; t < d->tiles; t++)
        d->tile[t].text_dirty = 1;
}

void dsp_request_screenshot(dsp_display *d)
{
    if (d)
        d->want_shot = 1;
}

int dsp_take_notice(dsp_display *d, char *buf, size_t cap)
{
    if (!d || !d->notice[0] || !cap)
        return 0;
    snprintf(buf, cap, "%s", d->notice);
    d->notice[0] = 0;
    return 1;
}

xsf_status dsp_set_stats_text(dsp_display *d, int tile, const char *text)
{
    if (!d || tile < 0 || tile >= d->tiles)
        return XSF_ERR_ARG;
    dsp_tile *t = &d->tile[tile];
    if (strncmp(t->stats, text ? text : "", sizeof t->stats - 1)) {
        snprintf(t->stats, sizeof t->stats, "%s", text ? text : "");
        t->text_dirty = 1;
    }
    return XSF_OK;
}

xsf_status dsp_tile_stats_get(const dsp_display *d, int tile, dsp_tile_stats *st)
{
    if (!d || tile < 0 || tile >= d->tiles || !st)
        return XSF_ERR_ARG;
    const dsp_pacer *p = &d->tile[tile].pacer;
    *st = (dsp_tile_stats){p->pushed,          p->presented,  p->dropped_late, p->dropped_full,
                           d->submit_ns[tile], d->present_ns, d->presents};
    return XSF_OK;
}

void dsp_size(const dsp_display *d, int *width, int *height)
{
    *width = d ? d->fb_w : 0;
    *height = d ? d->fb_h : 0;
}

xsf_status dsp_read_rgb(dsp_display *d, uint8_t *rgb, size_t cap)
{
    if (!d || !rgb || cap / 3 / (size_t)(d->fb_w ? d->fb_w : 1) < (size_t)d->fb_h)
        return XSF_ERR_ARG;
    if (compose_unmap(d) != XSF_OK)
        return d->err.status;
    dsp_context_bind_target(d);
    if (d->window)
        glReadBuffer(GL_BACK); /* before the swap, or after it: what was drawn last */
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    const size_t row = (size_t)d->fb_w * 3;
    glReadPixels(0, 0, d->fb_w, d->fb_h, GL_RGB, GL_UNSIGNED_BYTE, rgb);
    if (glGetError() != GL_NO_ERROR)
        return xsf_error_set(&d->err, XSF_ERR_IO, "glReadPixels failed");
    /* GL's rows run bottom to top. */
    uint8_t tmp[3 * 4096];
    for (int y = 0; y < d->fb_h / 2; y++) {
        uint8_t *a = rgb + (size_t)y * row, *b = rgb + (size_t)(d->fb_h - 1 - y) * row;
        for (size_t off = 0; off < row; off += sizeof tmp) {
            const size_t n = row - off < sizeof tmp ? row - off : sizeof tmp;
            memcpy(tmp, a + off, n);
            memcpy(a + off, b + off, n);
            memcpy(b + off, tmp, n);
        }
    }
    return XSF_OK;
}
