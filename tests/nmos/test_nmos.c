/* Tests of the NMOS node (nmos/), on loopback only:
 *   1. IS-04 Node API: the resource lists and their JSON (ids, versions,
 *      JPEG XS caps and flow), 404 for unknown ids, errors as JSON
 *   2. IS-05: a receiver staged with the SDP of `xsflow send --sdp` and
 *      activated; the pictures arrive (MD5 equal to the C decoder's of the
 *      clip); deactivation stops the stream and frees its port; bad JSON
 *      and bad parameters get 400
 *   3. scheduled activation (relative and absolute, cancelled, 423 while
 *      pending); a receiver retargeted and stopped while another receives
 *      a whole clip, undisturbed
 *   4. registration with a fake registry (a tiny libmicrohttpd server here):
 *      resources in order, heartbeats, re-registration after a 404 on a
 *      heartbeat and after the registry restarts, updates on activation,
 *      DELETE on the way out
 *   5. a sender the node sends itself, activated through IS-05, its
 *      transport file handed to a receiver: pictures arrive; stopped
 *
 * usage: test_nmos VECTOR_DIR XSFLOW */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <microhttpd.h>

#include "jxs_file.h"
#include "md5.h"
#include "nmos.h"
#include "test.h"

extern char **environ;

static const char *vector_dir, *xsflow;
static char clip[1024], tmpdir[256];

/* ---- helpers ---- */

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct buf {
    char *data;
    size_t len;
} buf;

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
    buf *b = ctx;
    char *nd = realloc(b->data, b->len + size * n + 1);
    if (!nd)
        return 0;
    memcpy(nd + b->len, p, size * n);
    b->data = nd;
    b->len += size * n;
    b->data[b->len] = 0;
    return size * n;
}

/* An HTTP request; the status (or -1) and the body parsed as JSON in *json
 * (NULL when it is not JSON), the raw body in *raw when asked. */
static long http_n(const char *method, const char *url, const char *body, size_t body_len,
                   cJSON **json, char **raw)
{
    CURL *c = curl_easy_init();
    buf b = {NULL, 0};
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)body_len);
    }
    long code = -1;
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (json)
        *json = b.data ? cJSON_Parse(b.data) : NULL;
    if (raw)
        *raw = b.data;
    else
        free(b.data);
    return code;
}

static long http(const char *method, const char *url, const char *body, cJSON **json, char **raw)
{
    return http_n(method, url, body, body ? strlen(body) : 0, json, raw);
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int version_ok(const char *v)
{
    unsigned long long s, ns;
    char end;
    return sscanf(v, "%llu:%llu%c", &s, &ns, &end) == 2 && ns < 1000000000ull && s > 1500000000ull;
}

static int run(char *const argv[])
{
    pid_t pid;
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ))
        return -1;
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A free UDP port on loopback (bound and released). */
static unsigned free_udp_port(void)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    bind(s, (struct sockaddr *)&a, sizeof a);
    getsockname(s, (struct sockaddr *)&a, &len);
    close(s);
    return ntohs(a.sin_port);
}

static int udp_port_free(unsigned port)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    const int ok = bind(s, (struct sockaddr *)&a, sizeof a) == 0;
    close(s);
    return ok;
}

/* The SDP `xsflow send --sdp` writes for the clip sent to 127.0.0.1:port. */
static char *sender_sdp(unsigned port)
{
    char to[64], sdp[512], pcap[512];
    snprintf(to, sizeof to, "127.0.0.1:%u", port);
    snprintf(sdp, sizeof sdp, "%s/s%u.sdp", tmpdir, port);
    snprintf(pcap, sizeof pcap, "%s/s%u.pcap", tmpdir, port);
    char *argv[] = {(char *)xsflow, "send", clip, "--pcap", pcap, "--to", to,
                    "--sdp",        sdp,    "-q", NULL};
    if (run(argv))
        return NULL;
    FILE *f = fopen(sdp, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, 8192);
    const size_t n = fread(text, 1, 8191, f);
    fclose(f);
    text[n] = 0;
    return text;
}

static int send_clip(unsigned port, unsigned loops)
{
    char to[64], loop[16];
    snprintf(to, sizeof to, "127.0.0.1:%u", port);
    snprintf(loop, sizeof loop, "%u", loops);
    char *argv[] = {(char *)xsflow, "send",  clip,  "--to", to,  "--loop",
                    loop,           "--fps", "100", "-q",   NULL};
    return run(argv);
}

/* The first half of the packets of the clip's first frame, to 127.0.0.1:port
 * (a frame left half assembled). */
typedef struct half {
    int sock;
    struct sockaddr_in to;
    size_t sent, limit;
} half;

static int send_half_cb(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    half *h = ctx;
    if (h->sent < h->limit)
        sendto(h->sock, pkt, len, 0, (struct sockaddr *)&h->to, sizeof h->to);
    h->sent++;
    return 0;
}

static int send_half_frame(unsigned port)
{
    uint8_t *data;
    size_t len;
    xsf_error err;
    if (imgio_read_file(clip, &data, &len, &err) != XSF_OK)
        return -1;
    xs_layout layout;
    memset(&layout, 0, sizeof layout);
    int rc = -1;
    rtp_packetizer *pk = NULL;
    rtp_packetizer_config pc = {
        .payload_type = 112, .ssrc = 0x48414c46u, .first_seq = 100, .boxes = 1};
    half h = {.sock = socket(AF_INET, SOCK_DGRAM, 0)};
    h.to.sin_family = AF_INET;
    h.to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    h.to.sin_port = htons((uint16_t)port);
    size_t npk;
    if (xs_scan_layout(data, len, &layout, &err) == XSF_OK &&
        rtp_packetizer_create(&pk, &pc, &err) == XSF_OK &&
        rtp_packetize_count(pk, data, layout.codestream_bytes, &npk, &err) == XSF_OK && npk > 1) {
        h.limit = npk / 2;
        rc = rtp_packetize(pk, data, layout.codestream_bytes, 1000, 0, RTP_JXS_PROGRESSIVE,
                           send_half_cb, &h, &err) == XSF_OK
                 ? 0
                 : -1;
    }
    rtp_packetizer_destroy(pk);
    xs_layout_free(&layout);
    close(h.sock);
    free(data);
    return rc;
}

/* The C decoder's MD5 of the clip in .yuv layout, `loops` times over. */
static int reference_md5(unsigned loops, char hex[33], unsigned *frames)
{
    uint8_t *data;
    size_t len;
    xsf_error err;
    if (imgio_read_file(clip, &data, &len, &err) != XSF_OK)
        return -1;
    xs_decoder *dec;
    if (xs_decoder_create(&dec, NULL) != XSF_OK) {
        free(data);
        return -1;
    }
    app_md5 m;
    app_md5_init(&m);
    *frames = 0;
    for (unsigned l = 0; l < loops; l++)
        for (size_t off = 0; off < len;) {
            size_t used;
            const xsf_picture *img;
            if (xs_decode(dec, data + off, len - off, &used, &img) != XSF_OK) {
                xs_decoder_destroy(dec);
                free(data);
                return -1;
            }
            imgio_yuv_serialize(img, app_md5_sink, &m);
            off += used;
            (*frames)++;
        }
    app_md5_final_hex(&m, hex);
    xs_decoder_destroy(dec);
    free(data);
    return 0;
}

/* A PATCH of a receiver's /staged: the status and the answer. */
static long patch_rx(nmos_node *n, unsigned i, const char *body, cJSON **answer)
{
    char url[256];
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/receivers/%s/staged",
             nmos_node_url(n), nmos_node_receiver_id(n, i));
    return http("PATCH", url, body, answer, NULL);
}

static char *connect_body(const char *sdp, const char *activation)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "sender_id", "3f1e9a2c-6c1d-4e0b-9a55-0d8f3c1b2a77");
    cJSON_AddBoolToObject(o, "master_enable", 1);
    cJSON *tf = cJSON_AddObjectToObject(o, "transport_file");
    cJSON_AddStringToObject(tf, "data", sdp);
    cJSON_AddStringToObject(tf, "type", "application/sdp");
    cJSON_AddItemToObject(o, "activation", cJSON_Parse(activation));
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

static int wait_frames(nmos_service *svc, unsigned rx, uint64_t want, unsigned timeout_ms)
{
    for (unsigned t = 0; t < timeout_ms; t += 20) {
        nmos_stream_info info;
        nmos_service_stream(svc, rx, &info);
        if (info.frames >= want)
            return 1;
        sleep_ms(20);
    }
    return 0;
}

/* ---- the node under test ---- */

typedef struct fixture {
    pl_pipeline *p;
    nmos_service *svc;
    nmos_node *node;
    char *tx_sdp;
} fixture;

