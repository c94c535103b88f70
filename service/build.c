/* What this build of xsflow is (service.h, svc_build_get). The CMake files
 * say which optional parts were built (service/CMakeLists.txt). */
#define _DEFAULT_SOURCE /* pcap.h: u_int, u_char */
#include <pcap/pcap.h>
#include <stdio.h>

#include "service.h"
#include "xsf_version.h"

void svc_build_get(svc_build *b)
{
    *b = (svc_build){
        .version = XSF_VERSION,
        .git_commit = XSF_GIT_COMMIT,
        .cuda = XSF_BUILD_CUDA,
        .gl = XSF_BUILD_GL,
        .gl_window = XSF_BUILD_GL_WINDOW,
        .gstreamer = XSF_BUILD_GST,
        .nmos = XSF_BUILD_NMOS,
        .pcap = pcap_lib_version(),
    };
}

size_t svc_build_describe(char *out, size_t cap)
{
    svc_build b;
    svc_build_get(&b);
    const int n = snprintf(
        out, cap,
        "xsflow %s%s%s%s\n"
        "CUDA: %s\n"
        "GL display: %s\n"
        "GStreamer plugin: %s\n"
        "NMOS node: %s\n"
        "libpcap: yes (%s)\n",
        b.version, b.git_commit[0] ? " (git " : "", b.git_commit, b.git_commit[0] ? ")" : "",
        b.cuda ? "yes (GPU decoders and encoders; a GPU is looked for at run time)" : "no",
        !b.gl         ? "no"
        : b.gl_window ? "yes (windows and offscreen)"
                      : "yes (offscreen only, no GLFW)",
        b.gstreamer ? "yes" : "no", b.nmos ? "yes (xsflow node)" : "no", b.pcap);
    return n < 0 ? 0 : (size_t)n;
}
