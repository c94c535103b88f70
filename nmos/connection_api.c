/* IS-05 v1.1 Connection API: its paths (single and bulk) over the staged
 * and active state of connection.c. The caller holds the node's lock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmos_internal.h"

static void single(nmos_node *n, const char *method, char **seg, int nseg, const char *body,
                   size_t body_len, nmos_reply *r)
{
    /* seg: x-nmos connection v1.1 single senders|receivers [id [leaf]] */
    const int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    const int sender = !strcmp(seg[4], "senders");
    if (!sender && strcmp(seg[4], "receivers"))
        return nmos_reply_error(r, 404, "single/%s: expected senders/ or receivers/", seg[4]);
    if (nseg == 5) {
        if (!get)
            return nmos_reply_error(r, 405, "%s on a list", method);
        cJSON *a = cJSON_CreateArray();
        const unsigned count = sender ? n->ntx : n->nrx;
        for (unsigned i = 0; i < count; i++) {
            char s[40];
            snprintf(s, sizeof s, "%s/", sender ? n->tx[i].id : n->rx[i].id);
            cJSON_AddItemToArray(a, cJSON_CreateString(s));
        }
        return nmos_reply_json(r, 200, a);
    }
    nmos_port *p = nmos_find_port(n, sender, seg[5]);
    if (!p)
        return nmos_reply_error(r, 404, "no %s with id '%s'", sender ? "sender" : "receiver",
                                seg[5]);
    if (nseg == 6) {
        if (!get)
            return nmos_reply_error(r, 405, "%s on a %s", method, sender ? "sender" : "receiver");
        cJSON *a = cJSON_CreateArray();
        cJSON_AddItemToArray(a, cJSON_CreateString("constraints/"));
        cJSON_AddItemToArray(a, cJSON_CreateString("staged/"));
        cJSON_AddItemToArray(a, cJSON_CreateString("active/"));
        if (sender)
            cJSON_AddItemToArray(a, cJSON_CreateString("transportfile/"));
        cJSON_AddItemToArray(a, cJSON_CreateString("transporttype/"));
        return nmos_reply_json(r, 200, a);
    }
    if (nseg > 7)
        return nmos_reply_error(r, 404, "no such path");
    const char *leaf = seg[6];
    if (!strcmp(leaf, "staged") && !strcmp(method, "PATCH")) {
        char why[160];
        cJSON *b = nmos_json_parse(body, body_len, why, sizeof why);
        if (!b)
            return nmos_reply_error(r, 400, "%s", why);
        nmos_patch_staged(n, p, b, r);
        cJSON_Delete(b);
        return;
    }
    const int known = !strcmp(leaf, "constraints") || !strcmp(leaf, "staged") ||
                      !strcmp(leaf, "active") || !strcmp(leaf, "transporttype") ||
                      (sender && !strcmp(leaf, "transportfile"));
    if (!known)
        return nmos_reply_error(r, 404, "no '%s' on a %s", leaf, sender ? "sender" : "receiver");
    if (!get)
        return nmos_reply_error(r, 405, "%s on %s", method, leaf);
    if (!strcmp(leaf, "constraints"))
        return nmos_reply_json(r, 200, nmos_constraints(n, p));
    if (!strcmp(leaf, "staged"))
        return nmos_reply_json(r, 200, cJSON_Duplicate(p->staged, 1));
    if (!strcmp(leaf, "active"))
        return nmos_reply_json(r, 200, cJSON_Duplicate(p->active, 1));
    if (!strcmp(leaf, "transporttype")) {
        /* IS-05 names the base type: rtp.mcast and rtp.ucast are IS-04's subclassifications. */
        return nmos_reply_json(r, 200, cJSON_CreateString("urn:x-nmos:transport:rtp"));
    }
    r->code = 200;
    r->body = nmos_sender_sdp(n, p);
    r->type = "application/sdp";
    if (!r->body)
        nmos_reply_error(r, 500, "out of memory");
}

