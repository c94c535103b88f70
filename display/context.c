/* The GL context of a display: a GLFW window, or EGL with no window system
 * (an EGL device such as the NVIDIA GPU or Mesa's software device, or
 * Mesa's surfaceless platform)
 * rendering into a framebuffer object of the requested size. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <epoxy/egl.h>

#include "gl_internal.h"

#ifdef XSF_DISPLAY_GLFW
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#endif

/* ---- headless: EGL ---- */

static int has_extension(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
            return 1;
    return 0;
}

/* The EGL device to render on: the one that is CUDA device 0 where the
 * driver says (EGL_NV_device_cuda: interop needs GL and CUDA on one GPU),
 * else the first that initializes (Mesa's software device in CI). */
static EGLDisplay open_egl_device(PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display)
{
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLQUERYDEVICEATTRIBEXTPROC query_attrib =
        (PFNEGLQUERYDEVICEATTRIBEXTPROC)eglGetProcAddress("eglQueryDeviceAttribEXT");
    PFNEGLQUERYDEVICESTRINGEXTPROC query_string =
        (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
    EGLDeviceEXT devices[16];
    EGLint n = 0;
    if (!query_devices || !query_devices(16, devices, &n) || n <= 0)
        return EGL_NO_DISPLAY;
    for (int pass = 0; pass < 2; pass++) {
        for (EGLint i = 0; i < n; i++) {
            if (pass == 0) {
                const char *ext = query_string ? query_string(devices[i], EGL_EXTENSIONS) : NULL;
                EGLAttrib cuda = -1;
                if (!has_extension(ext, "EGL_NV_device_cuda") || !query_attrib ||
                    !query_attrib(devices[i], EGL_CUDA_DEVICE_NV, &cuda) || cuda != 0)
                    continue;
            }
            EGLDisplay dpy = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
            if (dpy != EGL_NO_DISPLAY && eglInitialize(dpy, NULL, NULL))
                return dpy;
        }
    }
    return EGL_NO_DISPLAY;
}

/* An initialized EGL display: the platform named by XSF_EGL_PLATFORM
 * ("device", "surfaceless", "default"), else an EGL device, then Mesa's
 * surfaceless platform, then the default display. */
static EGLDisplay open_egl(xsf_error *err)
{
    /* libepoxy aborts the process when it cannot load libEGL: look first. */
    void *lib = dlopen("libEGL.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        xsf_error_set(err, XSF_ERR_IO, "no offscreen rendering: libEGL.so.1 cannot be loaded (%s)",
                      dlerror());
        return EGL_NO_DISPLAY;
    }
    dlclose(lib);
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    const char *want = getenv("XSF_EGL_PLATFORM");
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    static const char *const names[] = {"device", "surfaceless", "default"};
    for (int attempt = 0; attempt < 3; attempt++) {
        if (want && *want && strcmp(want, names[attempt]))
            continue;
        EGLDisplay dpy = EGL_NO_DISPLAY;
        if (attempt == 0 && get_platform_display &&
            has_extension(client, "EGL_EXT_platform_device")) {
            dpy = open_egl_device(get_platform_display);
            if (dpy != EGL_NO_DISPLAY)
                return dpy; /* initialized */
        } else if (attempt == 1 && get_platform_display &&
                   has_extension(client, "EGL_MESA_platform_surfaceless")) {
            dpy = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        } else if (attempt == 2) {
            dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
        }
        if (dpy != EGL_NO_DISPLAY && eglInitialize(dpy, NULL, NULL))
            return dpy;
    }
    xsf_error_set(err, XSF_ERR_IO, "no EGL display (tried %s; EGL error 0x%x)",
                  want && *want ? want : "device, surfaceless, default", (unsigned)eglGetError());
    return EGL_NO_DISPLAY;
}