static int fixture_open_ex(fixture *f, const char *registry, double heartbeat_s, int controlled)
{
    memset(f, 0, sizeof *f);
    xsf_error err;
    xsf_error_clear(&err);
    pl_config pc = {.engine = PL_ENGINE_CPU, .cpu_threads = 2};
    if (pl_create(&f->p, &pc, &err) != XSF_OK)
        return fprintf(stderr, "pl_create: %s\n", err.msg), -1;
    char out[400];
    snprintf(out, sizeof out, "%s/rx%%u.yuv", tmpdir);
    nmos_service_config sc = {.pipeline = f->p, .output = out, .md5 = 1};
    if (nmos_service_create(&f->svc, &sc, &err) != XSF_OK)
        return fprintf(stderr, "service: %s\n", err.msg), -1;
    f->tx_sdp = sender_sdp(free_udp_port());
    if (!f->tx_sdp)
        return fprintf(stderr, "xsflow send --sdp failed\n"), -1;
    nmos_config nc;
    memset(&nc, 0, sizeof nc);
    nc.label = "test";
    nc.port = 0;
    nc.seed = "test-seed";
    nc.receivers = 3;
    nc.senders[0].sdp = f->tx_sdp;
    nc.senders[0].label = "clip";
    nc.senders[0].controlled = controlled;
    nc.nsenders = 1;
    if (controlled) {
        uint8_t *data;
        size_t len;
        if (imgio_read_file(clip, &data, &len, &err) != XSF_OK)
            return fprintf(stderr, "%s: %s\n", clip, err.msg), -1;
        const xsf_status st = nmos_service_add_clip(f->svc, 0, data, len, &err);
        free(data);
        if (st != XSF_OK)
            return fprintf(stderr, "add_clip: %s\n", err.msg), -1;
    }
    nc.registry_url = registry;
    nc.heartbeat_s = heartbeat_s;
    nc.activate = nmos_service_activate;
    nc.activate_sender = nmos_service_activate_sender;
    nc.activate_ctx = f->svc;
    if (nmos_node_create(&f->node, &nc, &err) != XSF_OK)
        return fprintf(stderr, "node: %s\n", err.msg), -1;
    return 0;
}

static int fixture_open(fixture *f, const char *registry, double heartbeat_s)
{
    return fixture_open_ex(f, registry, heartbeat_s, 0);
}

static void fixture_close(fixture *f)
{
    nmos_node_destroy(f->node);
    nmos_service_destroy(f->svc);
    pl_destroy(f->p);
    free(f->tx_sdp);
}

static cJSON *get(nmos_node *n, const char *path, long *code)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", nmos_node_url(n), path);
    cJSON *j;
    *code = http("GET", url, NULL, &j, NULL);
    return j;
}

/* 1. IS-04 Node API. */
static void test_node_api(void)
{
    fixture f;
    CHECK(fixture_open(&f, NULL, 0) == 0, "fixture");
    if (!f.node)
        return;
    nmos_node *n = f.node;
    long code;
    cJSON *j = get(n, "/x-nmos/node/v1.3/", &code);
    CHECK(code == 200 && cJSON_GetArraySize(j) == 6, "node API root: %ld", code);
    cJSON_Delete(j);
    j = get(n, "/x-nmos/node/v1.3/self", &code);
    CHECK(code == 200 && !strcmp(str(j, "id"), nmos_node_id(n)) && version_ok(str(j, "version")),
          "self: %ld id %s version %s", code, str(j, "id"), str(j, "version"));
    const cJSON *eps = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "api"), "endpoints");
    CHECK(cJSON_GetObjectItem(cJSON_GetArrayItem(eps, 0), "port")->valueint == nmos_node_port(n),
          "self: endpoint port");
    cJSON_Delete(j);

    j = get(n, "/x-nmos/node/v1.3/receivers", &code);
    CHECK(code == 200 && cJSON_GetArraySize(j) == 3, "receivers: %ld, %d", code,
          cJSON_GetArraySize(j));
    for (int i = 0; i < cJSON_GetArraySize(j); i++) {
        const cJSON *r = cJSON_GetArrayItem(j, i);
        const cJSON *mt = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "caps"), "media_types");
        CHECK(!strcmp(str(r, "id"), nmos_node_receiver_id(n, (unsigned)i)) &&
                  nmos_node_receiver_id(n, (unsigned)i)[14] == '3' /* name-based, v3 */,
              "receiver %d id %s", i, str(r, "id"));
        CHECK(!strcmp(str(r, "format"), "urn:x-nmos:format:video") &&
                  !strcmp(str(r, "transport"), "urn:x-nmos:transport:rtp") &&
                  !strcmp(cJSON_GetArrayItem(mt, 0)->valuestring, "video/jxsv"),
              "receiver %d: format %s transport %s", i, str(r, "format"), str(r, "transport"));
    }
    cJSON_Delete(j);
    j = get(n, "/x-nmos/node/v1.3/flows", &code);
    const cJSON *flow = cJSON_GetArrayItem(j, 0);
    CHECK(code == 200 && !strcmp(str(flow, "media_type"), "video/jxsv") &&
              cJSON_GetObjectItem(flow, "frame_width")->valueint == 320 &&
              cJSON_GetArraySize(cJSON_GetObjectItem(flow, "components")) == 3,
          "flow: %ld %s", code, str(flow, "media_type"));
    cJSON_Delete(j);
    j = get(n, "/x-nmos/node/v1.3/senders", &code);
    const cJSON *snd = cJSON_GetArrayItem(j, 0);
    CHECK(code == 200 && !strcmp(str(snd, "id"), nmos_node_sender_id(n, 0)) &&
              strstr(str(snd, "manifest_href"), "/transportfile"),
          "sender: %ld", code);
    /* The manifest is the sender's SDP, for its active parameters. */
    char *sdp = NULL;
    CHECK(http("GET", str(snd, "manifest_href"), NULL, NULL, &sdp) == 200 && sdp &&
              strstr(sdp, "jxsv/90000") && strstr(sdp, "width=320"),
          "transport file: %s", sdp ? sdp : "(none)");
    free(sdp);
    cJSON_Delete(j);
    j = get(n, "/x-nmos/node/v1.3/devices", &code);
    const cJSON *dev = cJSON_GetArrayItem(j, 0);
    const cJSON *ctl = cJSON_GetArrayItem(cJSON_GetObjectItem(dev, "controls"), 0);
    CHECK(code == 200 && strstr(str(ctl, "href"), "/x-nmos/connection/v1.1/") &&
              cJSON_GetArraySize(cJSON_GetObjectItem(dev, "receivers")) == 3,
          "device: %ld", code);
    cJSON_Delete(j);
    j = get(n, "/x-nmos/node/v1.3/receivers/00000000-0000-3000-8000-000000000000", &code);
    CHECK(code == 404 && cJSON_GetObjectItem(j, "code")->valueint == 404 && str(j, "error")[0],
          "unknown receiver: %ld", code);
    cJSON_Delete(j);
    j = get(n, "/x-nmos/connection/v1.1/single/receivers/nope/staged", &code);
    CHECK(code == 404, "unknown IS-05 receiver: %ld", code);
    cJSON_Delete(j);
    j = get(n, "/x-nmos/nowhere", &code);
    CHECK(code == 404, "unknown API: %ld", code);
    cJSON_Delete(j);
    fixture_close(&f);
}

/* 1b. The flow and sender resources follow the sender's SDP (IS-04,
 * BCP-006-01): interlace_mode (psf with segmented, else tff), the frame
 * size, the components of an odd-sized 4:2:0 picture (chroma rounded up),
 * the transport by destination address. A node without a pipeline. */