static void bulk(nmos_node *n, const char *method, char **seg, int nseg, const char *body,
                 size_t body_len, nmos_reply *r)
{
    const int sender = !strcmp(seg[4], "senders");
    if ((!sender && strcmp(seg[4], "receivers")) || nseg > 5)
        return nmos_reply_error(r, 404, "bulk/: expected senders or receivers");
    if (strcmp(method, "POST"))
        return nmos_reply_error(r, 405, "bulk/%s takes POST", seg[4]);
    char why[160];
    cJSON *b = nmos_json_parse(body, body_len, why, sizeof why);
    if (!b)
        return nmos_reply_error(r, 400, "%s", why);
    if (!cJSON_IsArray(b)) {
        cJSON_Delete(b);
        return nmos_reply_error(r, 400, "expected a JSON array of {id, params}");
    }
    cJSON *out = cJSON_CreateArray();
    const cJSON *it;
    cJSON_ArrayForEach(it, b)
    {
        const cJSON *id = cJSON_GetObjectItem(it, "id");
        const cJSON *params = cJSON_GetObjectItem(it, "params");
        cJSON *res = cJSON_CreateObject();
        nmos_reply one;
        memset(&one, 0, sizeof one);
        nmos_port *p = cJSON_IsString(id) ? nmos_find_port(n, sender, id->valuestring) : NULL;
        if (!cJSON_IsObject(it) || !cJSON_IsString(id) || !params)
            nmos_reply_error(&one, 400, "each element: {\"id\": UUID, \"params\": {...}}");
        else if (!p)
            nmos_reply_error(&one, 404, "no %s with id '%s'", sender ? "sender" : "receiver",
                             id->valuestring);
        else
            nmos_patch_staged(n, p, params, &one);
        if (cJSON_IsString(id))
            cJSON_AddStringToObject(res, "id", id->valuestring);
        else
            cJSON_AddNullToObject(res, "id");
        cJSON_AddNumberToObject(res, "code", one.code);
        if (one.code >= 400) {
            cJSON *e = cJSON_Parse(one.body);
            const cJSON *msg = cJSON_GetObjectItem(e, "error");
            cJSON_AddStringToObject(res, "error", cJSON_IsString(msg) ? msg->valuestring : "");
            cJSON_AddNullToObject(res, "debug");
            cJSON_Delete(e);
        }
        free(one.body);
        cJSON_AddItemToArray(out, res);
    }
    cJSON_Delete(b);
    nmos_reply_json(r, 200, out);
}

void nmos_connection_route(nmos_node *n, const char *method, char **seg, int nseg, const char *body,
                           size_t body_len, nmos_reply *r)
{
    const int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    cJSON *a = NULL;
    if (nseg == 2) {
        a = cJSON_CreateArray();
        cJSON_AddItemToArray(a, cJSON_CreateString("v1.1/"));
    } else if (strcmp(seg[2], "v1.1")) {
        return nmos_reply_error(r, 404, "connection API version '%s' not served (v1.1 is)", seg[2]);
    } else if (nseg == 3) {
        a = cJSON_CreateArray();
        cJSON_AddItemToArray(a, cJSON_CreateString("bulk/"));
        cJSON_AddItemToArray(a, cJSON_CreateString("single/"));
    } else if (strcmp(seg[3], "single") && strcmp(seg[3], "bulk")) {
        return nmos_reply_error(r, 404, "expected single/ or bulk/");
    } else if (nseg == 4) {
        a = cJSON_CreateArray();
        cJSON_AddItemToArray(a, cJSON_CreateString("senders/"));
        cJSON_AddItemToArray(a, cJSON_CreateString("receivers/"));
    } else if (!strcmp(seg[3], "single")) {
        return single(n, method, seg, nseg, body, body_len, r);
    } else {
        return bulk(n, method, seg, nseg, body, body_len, r);
    }
    if (!get) {
        cJSON_Delete(a);
        return nmos_reply_error(r, 405, "%s on a list", method);
    }
    nmos_reply_json(r, 200, a);
}
