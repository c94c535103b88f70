/* A node with its decoding service, set up from files (nmos.h, nmos_host):
 * what `xsflow node` runs. */
#include <stdlib.h>
#include <string.h>

#include "image_io.h"
#include "nmos.h"

struct nmos_host {
    char *sdp_text[NMOS_MAX_SENDERS];
    pl_pipeline *pipeline;
    nmos_service *service;
    nmos_node *node;
};

/* Each sender's SDP file, read whole and NUL-terminated. */
static xsf_status read_sdps(nmos_host *h, nmos_host_config *c, const char **subject, xsf_error *err)
{
    for (unsigned i = 0; i < c->node.nsenders; i++) {
        uint8_t *text;
        size_t len;
        *subject = c->sender_sdp[i];
        if (imgio_read_file(c->sender_sdp[i], &text, &len, err) != XSF_OK)
            return err->status;
        h->sdp_text[i] = realloc(text, len + 1);
        if (!h->sdp_text[i]) {
            free(text);
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
        }
        h->sdp_text[i][len] = 0;
        c->node.senders[i].sdp = h->sdp_text[i];
        c->node.senders[i].label = c->sender_sdp[i];
    }
    return XSF_OK;
}

/* The clips the node sends itself. */
static xsf_status add_clips(nmos_host *h, const nmos_host_config *c, const char **subject,
                            xsf_error *err)
{
    for (unsigned i = 0; i < c->node.nsenders; i++) {
        if (!c->sender_clip[i])
            continue;
        *subject = c->sender_clip[i];
        uint8_t *clip;
        size_t len;
        xsf_status st = imgio_read_file(c->sender_clip[i], &clip, &len, err);
        if (st == XSF_OK) {
            st = nmos_service_add_clip(h->service, i, clip, len, err);
            free(clip);
        }
        if (st != XSF_OK)
            return st;
    }
    return XSF_OK;
}

xsf_status nmos_host_create(nmos_host **out, nmos_host_config *c, const char **subject,
                            xsf_error *err)
{
    *out = NULL;
    nmos_host *h = calloc(1, sizeof *h);
    if (!h) {
        *subject = "node";
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    }
    xsf_status st = read_sdps(h, c, subject, err);
    if (st == XSF_OK && (st = pl_create(&h->pipeline, &c->pl, err)) != XSF_OK)
        *subject = "pipeline";
    const nmos_service_config sc = {
        .pipeline = h->pipeline, .output = c->output, .pix_fmt = c->pix_fmt};
    if (st == XSF_OK && (st = nmos_service_create(&h->service, &sc, err)) != XSF_OK)
        *subject = "-o";
    if (st == XSF_OK)
        st = add_clips(h, c, subject, err);
    if (st == XSF_OK) {
        c->node.activate = nmos_service_activate;
        c->node.activate_sender = nmos_service_activate_sender;
        c->node.activate_ctx = h->service;
        if ((st = nmos_node_create(&h->node, &c->node, err)) != XSF_OK)
            *subject = "node";
    }
    if (st != XSF_OK) {
        nmos_host_destroy(h);
        return st;
    }
    *out = h;
    return XSF_OK;
}

nmos_node *nmos_host_node(const nmos_host *h)
{
    return h->node;
}
nmos_service *nmos_host_service(const nmos_host *h)
{
    return h->service;
}
pl_pipeline *nmos_host_pipeline(const nmos_host *h)
{
    return h->pipeline;
}

void nmos_host_destroy(nmos_host *h)
{
    if (!h)
        return;
    nmos_node_destroy(h->node); /* no more activations: then the streams stop */
    nmos_service_destroy(h->service);
    pl_destroy(h->pipeline);
    for (unsigned i = 0; i < NMOS_MAX_SENDERS; i++)
        free(h->sdp_text[i]);
    free(h);
}