static void test_flow_resources(void)
{
    static const char *const sdps[2] = {
        "v=0\no=- 1 1 IN IP4 127.0.0.1\ns=psf\nt=0 0\nm=video 5004 RTP/AVP 96\n"
        "c=IN IP4 239.1.2.3/32\na=rtpmap:96 jxsv/90000\na=fmtp:96 packetmode=0;"
        "sampling=YCbCr-4:2:0;width=321;height=181;depth=10;exactframerate=25;interlace;"
        "segmented\n",
        "v=0\no=- 1 1 IN IP4 127.0.0.1\ns=tff\nt=0 0\nm=video 5006 RTP/AVP 96\n"
        "c=IN IP4 127.0.0.1\na=rtpmap:96 jxsv/90000\na=fmtp:96 packetmode=0;"
        "sampling=YCbCr-4:2:2;width=320;height=180;depth=10;exactframerate=25;interlace\n",
    };
    static const struct {
        const char *interlace, *transport;
        int w, h, cw, ch;
    } want[2] = {
        {"interlaced_psf", "urn:x-nmos:transport:rtp.mcast", 321, 181, 161, 91},
        {"interlaced_tff", "urn:x-nmos:transport:rtp.ucast", 320, 180, 160, 180},
    };
    nmos_config nc;
    memset(&nc, 0, sizeof nc);
    nc.label = "flows";
    nc.seed = "flow-seed";
    for (unsigned i = 0; i < 2; i++) {
        nc.senders[i].sdp = sdps[i];
        nc.senders[i].label = i ? "tff" : "psf";
    }
    nc.nsenders = 2;
    nmos_node *n = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(nmos_node_create(&n, &nc, &err) == XSF_OK, "node: %s", err.msg);
    if (!n)
        return;
    for (unsigned i = 0; i < 2; i++) {
        char path[200];
        long code;
        snprintf(path, sizeof path, "/x-nmos/node/v1.3/senders/%s", nmos_node_sender_id(n, i));
        cJSON *snd = get(n, path, &code);
        CHECK(code == 200 && !strcmp(str(snd, "transport"), want[i].transport),
              "sender %u: %ld transport %s", i, code, str(snd, "transport"));
        snprintf(path, sizeof path, "/x-nmos/node/v1.3/flows/%s", str(snd, "flow_id"));
        cJSON *flow = get(n, path, &code);
        const cJSON *fw = cJSON_GetObjectItem(flow, "frame_width");
        const cJSON *fh = cJSON_GetObjectItem(flow, "frame_height");
        CHECK(code == 200 && !strcmp(str(flow, "interlace_mode"), want[i].interlace) && fw && fh &&
                  fw->valueint == want[i].w && fh->valueint == want[i].h,
              "flow %u: %ld %s %dx%d", i, code, str(flow, "interlace_mode"), fw ? fw->valueint : -1,
              fh ? fh->valueint : -1);
        const cJSON *comps = cJSON_GetObjectItem(flow, "components");
        CHECK(cJSON_GetArraySize(comps) == 3, "flow %u: %d components", i,
              cJSON_GetArraySize(comps));
        for (int c = 0; c < cJSON_GetArraySize(comps); c++) {
            const cJSON *e = cJSON_GetArrayItem(comps, c);
            const int w = cJSON_GetObjectItem(e, "width")->valueint;
            const int h = cJSON_GetObjectItem(e, "height")->valueint;
            CHECK(w == (c ? want[i].cw : want[i].w) && h == (c ? want[i].ch : want[i].h) &&
                      cJSON_GetObjectItem(e, "bit_depth")->valueint == 10,
                  "flow %u component %s: %dx%d", i, str(e, "name"), w, h);
        }
        cJSON_Delete(flow);
        cJSON_Delete(snd);
    }
    nmos_node_destroy(n);
}

/* 2. and 3. IS-05 connections into the running pipeline. */
/* --pix-fmt's seam: the service takes a pixel format for every receiver's pictures
 * (the pipeline's picture request) with a picture output or null, and refuses it for
 * .jxs output, naming the format. */
static void test_pix_fmt_option(void)
{
    xsf_error err;
    xsf_error_clear(&err);
    pl_pipeline *p = NULL;
    pl_config pc = {.engine = PL_ENGINE_CPU, .cpu_threads = 1};
    CHECK(pl_create(&p, &pc, &err) == XSF_OK, "pl_create: %s", err.msg);
    if (!p)
        return;
    char out[400];
    snprintf(out, sizeof out, "%s/px%%u.yuv", tmpdir);
    const char *outputs[] = {out, "null", NULL};
    for (int k = 0; k < 3; k++) {
        nmos_service *svc = NULL;
        nmos_service_config sc = {.pipeline = p, .output = outputs[k], .pix_fmt = XSF_V210};
        CHECK(nmos_service_create(&svc, &sc, &err) == XSF_OK, "v210 to %s: %s",
              outputs[k] ? outputs[k] : "(none)", err.msg);
        nmos_service_destroy(svc);
    }
    snprintf(out, sizeof out, "%s/px%%u.jxs", tmpdir);
    nmos_service *svc = NULL;
    nmos_service_config sc = {.pipeline = p, .output = out, .pix_fmt = XSF_PGROUP10};
    xsf_error_clear(&err);
    CHECK(nmos_service_create(&svc, &sc, &err) == XSF_ERR_ARG && !svc &&
              strstr(err.msg, "pgroup") && strstr(err.msg, ".jxs"),
          "pgroup with .jxs output: '%s'", err.msg);
    pl_destroy(p);
}