static xsf_status egl_create(dsp_display *d)
{
    EGLDisplay dpy = open_egl(&d->err);
    if (dpy == EGL_NO_DISPLAY)
        return XSF_ERR_IO;
    d->egl_display = dpy;
    if (!eglBindAPI(EGL_OPENGL_API))
        return xsf_error_set(&d->err, XSF_ERR_IO, "EGL has no desktop OpenGL");
    const char *ext = eglQueryString(dpy, EGL_EXTENSIONS);
    const EGLint config_attr[] = {EGL_SURFACE_TYPE,
                                  EGL_PBUFFER_BIT,
                                  EGL_RENDERABLE_TYPE,
                                  EGL_OPENGL_BIT,
                                  EGL_RED_SIZE,
                                  8,
                                  EGL_GREEN_SIZE,
                                  8,
                                  EGL_BLUE_SIZE,
                                  8,
                                  EGL_NONE};
    EGLConfig config = NULL;
    EGLint nconfig = 0;
    if (!eglChooseConfig(dpy, config_attr, &config, 1, &nconfig) || nconfig < 1) {
        if (!has_extension(ext, "EGL_KHR_no_config_context"))
            return xsf_error_set(&d->err, XSF_ERR_IO, "no EGL config for desktop OpenGL");
        config = EGL_NO_CONFIG_KHR;
    }
    const EGLint context_attr[] = {EGL_CONTEXT_MAJOR_VERSION,
                                   3,
                                   EGL_CONTEXT_MINOR_VERSION,
                                   3,
                                   EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                   EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                   EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attr);
    if (ctx == EGL_NO_CONTEXT)
        return xsf_error_set(&d->err, XSF_ERR_IO, "no OpenGL 3.3 core context through EGL (0x%x)",
                             (unsigned)eglGetError());
    d->egl_context = ctx;
    EGLSurface surf = EGL_NO_SURFACE;
    if (!has_extension(ext, "EGL_KHR_surfaceless_context") && config != EGL_NO_CONFIG_KHR) {
        const EGLint pbuffer_attr[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
        surf = eglCreatePbufferSurface(dpy, config, pbuffer_attr);
    }
    d->egl_surface = surf;
    if (!eglMakeCurrent(dpy, surf, surf, ctx))
        return xsf_error_set(&d->err, XSF_ERR_IO, "eglMakeCurrent failed (0x%x)",
                             (unsigned)eglGetError());
    /* The offscreen target that stands for the window. */
    d->fb_w = d->opt.width;
    d->fb_h = d->opt.height;
    d->colour_bits = d->opt.deep_colour ? 10 : 8;
    glGenTextures(1, &d->target_tex);
    glBindTexture(GL_TEXTURE_2D, d->target_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, d->opt.deep_colour ? GL_RGB10_A2 : GL_RGBA8, d->fb_w, d->fb_h, 0,
                 GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glGenFramebuffers(1, &d->target_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, d->target_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, d->target_tex, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        return xsf_error_set(&d->err, XSF_ERR_IO,
                             "the offscreen framebuffer of %dx%d is incomplete", d->fb_w, d->fb_h);
    return XSF_OK;
}

/* ---- window: GLFW ---- */

#ifdef XSF_DISPLAY_GLFW
static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode, (void)mods;
    dsp_display *d = glfwGetWindowUserPointer(w);
    if (!d || action != GLFW_PRESS)
        return;
    switch (key) {
    case GLFW_KEY_SPACE: d->paused = !d->paused; break;
    case GLFW_KEY_F: dsp_context_toggle_fullscreen(d); break;
    case GLFW_KEY_S: d->want_shot = 1; break;
    case GLFW_KEY_I: d->overlay = !d->overlay; break;
    case GLFW_KEY_Q:
    case GLFW_KEY_ESCAPE: d->quit = 1; break;
    default: break;
    }
}

static xsf_status glfw_create(dsp_display *d)
{
    if (!glfwInit()) {
        const char *why = NULL;
        glfwGetError(&why);
        return xsf_error_set(&d->err, XSF_ERR_IO,
                             "no window system (%s); --headless renders without one",
                             why ? why : "glfwInit failed");
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    const int bits = d->opt.deep_colour ? 10 : 8;
    glfwWindowHint(GLFW_RED_BITS, bits);
    glfwWindowHint(GLFW_GREEN_BITS, bits);
    glfwWindowHint(GLFW_BLUE_BITS, bits);
    glfwWindowHint(GLFW_ALPHA_BITS, d->opt.deep_colour ? 2 : 8);
    GLFWwindow *w = glfwCreateWindow(d->opt.width, d->opt.height,
                                     d->opt.title ? d->opt.title : "xsflow", NULL, NULL);
    if (!w && d->opt.deep_colour) {
        /* No 10-bit visual: an ordinary one. */
        glfwWindowHint(GLFW_RED_BITS, 8);
        glfwWindowHint(GLFW_GREEN_BITS, 8);
        glfwWindowHint(GLFW_BLUE_BITS, 8);
        glfwWindowHint(GLFW_ALPHA_BITS, 8);
        w = glfwCreateWindow(d->opt.width, d->opt.height, d->opt.title ? d->opt.title : "xsflow",
                             NULL, NULL);
    }
    if (!w) {
        const char *why = NULL;
        glfwGetError(&why);
        glfwTerminate();
        return xsf_error_set(&d->err, XSF_ERR_IO, "cannot open a window with OpenGL 3.3 (%s)",
                             why ? why : "unknown");
    }
    d->window = w;
    glfwSetWindowUserPointer(w, d);
    glfwSetKeyCallback(w, on_key);
    glfwMakeContextCurrent(w);
    glfwSwapInterval(d->opt.vsync ? 1 : 0);
    glfwGetFramebufferSize(w, &d->fb_w, &d->fb_h);
    GLint red = 8;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glGetFramebufferAttachmentParameteriv(GL_FRAMEBUFFER, GL_BACK_LEFT,
                                          GL_FRAMEBUFFER_ATTACHMENT_RED_SIZE, &red);
    d->colour_bits = red;
    const GLFWvidmode *mode = glfwGetVideoMode(glfwGetPrimaryMonitor());
    if (mode && mode->refreshRate > 0)
        d->frame_ns = 1000000000LL / mode->refreshRate;
    return XSF_OK;
}
#endif

xsf_status dsp_context_create(dsp_display *d)
{
    if (d->opt.headless)
        return egl_create(d);
#ifdef XSF_DISPLAY_GLFW
    return glfw_create(d);
#else
    return xsf_error_set(&d->err, XSF_ERR_UNSUPPORTED,
                         "this build has no window support (GLFW); use --headless");
#endif
}

void dsp_context_destroy(dsp_display *d)
{
    if (d->egl_display) {
        eglMakeCurrent(d->egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (d->egl_surface)
            eglDestroySurface(d->egl_display, d->egl_surface);
        if (d->egl_context)
            eglDestroyContext(d->egl_display, d->egl_context);
        eglTerminate(d->egl_display);
        d->egl_display = NULL;
    }
#ifdef XSF_DISPLAY_GLFW
    if (d->window) {
        glfwDestroyWindow(d->window);
        glfwTerminate();
        d->window = NULL;
    }
#endif
}

void dsp_context_bind_target(dsp_display *d)
{
    glBindFramebuffer(GL_FRAMEBUFFER, d->window ? 0 : d->target_fbo);
#ifdef XSF_DISPLAY_GLFW
    if (d->window)
        glfwGetFramebufferSize(d->window, &d->fb_w, &d->fb_h);
#endif
}

void dsp_context_swap(dsp_display *d)
{
#ifdef XSF_DISPLAY_GLFW
    if (d->window)
        glfwSwapBuffers(d->window);
#endif
    (void)d;
}

void dsp_context_poll(dsp_display *d)
{
#ifdef XSF_DISPLAY_GLFW
    if (d->window) {
        glfwPollEvents();
        if (glfwWindowShouldClose(d->window))
            d->quit = 1;
    }
#endif
    (void)d;
}

void dsp_context_toggle_fullscreen(dsp_display *d)
{
#ifdef XSF_DISPLAY_GLFW
    if (!d->window)
        return;
    GLFWmonitor *mon = glfwGetPrimaryMonitor();
    const GLFWvidmode *mode = mon ? glfwGetVideoMode(mon) : NULL;
    if (!mode)
        return;
    if (!d->fullscreen) {
        glfwGetWindowPos(d->window, &d->win_x, &d->win_y);
        glfwGetWindowSize(d->window, &d->win_w, &d->win_h);
        glfwSetWindowMonitor(d->window, mon, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
        glfwSetWindowMonitor(d->window, NULL, d->win_x, d->win_y, d->win_w, d->win_h,
                             GLFW_DONT_CARE);
    }
    /* A mode change may reset the swap interval. */
    glfwSwapInterval(d->opt.vsync ? 1 : 0);
    d->fullscreen = !d->fullscreen;
#endif
    (void)d;
}