static void test_connection(void)
{
    fixture f;
    CHECK(fixture_open(&f, NULL, 0) == 0, "fixture");
    if (!f.node)
        return;
    nmos_node *n = f.node;
    char want[33];
    unsigned frames;
    CHECK(reference_md5(1, want, &frames) == 0, "reference decode");

    /* Errors: bad JSON, unknown members, bad values: 400 with a JSON error. */
    cJSON *a = NULL;
    CHECK(patch_rx(n, 0, "{not json", &a) == 400 && a && str(a, "error")[0], "bad JSON");
    cJSON_Delete(a);
    CHECK(patch_rx(n, 0, "{\"colour\": 1}", &a) == 400, "unknown member");
    cJSON_Delete(a);
    CHECK(patch_rx(n, 0, "{\"transport_params\": [{\"destination_port\": 70000}]}", &a) == 400,
          "port out of range");
    cJSON_Delete(a);
    CHECK(patch_rx(n, 0, "{\"transport_params\": [{\"destination_port\": 0}]}", &a) == 400,
          "port 0 accepted");
    cJSON_Delete(a);
    CHECK(patch_rx(n, 0,
                   "{\"transport_file\": {\"data\": \"v=0\\n\", \"type\": \"application/sdp\"}}",
                   &a) == 400,
          "an SDP without a jxsv stream");
    cJSON_Delete(a);

    /* Connect receiver 0 to the stream of `xsflow send` (its SDP). */
    const unsigned port0 = free_udp_port();
    char *sdp0 = sender_sdp(port0);
    CHECK(sdp0 != NULL, "sender SDP");
    char *body = connect_body(sdp0, "{\"mode\": \"activate_immediate\"}");
    long code = patch_rx(n, 0, body, &a);
    const cJSON *act = cJSON_GetObjectItem(a, "activation");
    CHECK(code == 200 && version_ok(str(act, "activation_time")), "activate: %ld", code);
    cJSON_Delete(a);
    free(body);
    char path[256];
    snprintf(path, sizeof path, "/x-nmos/connection/v1.1/single/receivers/%s/active",
             nmos_node_receiver_id(n, 0));
    cJSON *active = get(n, path, &code);
    const cJSON *leg = cJSON_GetArrayItem(cJSON_GetObjectItem(active, "transport_params"), 0);
    CHECK(code == 200 && cJSON_IsTrue(cJSON_GetObjectItem(active, "master_enable")) &&
              cJSON_GetObjectItem(leg, "destination_port")->valueint == (int)port0 &&
              !strcmp(str(leg, "interface_ip"), "127.0.0.1"),
          "active after activation");
    cJSON_Delete(active);
    snprintf(path, sizeof path, "/x-nmos/node/v1.3/receivers/%s", nmos_node_receiver_id(n, 0));
    cJSON *res = get(n, path, &code);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "subscription"), "active")),
          "IS-04 subscription active");
    cJSON_Delete(res);

    CHECK(send_clip(port0, 1) == 0, "xsflow send");
    CHECK(wait_frames(f.svc, 0, frames, 5000), "frames of receiver 0 never arrived");
    /* Deactivate: the stream stops, its port is free, its MD5 is the decoder's. */
    CHECK(patch_rx(n, 0,
                   "{\"master_enable\": false, \"activation\": {\"mode\": "
                   "\"activate_immediate\"}}",
                   &a) == 200,
          "deactivate");
    cJSON_Delete(a);
    nmos_stream_info info;
    nmos_service_stream(f.svc, 0, &info);
    CHECK(!info.running && info.frames == frames && !strcmp(info.md5, want),
          "receiver 0: running %d, %llu frames (want %u), MD5 %s (C decoder %s)", info.running,
          (unsigned long long)info.frames, frames, info.md5, want);
    CHECK(udp_port_free(port0), "port %u still bound after deactivation", port0);

    /* 3. Scheduled activations. Relative: 300 ms from now. */
    const unsigned port1 = free_udp_port();
    char *sdp1 = sender_sdp(port1);
    body = connect_body(sdp1, "{\"mode\": \"activate_scheduled_relative\", \"requested_time\": "
                              "\"0:300000000\"}");
    CHECK(patch_rx(n, 1, body, &a) == 202, "scheduled relative: 202");
    cJSON_Delete(a);
    free(body);
    CHECK(patch_rx(n, 1, "{\"master_enable\": true}", &a) == 423, "PATCH while pending: 423");
    cJSON_Delete(a);
    nmos_service_stream(f.svc, 1, &info);
    CHECK(!info.running, "receiver 1 started before its time");
    sleep_ms(700);
    nmos_service_stream(f.svc, 1, &info);
    CHECK(info.running, "receiver 1 not started by its scheduled activation");
    snprintf(path, sizeof path, "/x-nmos/connection/v1.1/single/receivers/%s/active",
             nmos_node_receiver_id(n, 1));
    active = get(n, path, &code);
    CHECK(!strcmp(str(cJSON_GetObjectItem(active, "activation"), "mode"),
                  "activate_scheduled_relative"),
          "active activation mode");
    cJSON_Delete(active);

    /* Absolute, far ahead, then cancelled. */
    const uint64_t tai_s = (uint64_t)time(NULL) + 37 + 100;
    char abs_body[256];
    snprintf(abs_body, sizeof abs_body,
             "{\"activation\": {\"mode\": \"activate_scheduled_absolute\", \"requested_time\": "
             "\"%llu:0\"}}",
             (unsigned long long)tai_s);
    CHECK(patch_rx(n, 2, abs_body, &a) == 202, "scheduled absolute: 202");
    cJSON_Delete(a);
    CHECK(patch_rx(n, 2, "{\"activation\": {\"mode\": null}}", &a) == 200 &&
              cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "activation"), "mode")),
          "cancelled");
    cJSON_Delete(a);

    /* Receiver 1 takes a longer clip while receiver 2 is started, retargeted and stopped. */
    char hex10[33];
    unsigned frames10;
    CHECK(reference_md5(10, hex10, &frames10) == 0, "reference x10");
    const unsigned port2 = free_udp_port(), port3 = free_udp_port();
    char *sdp2 = sender_sdp(port2), *sdp3 = sender_sdp(port3);
    pid_t sender;
    char to[64];
    snprintf(to, sizeof to, "127.0.0.1:%u", port1);
    char *argv[] = {(char *)xsflow, "send",  clip, "--to", to,  "--loop",
                    "10",           "--fps", "50", "-q",   NULL};
    CHECK(posix_spawn(&sender, xsflow, NULL, NULL, argv, environ) == 0, "spawn sender");
    for (int k = 0; k < 3; k++) {
        body = connect_body(k == 1 ? sdp3 : sdp2, "{\"mode\": \"activate_immediate\"}");
        CHECK(patch_rx(n, 2, body, &a) == 200, "receiver 2 activation %d", k);
        cJSON_Delete(a);
        free(body);
        sleep_ms(100);
    }
    nmos_service_stream(f.svc, 2, &info);
    CHECK(info.running && info.activations == 3 && strstr(info.source, "0.0.0.0:") &&
              (unsigned)atoi(strrchr(info.source, ':') + 1) == port2,
          "receiver 2: %d activations, on %s", (int)info.activations, info.source);
    CHECK(patch_rx(n, 2,
                   "{\"master_enable\": false, \"activation\": {\"mode\": "
                   "\"activate_immediate\"}}",
                   &a) == 200,
          "receiver 2 off");
    cJSON_Delete(a);
    int st;
    waitpid(sender, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "sender");
    CHECK(wait_frames(f.svc, 1, frames10, 5000), "receiver 1 lost frames");
    CHECK(patch_rx(n, 1,
                   "{\"master_enable\": false, \"activation\": {\"mode\": "
                   "\"activate_immediate\"}}",
                   &a) == 200,
          "receiver 1 off");
    cJSON_Delete(a);
    nmos_service_stream(f.svc, 1, &info);
    CHECK(info.frames == frames10 && !strcmp(info.md5, hex10),
          "receiver 1 (undisturbed): %llu frames of %u, MD5 %s (C decoder %s)",
          (unsigned long long)info.frames, frames10, info.md5, hex10);
    /* A receiver stopped with a frame half assembled (its depacketizer holds
     * a pipeline frame until the source is destroyed): stops at once. */
    const unsigned port4 = free_udp_port();
    char *sdp4 = sender_sdp(port4);
    body = connect_body(sdp4, "{\"mode\": \"activate_immediate\"}");
    CHECK(patch_rx(n, 2, body, &a) == 200, "receiver 2 on again");
    cJSON_Delete(a);
    free(body);
    CHECK(send_half_frame(port4) == 0, "half a frame");
    sleep_ms(100);
    const uint64_t t0 = pl_now_ns();
    CHECK(patch_rx(n, 2,
                   "{\"master_enable\": false, \"activation\": {\"mode\": "
                   "\"activate_immediate\"}}",
                   &a) == 200,
          "receiver 2 off with half a frame");
    cJSON_Delete(a);
    CHECK(pl_now_ns() - t0 < 2000000000u, "stopping it took %.1f s",
          (double)(pl_now_ns() - t0) / 1e9);
    nmos_service_stream(f.svc, 2, &info);
    CHECK(!info.running && info.packets >= 4, "receiver 2: running %d, %llu packets", info.running,
          (unsigned long long)info.packets);
    free(sdp0);
    free(sdp1);
    free(sdp2);
    free(sdp3);
    free(sdp4);
    fixture_close(&f);
}

/* 5. A sender the node sends itself, connected through IS-05 to one of its
 * own receivers: the controller reads the sender's transport file after
 * activating it and hands it to the receiver. */
static void test_sender(void)
{
    fixture f;
    CHECK(fixture_open_ex(&f, NULL, 0, 1) == 0, "fixture");
    if (!f.node)
        return;
    nmos_node *n = f.node;
    char path[256], url[320];
    long code;
    snprintf(path, sizeof path, "/x-nmos/connection/v1.1/single/senders/%s/active",
             nmos_node_sender_id(n, 0));
    cJSON *j = get(n, path, &code);
    CHECK(code == 200 && cJSON_IsFalse(cJSON_GetObjectItem(j, "master_enable")),
          "a controlled sender starts disabled");
    cJSON_Delete(j);
    const unsigned port = free_udp_port();
    char body[512];
    snprintf(body, sizeof body,
             "{\"master_enable\": true, \"transport_params\": [{\"destination_ip\": "
             "\"127.0.0.1\", \"destination_port\": %u}, {\"rtp_enabled\": false}], "
             "\"activation\": {\"mode\": \"activate_immediate\"}}",
             port);
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/staged",
             nmos_node_url(n), nmos_node_sender_id(n, 0));
    CHECK(http("PATCH", url, body, &j, NULL) == 200, "sender activation");
    cJSON_Delete(j);
    nmos_sender_info si;
    nmos_service_sender(f.svc, 0, &si);
    CHECK(si.running && si.activations == 1, "sender not running");
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/transportfile",
             nmos_node_url(n), nmos_node_sender_id(n, 0));
    char *sdp = NULL, want_m[64];
    snprintf(want_m, sizeof want_m, "m=video %u ", port);
    CHECK(http("GET", url, NULL, NULL, &sdp) == 200 && sdp && strstr(sdp, want_m) &&
              strstr(sdp, "c=IN IP4 127.0.0.1"),
          "transport file after activation: %s", sdp ? sdp : "(none)");
    char *rx_body = connect_body(sdp ? sdp : "", "{\"mode\": \"activate_immediate\"}");
    CHECK(patch_rx(n, 0, rx_body, &j) == 200, "receiver connected to the sender");
    cJSON_Delete(j);
    CHECK(wait_frames(f.svc, 0, 10, 5000), "no pictures from the node's own sender");
    /* Stopped in the middle of the stream (a frame half assembled), then
     * connected again: both quickly. */
    const uint64_t t0 = pl_now_ns();
    CHECK(patch_rx(n, 0,
                   "{\"master_enable\": false, \"activation\": {\"mode\": "
                   "\"activate_immediate\"}}",
                   &j) == 200,
          "receiver off mid-stream");
    cJSON_Delete(j);
    CHECK(pl_now_ns() - t0 < 2000000000u, "stopping a receiver mid-stream took %.1f s",
          (double)(pl_now_ns() - t0) / 1e9);
    CHECK(patch_rx(n, 0, rx_body, &j) == 200, "receiver connected again");
    cJSON_Delete(j);
    CHECK(wait_frames(f.svc, 0, 10, 5000), "no pictures after connecting again");
    free(rx_body);
    free(sdp);
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/staged",
             nmos_node_url(n), nmos_node_sender_id(n, 0));
    CHECK(http("PATCH", url,
               "{\"master_enable\": false, \"activation\": {\"mode\": \"activate_immediate\"}}", &j,
               NULL) == 200,
          "sender off");
    cJSON_Delete(j);
    nmos_service_sender(f.svc, 0, &si);
    CHECK(!si.running && si.frames >= 10, "sender: running %d, %llu frames sent", si.running,
          (unsigned long long)si.frames);
    nmos_stream_info a, b;
    sleep_ms(150);
    nmos_service_stream(f.svc, 0, &a);
    sleep_ms(300);
    nmos_service_stream(f.svc, 0, &b);
    CHECK(a.frames == b.frames && b.frames <= si.frames,
          "pictures still arrive after the sender stopped (%llu, %llu)",
          (unsigned long long)a.frames, (unsigned long long)b.frames);
    fixture_close(&f);
}

/* 5b. A sender with both legs enabled in IS-05 sends every packet on each
 * (SMPTE ST 2022-7): the same datagrams, byte for byte, on two ports. */
static int bound_udp(unsigned *port)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    const struct timeval tv = {.tv_sec = 2};
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &len) != 0 ||
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
        if (s >= 0)
            close(s);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return s;
}

static void test_sender_two_legs(void)
{
    fixture f;
    CHECK(fixture_open_ex(&f, NULL, 0, 1) == 0, "fixture");
    if (!f.node)
        return;
    unsigned port[2];
    int fd[2] = {bound_udp(&port[0]), bound_udp(&port[1])};
    CHECK(fd[0] >= 0 && fd[1] >= 0, "two loopback sockets");
    if (fd[0] < 0 || fd[1] < 0)
        goto out;
    char body[512], url[320];
    snprintf(body, sizeof body,
             "{\"master_enable\": true, \"transport_params\": [{\"destination_ip\": "
             "\"127.0.0.1\", \"destination_port\": %u, \"rtp_enabled\": true}, "
             "{\"destination_ip\": \"127.0.0.1\", \"destination_port\": %u, "
             "\"rtp_enabled\": true}], \"activation\": {\"mode\": \"activate_immediate\"}}",
             port[0], port[1]);
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/staged",
             nmos_node_url(f.node), nmos_node_sender_id(f.node, 0));
    cJSON *j = NULL;
    CHECK(http("PATCH", url, body, &j, NULL) == 200, "sender activation on two legs");
    cJSON_Delete(j);
    nmos_sender_info si;
    nmos_service_sender(f.svc, 0, &si);
    char want[64];
    snprintf(want, sizeof want, "127.0.0.1:%u,127.0.0.1:%u", port[0], port[1]);
    CHECK(si.running && strcmp(si.destination, want) == 0, "sender destination '%s', want '%s'",
          si.destination, want);
    /* The first 64 datagrams of each leg: the same bytes in the same order. */
    enum { N = 64 };
    static uint8_t got[2][N][2048];
    ssize_t len[2][N];
    int ok = 1;
    for (int leg = 0; leg < 2 && ok; leg++)
        for (int i = 0; i < N && ok; i++) {
            len[leg][i] = recv(fd[leg], got[leg][i], sizeof got[leg][i], 0);
            ok = len[leg][i] >= 12;
        }
    CHECK(ok, "64 packets on each leg");
    int same = ok;
    for (int i = 0; i < N && same; i++)
        same = len[0][i] == len[1][i] && memcmp(got[0][i], got[1][i], (size_t)len[0][i]) == 0;
    CHECK(same, "the two legs carry the same packets");
    CHECK(http("PATCH", url,
               "{\"master_enable\": false, \"activation\": {\"mode\": \"activate_immediate\"}}", &j,
               NULL) == 200,
          "sender off");
    cJSON_Delete(j);
out:
    for (int leg = 0; leg < 2; leg++)
        if (fd[leg] >= 0)
            close(fd[leg]);
    fixture_close(&f);
}

/* 6. What AMWA's IS-05-02 suite found: a parked receiver or sender keeps
 * naming its peer in IS-04 (IS-04 v1.3: null unless active); a sender
 * whose source names a clock writes no a=ts-refclk; a body with bytes after
 * the JSON (after a NUL, or plain garbage) is taken. */
static const char *const peer_id = "3f1e9a2c-6c1d-4e0b-9a55-0d8f3c1b2a77";

static const cJSON *subscription(nmos_node *n, const char *type, const char *id, long *code,
                                 cJSON **res)
{
    char path[256];
    snprintf(path, sizeof path, "/x-nmos/node/v1.3/%s/%s", type, id);
    *res = get(n, path, code);
    return cJSON_GetObjectItem(*res, "subscription");
}

static void test_parked_and_refclk(void)
{
    fixture f;
    CHECK(fixture_open_ex(&f, NULL, 0, 1) == 0, "fixture");
    if (!f.node)
        return;
    nmos_node *n = f.node;
    long code;
    cJSON *a = NULL, *res = NULL;
    /* A receiver connected, then parked. */
    char *sdp = sender_sdp(free_udp_port());
    char *body = connect_body(sdp, "{\"mode\": \"activate_immediate\"}");
    CHECK(patch_rx(n, 0, body, &a) == 200, "receiver activation");
    cJSON_Delete(a);
    const cJSON *sub = subscription(n, "receivers", nmos_node_receiver_id(n, 0), &code, &res);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(sub, "active")) &&
              !strcmp(str(sub, "sender_id"), peer_id),
          "receiver subscribed: sender_id %s", str(sub, "sender_id"));
    cJSON_Delete(res);
    CHECK(patch_rx(n, 0,
                   "{\"master_enable\": false, \"activation\": {\"mode\": "
                   "\"activate_immediate\"}}",
                   &a) == 200,
          "receiver parked");
    cJSON_Delete(a);
    sub = subscription(n, "receivers", nmos_node_receiver_id(n, 0), &code, &res);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(sub, "active")) &&
              cJSON_IsNull(cJSON_GetObjectItem(sub, "sender_id")),
          "a parked receiver's IS-04 subscription: sender_id %s (want null)",
          str(sub, "sender_id"));
    cJSON_Delete(res);
    free(body);
    free(sdp);

    /* A sender enabled towards a receiver, then parked. */
    char url[320];
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/staged",
             nmos_node_url(n), nmos_node_sender_id(n, 0));
    char on[256];
    snprintf(on, sizeof on,
             "{\"master_enable\": true, \"receiver_id\": \"%s\", \"activation\": {\"mode\": "
             "\"activate_immediate\"}}",
             peer_id);
    CHECK(http("PATCH", url, on, &a, NULL) == 200, "sender on");
    cJSON_Delete(a);
    sub = subscription(n, "senders", nmos_node_sender_id(n, 0), &code, &res);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(sub, "active")) &&
              !strcmp(str(sub, "receiver_id"), peer_id),
          "sender subscribed: receiver_id %s", str(sub, "receiver_id"));
    cJSON_Delete(res);
    CHECK(http("PATCH", url,
               "{\"master_enable\": false, \"activation\": {\"mode\": \"activate_immediate\"}}", &a,
               NULL) == 200,
          "sender parked");
    cJSON_Delete(a);
    sub = subscription(n, "senders", nmos_node_sender_id(n, 0), &code, &res);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(sub, "active")) &&
              cJSON_IsNull(cJSON_GetObjectItem(sub, "receiver_id")),
          "a parked sender's IS-04 subscription: receiver_id %s (want null)",
          str(sub, "receiver_id"));
    cJSON_Delete(res);

    /* The source names clk0 (internal): the transport file names the
     * interface's MAC (RFC 7273 localmac), as IS-04 lists it. */
    cJSON *self = get(n, "/x-nmos/node/v1.3/self", &code);
    const cJSON *itf = cJSON_GetArrayItem(cJSON_GetObjectItem(self, "interfaces"), 0);
    const cJSON *clk = cJSON_GetArrayItem(cJSON_GetObjectItem(self, "clocks"), 0);
    char want[96];
    snprintf(want, sizeof want, "a=ts-refclk:localmac=%s\r\n", str(itf, "port_id"));
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/transportfile",
             nmos_node_url(n), nmos_node_sender_id(n, 0));
    char *tf = NULL;
    CHECK(http("GET", url, NULL, NULL, &tf) == 200 && tf && strcasestr(tf, want) &&
              strstr(tf, "a=mediaclk:direct=0\r\n") && !strcmp(str(clk, "ref_type"), "internal"),
          "transport file without %s: %s", want, tf ? tf : "(none)");
    free(tf);
    cJSON_Delete(self);

    /* Bytes after the JSON: refused, single and bulk; a JSON string holding
     * U+0000 too (it would cut the value short). */
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/receivers/%s/staged",
             nmos_node_url(n), nmos_node_receiver_id(n, 1));
    static const char nul_body[] = "{\"master_enable\":false}\0garbage";
    CHECK(http_n("PATCH", url, nul_body, sizeof nul_body - 1, &a, NULL) == 400,
          "a body with bytes after a NUL accepted");
    cJSON_Delete(a);
    CHECK(http("PATCH", url, "{\"master_enable\":false} garbage", &a, NULL) == 400,
          "a body with bytes after the JSON accepted");
    cJSON_Delete(a);
    CHECK(http("PATCH", url, "{\"master_enable\":false}\r\n \t", &a, NULL) == 200,
          "white space after the JSON refused");
    cJSON_Delete(a);
    /* The SDP of a real stream, then U+0000 and garbage: cut at the NUL, it
     * would be taken. */
    char *good = sender_sdp(free_udp_port());
    char *marked = malloc(strlen(good ? good : "") + 16);
    sprintf(marked, "%s@NUL@", good ? good : "");
    char *nul_sdp = connect_body(marked, "{\"mode\": \"activate_immediate\"}");
    char *at = strstr(nul_sdp, "@NUL@");
    char *withnul = malloc(strlen(nul_sdp) + 32);
    sprintf(withnul, "%.*s\\u0000garbage%s", (int)(at - nul_sdp), nul_sdp, at + 5);
    CHECK(http("PATCH", url, withnul, &a, NULL) == 400, "a string holding U+0000 accepted");
    cJSON_Delete(a);
    free(withnul);
    free(nul_sdp);
    free(marked);
    free(good);
    CHECK(http("PATCH", url, "{\"master_enable\":false, \"x\\\\u0000\": 1}", &a, NULL) == 400 &&
              strstr(str(a, "error"), "unknown member"),
          "an escaped backslash before u0000 is not a NUL");
    cJSON_Delete(a);
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/bulk/receivers", nmos_node_url(n));
    char bulk[256];
    const int bl = snprintf(bulk, sizeof bulk,
                            "[{\"id\": \"%s\", \"params\": {\"master_enable\": false}}]%cjunk",
                            nmos_node_receiver_id(n, 1), 0);
    CHECK(http_n("POST", url, bulk, (size_t)bl, &a, NULL) == 400,
          "a bulk body with bytes after a NUL accepted");
    cJSON_Delete(a);
    fixture_close(&f);
}

/* 7. Two legs (ST 2022-7): IS-05's shape (two sets of transport parameters
 * and constraints, two interface bindings), PATCHes of another number of
 * legs refused, transport files of two legs (a=group:DUP) out of a sender
 * and into a receiver, and a receiver that receives on the leg enabled. */
static int count_of(const char *text, const char *what)
{
    int c = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        c++;
    return c;
}

static int legs_of(nmos_node *n, const char *path)
{
    long code;
    cJSON *j = get(n, path, &code);
    const cJSON *tp = cJSON_IsArray(j) ? j : cJSON_GetObjectItem(j, "transport_params");
    const int c = code == 200 && cJSON_IsArray(tp) ? cJSON_GetArraySize(tp) : -1;
    cJSON_Delete(j);
    return c;
}

static void test_two_legs(void)
{
    fixture f;
    CHECK(fixture_open_ex(&f, NULL, 0, 1) == 0, "fixture");
    if (!f.node)
        return;
    nmos_node *n = f.node;
    char path[256], url[320];
    long code;
    static const char *const leaves[] = {"constraints", "staged", "active"};
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++) {
            snprintf(path, sizeof path, "/x-nmos/connection/v1.1/single/%s/%s/%s",
                     s ? "senders" : "receivers",
                     s ? nmos_node_sender_id(n, 0) : nmos_node_receiver_id(n, 0), leaves[k]);
            CHECK(legs_of(n, path) == 2, "%s: %d legs", path, legs_of(n, path));
        }
    snprintf(path, sizeof path, "/x-nmos/node/v1.3/receivers/%s", nmos_node_receiver_id(n, 0));
    cJSON *j = get(n, path, &code);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(j, "interface_bindings")) == 2,
          "IS-04: one interface binding per leg");
    cJSON_Delete(j);
    cJSON *a = NULL;
    CHECK(patch_rx(n, 0, "{\"transport_params\": [{\"destination_port\": 5004}]}", &a) == 400 &&
              strstr(str(a, "error"), "2 legs"),
          "one leg of two: %s", str(a, "error"));
    cJSON_Delete(a);
    CHECK(patch_rx(n, 0, "{\"transport_params\": [{}, {\"destination_port\": 70000}]}", &a) ==
                  400 &&
              strstr(str(a, "error"), "transport_params") == NULL,
          "a bad second leg");
    cJSON_Delete(a);

    /* A one-stream SDP staged on a receiver: its second leg off (IS-05). */
    const unsigned p1 = free_udp_port(), p2 = free_udp_port();
    char *one = sender_sdp(p1);
    char *body = connect_body(one, "{\"mode\": null}");
    CHECK(patch_rx(n, 0, body, &a) == 200, "staged with one stream");
    const cJSON *tp = cJSON_GetObjectItem(a, "transport_params");
    CHECK(cJSON_GetObjectItem(cJSON_GetArrayItem(tp, 0), "destination_port")->valueint == (int)p1 &&
              cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(tp, 0), "rtp_enabled")) &&
              cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(tp, 1), "rtp_enabled")),
          "one stream: leg 1 on, leg 2 off");
    cJSON_Delete(a);
    free(body);

    /* The node's sender on two legs (parked: it sends nothing): its transport
     * file groups them. */
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/staged",
             nmos_node_url(n), nmos_node_sender_id(n, 0));
    char tx_body[512];
    snprintf(tx_body, sizeof tx_body,
             "{\"master_enable\": false, \"transport_params\": [{\"destination_ip\": "
             "\"127.0.0.1\", \"destination_port\": %u}, {\"destination_ip\": \"127.0.0.1\", "
             "\"destination_port\": %u}], \"activation\": {\"mode\": \"activate_immediate\"}}",
             p1, p2);
    CHECK(http("PATCH", url, tx_body, &a, NULL) == 200, "sender's two legs");
    cJSON_Delete(a);
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/transportfile",
             nmos_node_url(n), nmos_node_sender_id(n, 0));
    char *dup = NULL, m1[48], m2[48];
    snprintf(m1, sizeof m1, "m=video %u ", p1);
    snprintf(m2, sizeof m2, "m=video %u ", p2);
    CHECK(http("GET", url, NULL, NULL, &dup) == 200 && dup &&
              strstr(dup, "a=group:DUP primary secondary\r\n") && strstr(dup, m1) &&
              strstr(dup, m2) && strstr(dup, m1) < strstr(dup, m2) &&
              count_of(dup, "a=ts-refclk:localmac=") == 2 &&
              count_of(dup, "a=mediaclk:direct=0") == 2 && strstr(dup, "a=mid:primary\r\n") &&
              strstr(dup, "a=mid:secondary\r\n") && count_of(dup, "\r\nv=") == 0,
          "a two-leg transport file: %s", dup ? dup : "(none)");

    /* Handed to a receiver: both legs from it. */
    body = connect_body(dup ? dup : "", "{\"mode\": \"activate_immediate\"}");
    CHECK(patch_rx(n, 1, body, &a) == 200, "receiver on two legs");
    cJSON_Delete(a);
    free(body);
    snprintf(path, sizeof path, "/x-nmos/connection/v1.1/single/receivers/%s/active",
             nmos_node_receiver_id(n, 1));
    j = get(n, path, &code);
    tp = cJSON_GetObjectItem(j, "transport_params");
    CHECK(cJSON_GetObjectItem(cJSON_GetArrayItem(tp, 0), "destination_port")->valueint == (int)p1 &&
              cJSON_GetObjectItem(cJSON_GetArrayItem(tp, 1), "destination_port")->valueint ==
                  (int)p2 &&
              cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(tp, 1), "rtp_enabled")),
          "a two-leg transport file's legs");
    cJSON_Delete(j);
    char want[33];
    unsigned frames;
    CHECK(reference_md5(1, want, &frames) == 0, "reference decode");
    CHECK(send_clip(p1, 1) == 0, "send on leg 1");
    CHECK(wait_frames(f.svc, 1, frames, 5000), "nothing received on leg 1");
    /* Leg 1 off: the receiver takes leg 2. */
    CHECK(patch_rx(n, 1,
                   "{\"transport_params\": [{\"rtp_enabled\": false}, {}], \"activation\": "
                   "{\"mode\": \"activate_immediate\"}}",
                   &a) == 200,
          "leg 1 off");
    cJSON_Delete(a);
    CHECK(send_clip(p2, 1) == 0, "send on leg 2");
    CHECK(wait_frames(f.svc, 1, frames, 5000), "nothing received on leg 2");
    nmos_stream_info info;
    nmos_service_stream(f.svc, 1, &info);
    CHECK(info.running && (unsigned)atoi(strrchr(info.source, ':') + 1) == p2,
          "receiver 1 on %s, want port %u", info.source, p2);
    /* Both legs off with master_enable on: nothing to receive, stopped. */
    CHECK(patch_rx(n, 1,
                   "{\"transport_params\": [{}, {\"rtp_enabled\": false}], \"activation\": "
                   "{\"mode\": \"activate_immediate\"}}",
                   &a) == 200,
          "both legs off");
    cJSON_Delete(a);
    nmos_service_stream(f.svc, 1, &info);
    CHECK(!info.running, "receiver 1 runs with no leg enabled");

    /* The sender's second leg off: one stream, no group. */
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/staged",
             nmos_node_url(n), nmos_node_sender_id(n, 0));
    CHECK(http("PATCH", url,
               "{\"transport_params\": [{}, {\"rtp_enabled\": false}], \"activation\": {\"mode\": "
               "\"activate_immediate\"}}",
               &a, NULL) == 200,
          "sender leg 2 off");
    cJSON_Delete(a);
    snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/transportfile",
             nmos_node_url(n), nmos_node_sender_id(n, 0));
    char *single = NULL;
    CHECK(http("GET", url, NULL, NULL, &single) == 200 && single && !strstr(single, "a=group") &&
              count_of(single, "m=video") == 1 && strstr(single, m1) && !strstr(single, "a=mid"),
          "one leg enabled: %s", single ? single : "(none)");
    free(single);
    free(dup);
    free(one);
    fixture_close(&f);
}

/* 8. A node on a PTP clock, with senders described by their SDPs (one of two
 * legs): IS-04's clock, each sender's legs, a=ts-refclk:ptp=...; and what a
 * receiver's activation hands the service for two legs. */
typedef struct recorder {
    nmos_activation last;
    int calls;
} recorder;

static xsf_status record_activation(void *ctx, const nmos_activation *a, xsf_error *err)
{
    (void)err;
    recorder *r = ctx;
    r->last = *a;
    r->last.sdp = NULL;
    r->calls++;
    return XSF_OK;
}

static void test_ptp_described_senders(void)
{
    char *one = sender_sdp(free_udp_port());
    if (!one) {
        CHECK(0, "sender SDP");
        return;
    }
    /* Two legs of the same stream: the first's media section twice. */
    const char *m = strstr(one, "m=video");
    char *two = malloc(2 * strlen(one) + 128);
    sprintf(two, "%.*sa=group:DUP A B\r\n%sa=mid:A\r\n%.*s6000%sa=mid:B\r\n", (int)(m - one), one,
            m, 8, m, strchr(m + 8, ' '));
    recorder rec = {0};
    nmos_config nc;
    memset(&nc, 0, sizeof nc);
    nc.seed = "ptp";
    nc.receivers = 1;
    nc.senders[0].sdp = one;
    nc.senders[1].sdp = two;
    nc.nsenders = 2;
    nc.clock.ptp = 1;
    snprintf(nc.clock.gmid, sizeof nc.clock.gmid, "ec-46-70-ff-fe-00-ce-de");
    nc.clock.domain = 127;
    nc.activate = record_activation;
    nc.activate_ctx = &rec;
    nmos_node *n = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(nmos_node_create(&n, &nc, &err) == XSF_OK, "node: %s", err.msg);
    if (!n) {
        free(one);
        free(two);
        return;
    }
    long code;
    cJSON *self = get(n, "/x-nmos/node/v1.3/self", &code);
    const cJSON *clk = cJSON_GetArrayItem(cJSON_GetObjectItem(self, "clocks"), 0);
    CHECK(!strcmp(str(clk, "ref_type"), "ptp") && !strcmp(str(clk, "gmid"), nc.clock.gmid) &&
              !strcmp(str(clk, "version"), "IEEE1588-2008") &&
              cJSON_IsFalse(cJSON_GetObjectItem(clk, "traceable")),
          "IS-04 PTP clock");
    cJSON_Delete(self);
    char path[256], url[320];
    for (unsigned i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "/x-nmos/connection/v1.1/single/senders/%s/constraints",
                 nmos_node_sender_id(n, i));
        CHECK(legs_of(n, path) == (int)i + 1, "described sender %u: %d legs", i, legs_of(n, path));
        snprintf(url, sizeof url, "%s/x-nmos/connection/v1.1/single/senders/%s/transportfile",
                 nmos_node_url(n), nmos_node_sender_id(n, i));
        char *tf = NULL;
        CHECK(http("GET", url, NULL, NULL, &tf) == 200 && tf &&
                  count_of(tf, "a=ts-refclk:ptp=IEEE1588-2008:EC-46-70-FF-FE-00-CE-DE:127\r\n") ==
                      (int)i + 1 &&
                  (i == 0) == !strstr(tf, "a=group:DUP") && (i == 0 || strstr(tf, "m=video 6000 ")),
              "sender %u's transport file: %s", i, tf ? tf : "(none)");
        free(tf);
    }
    /* A receiver activated with the two-leg file: the service gets both legs. */
    char *body = connect_body(two, "{\"mode\": \"activate_immediate\"}");
    cJSON *a = NULL;
    CHECK(patch_rx(n, 0, body, &a) == 200, "two-leg activation");
    cJSON_Delete(a);
    CHECK(rec.calls == 1 && rec.last.enable && rec.last.leg[0].enable && rec.last.leg[1].enable &&
              rec.last.leg[0].has_sdp && rec.last.leg[1].has_sdp &&
              rec.last.leg[1].destination_port == 6000 && rec.last.leg[1].parsed.port == 6000 &&
              rec.last.leg[0].parsed.port != 6000 && rec.last.leg[1].parsed.width == 320,
          "the service's two legs: %d calls, ports %u %u", rec.calls,
          rec.last.leg[0].destination_port, rec.last.leg[1].destination_port);
    free(body);
    /* A DUP group naming a stream that is not there: 400. */
    char *bad = strdup(two);
    char *mb = strstr(bad, "a=mid:B");
    if (mb)
        mb[6] = 'C';
    body = connect_body(bad, "{\"mode\": null}");
    CHECK(patch_rx(n, 0, body, &a) == 400 && strstr(str(a, "error"), "'B'"),
          "a DUP group naming no stream: %s", str(a, "error"));
    cJSON_Delete(a);
    free(body);
    free(bad);
    nmos_node_destroy(n);
    /* A bad grandmaster id is refused. */
    snprintf(nc.clock.gmid, sizeof nc.clock.gmid, "EC-46-70-FF-FE-00-CE");
    CHECK(nmos_node_create(&n, &nc, &err) != XSF_OK, "a bad PTP grandmaster id taken");
    free(one);
    free(two);
}

/* ---- 4. a fake registry ---- */

typedef struct fake_registry {
    pthread_mutex_t mu;
    struct MHD_Daemon *d;
    uint16_t port;
    int posts_node, posts_device, posts_receiver, posts_other, heartbeats, deletes;
    int order_ok; /* the node came before everything else, the device before its children */
    int seen_node, seen_device;
    int forget; /* answer 404 to the next heartbeat */
    int known;  /* answer 200 (already registered) to the next node POST */
    int receiver_active_seen;
} fake_registry;

typedef struct upload {
    char *data;
    size_t len;
} upload;

static enum MHD_Result fake_answer(void *cls, struct MHD_Connection *c, const char *url,
                                   const char *method, const char *version, const char *data,
                                   size_t *size, void **con_cls)
{
    (void)version;
    fake_registry *r = cls;
    upload *u = *con_cls;
    if (!u) {
        *con_cls = calloc(1, sizeof(upload));
        return MHD_YES;
    }
    if (*size) {
        u->data = realloc(u->data, u->len + *size + 1);
        memcpy(u->data + u->len, data, *size);
        u->len += *size;
        u->data[u->len] = 0;
        *size = 0;
        return MHD_YES;
    }
    unsigned code = 404;
    pthread_mutex_lock(&r->mu);
    if (!strcmp(method, "POST") && !strcmp(url, "/x-nmos/registration/v1.3/resource")) {
        cJSON *j = u->data ? cJSON_Parse(u->data) : NULL;
        const char *type = str(j, "type");
        code = 201;
        if (!strcmp(type, "node")) {
            r->posts_node++;
            r->seen_node = 1;
            if (r->known) {
                r->known = 0;
                code = 200;
            }
        } else if (!r->seen_node) {
            r->order_ok = 0;
        }
        if (!strcmp(type, "device")) {
            r->posts_device++;
            r->seen_device = 1;
        } else if (strcmp(type, "node") && !r->seen_device) {
            r->order_ok = 0;
        }
        if (!strcmp(type, "receiver")) {
            r->posts_receiver++;
            const cJSON *sub = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "data"), "subscription");
            if (cJSON_IsTrue(cJSON_GetObjectItem(sub, "active")))
                r->receiver_active_seen++;
        } else if (strcmp(type, "node") && strcmp(type, "device")) {
            r->posts_other++;
        }
        if (!cJSON_IsObject(cJSON_GetObjectItem(j, "data")))
            code = 400;
        cJSON_Delete(j);
    } else if (!strcmp(method, "POST") &&
               !strncmp(url, "/x-nmos/registration/v1.3/health/nodes/", 39)) {
        if (r->forget || !r->seen_node) {
            r->forget = 0;
            r->seen_node = r->seen_device = 0;
            code = 404;
        } else {
            r->heartbeats++;
            code = 200;
        }
    } else if (!strcmp(method, "DELETE") &&
               !strncmp(url, "/x-nmos/registration/v1.3/resource/nodes/", 41)) {
        r->deletes++;
        code = 204;
    }
    pthread_mutex_unlock(&r->mu);
    const char *body =
        code == 404 ? "{\"code\": 404, \"error\": \"not found\", \"debug\": null}" : "{}";
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    const enum MHD_Result ret = MHD_queue_response(c, code, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void fake_done(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    upload *u = *con_cls;
    if (u) {
        free(u->data);
        free(u);
    }
    *con_cls = NULL;
}

static int fake_start(fake_registry *r)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(r->port);
    r->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, r->port, NULL, NULL, fake_answer, r,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&a,
                            MHD_OPTION_NOTIFY_COMPLETED, fake_done, NULL, MHD_OPTION_END);
    if (!r->d)
        return -1;
    r->port = MHD_get_daemon_info(r->d, MHD_DAEMON_INFO_BIND_PORT)->port;
    return 0;
}

static int fake_wait(fake_registry *r, int *counter, int want, unsigned timeout_ms)
{
    for (unsigned t = 0; t < timeout_ms; t += 20) {
        pthread_mutex_lock(&r->mu);
        const int v = *counter;
        pthread_mutex_unlock(&r->mu);
        if (v >= want)
            return 1;
        sleep_ms(20);
    }
    return 0;
}

static void test_registration(void)
{
    fake_registry r;
    memset(&r, 0, sizeof r);
    pthread_mutex_init(&r.mu, NULL);
    r.order_ok = 1;
    CHECK(fake_start(&r) == 0, "fake registry");
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u", r.port);
    fixture f;
    CHECK(fixture_open(&f, url, 0.2) == 0, "fixture");
    if (!f.node)
        return;
    CHECK(fake_wait(&r, &r.heartbeats, 2, 5000), "no heartbeats");
    pthread_mutex_lock(&r.mu);
    CHECK(r.posts_node == 1 && r.posts_device == 1 && r.posts_receiver == 3 && r.posts_other == 3 &&
              r.order_ok,
          "registration: node %d device %d receivers %d others %d order %d", r.posts_node,
          r.posts_device, r.posts_receiver, r.posts_other, r.order_ok);
    r.forget = 1; /* the registry forgets the node: 404 on the next heartbeat */
    pthread_mutex_unlock(&r.mu);
    CHECK(fake_wait(&r, &r.posts_node, 2, 5000), "not registered again after a 404");
    nmos_status st;
    for (int t = 0; t < 250; t++) { /* the node POSTs its other resources after the node */
        nmos_node_status(f.node, &st);
        if (st.registrations >= 2)
            break;
        sleep_ms(20);
    }
    CHECK(st.heartbeat_404 == 1 && st.registrations == 2, "status: 404s %llu registrations %llu",
          (unsigned long long)st.heartbeat_404, (unsigned long long)st.registrations);

    /* The registry restarts (empty): the node registers again. It says it
     * knew the node (200): the node deletes itself and registers anew. */
    MHD_stop_daemon(r.d);
    sleep_ms(500);
    pthread_mutex_lock(&r.mu);
    r.seen_node = r.seen_device = 0;
    r.known = 1;
    const int hb = r.heartbeats;
    pthread_mutex_unlock(&r.mu);
    CHECK(fake_start(&r) == 0, "registry restart on port %u", r.port);
    CHECK(fake_wait(&r, &r.posts_node, 4, 6000), "not registered again after a restart");
    CHECK(fake_wait(&r, &r.deletes, 1, 1000), "a 200 for the node POST: no DELETE");
    CHECK(fake_wait(&r, &r.heartbeats, hb + 2, 5000), "no heartbeats after the restart");

    /* An activation changes a receiver: the registry gets its new version. */
    const unsigned port = free_udp_port();
    char *sdp = sender_sdp(port);
    char *body = connect_body(sdp, "{\"mode\": \"activate_immediate\"}");
    cJSON *a;
    CHECK(patch_rx(f.node, 0, body, &a) == 200, "activation");
    cJSON_Delete(a);
    CHECK(fake_wait(&r, &r.receiver_active_seen, 1, 3000), "receiver update not registered");
    free(body);
    free(sdp);
    fixture_close(&f);
    CHECK(r.deletes == 2, "the node was not deleted from the registry (%d)", r.deletes);
    MHD_stop_daemon(r.d);
    pthread_mutex_destroy(&r.mu);
}

/* nmos_host: a node with its service from files (`xsflow node`): the senders'
 * SDP files read (label the path), a clip the node sends, the ids; failures
 * name what failed. */
static void test_host(void)
{
    char *sdp = sender_sdp(free_udp_port());
    CHECK(sdp != NULL, "sender SDP");
    char path[512], bad[512];
    snprintf(path, sizeof path, "%s/host.sdp", tmpdir);
    snprintf(bad, sizeof bad, "%s/host_bad.jxs", tmpdir);
    FILE *sf = fopen(path, "w");
    if (sf) {
        fputs(sdp ? sdp : "", sf);
        fclose(sf);
    }
    free(sdp);
    FILE *f = fopen(bad, "w");
    if (f) {
        fputs("not a codestream", f);
        fclose(f);
    }
    static nmos_host_config c;
    memset(&c, 0, sizeof c);
    c.node.host = "127.0.0.1";
    c.node.receivers = 2;
    c.node.seed = "test-host";
    c.node.nsenders = 1;
    c.sender_sdp[0] = path;
    c.sender_clip[0] = clip;
    c.node.senders[0].controlled = 1;
    c.pl.engine = PL_ENGINE_CPU;
    const char *subject = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    nmos_host *h = NULL;
    CHECK(nmos_host_create(&h, &c, &subject, &err) == XSF_OK, "%s: %s", subject ? subject : "-",
          err.msg);
    if (h) {
        CHECK(nmos_node_port(nmos_host_node(h)) != 0 &&
                  nmos_node_sender_id(nmos_host_node(h), 0)[0] &&
                  nmos_node_receiver_id(nmos_host_node(h), 1)[0],
              "node, sender and receivers");
        CHECK(c.node.senders[0].sdp && strstr(c.node.senders[0].sdp, "jxsv") &&
                  c.node.senders[0].label == path,
              "the SDP read, labelled by its path");
        CHECK(nmos_host_service(h) && nmos_host_pipeline(h) &&
                  c.node.activate_ctx == nmos_host_service(h),
              "service and pipeline");
        nmos_sender_info si;
        nmos_service_sender(nmos_host_service(h), 0, &si);
        CHECK(!si.running, "the clip waits for its activation");
        nmos_host_destroy(h);
    }

    /* Failures name what failed. */
    const char *missing = "/nonexistent/x.sdp";
    c.sender_sdp[0] = missing;
    xsf_error_clear(&err);
    CHECK(nmos_host_create(&h, &c, &subject, &err) != XSF_OK && !h && subject == missing &&
              err.msg[0],
          "a missing SDP file");
    c.sender_sdp[0] = path;
    c.sender_clip[0] = bad;
    xsf_error_clear(&err);
    CHECK(nmos_host_create(&h, &c, &subject, &err) != XSF_OK && !h && subject == bad,
          "a bad clip: %s", err.msg);
    c.sender_clip[0] = NULL;
    c.output = "x.png";
    xsf_error_clear(&err);
    CHECK(nmos_host_create(&h, &c, &subject, &err) != XSF_OK && !h && !strcmp(subject, "-o"),
          "a bad output");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_nmos VECTOR_DIR XSFLOW\n");
        return 2;
    }
    vector_dir = argv[1];
    xsflow = argv[2];
    snprintf(clip, sizeof clip, "%s/seq_5f_422_10b.jxs", vector_dir);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_nmos.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    test_node_api();
    test_pix_fmt_option();
    test_flow_resources();
    test_connection();
    test_registration();
    test_sender();
    test_sender_two_legs();
    test_host();
    test_parked_and_refclk();
    test_two_legs();
    test_ptp_described_senders();
    curl_global_cleanup();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd))
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return xsf_test_finish();
}
