/* The CUDA codec, decoder: the same pictures as the C reference (decoder.c).
 * Header and index are read and validated on the host (codestream.c); the
 * data goes up, the code-block kernel decodes and dequantizes into the
 * bands, the inverse DWT (wavelet_cuda.h) and the back-end kernel give the
 * samples, in device memory or downloaded. Device buffers grow with the
 * largest picture seen; one synchronization of the stream per picture. */
#define BPC_KERNELS_DECODE_ONLY /* this file's kernels only */
#include "codeblock_kernels.cuh"
#include "gpu_common.cuh"
#include "gpu_kernels.cuh"

/* ---- decoder ---- */

struct bpc_dwt_key {
    int nc, filter, levels;
    int width[BPC_MAX_COMPONENTS], height[BPC_MAX_COMPONENTS];
};

struct bpc_gpu_decoder {
    xsf_error err;
    cudaStream_t stream;
    int device; /* the current device at creation: where device pictures live */
    const bpc_tables *tables;
    bpc_codestream cs;
    int have_dwt;
    bpc_dwt dwt;
    struct bpc_dwt_key dwt_key; /* the shape the plans were made for */
    int timing;
    cudaEvent_t ev[BPC_GPU_STAGES + 1];
    bpc_gpu_times times;
    bpc_kdec_entry *kentries;
    size_t ncb_cap;
    /* device, grown as needed */
    uint8_t *d_data;
    size_t data_cap;
    bpc_cb_desc *d_cb;
    bpc_kdec_entry *d_entry;
    size_t d_ncb_cap;
    void *d_a, *d_b;
    uint16_t *d_out;
    size_t elem_cap;
    float *d_half;
    uint16_t *d_table;
    int *d_err, *h_err;
    /* host output */
    uint16_t *h_out;
    size_t h_out_cap;
    xsf_picture img; /* a view of d_out or h_out */
};

/* A new decoder's device memory and events (d->err says what failed). */
static xsf_status dec_setup(bpc_gpu_decoder *d)
{
    CK(d, cudaGetDevice(&d->device));
    ALLOC(d, d->d_half, BPC_MAX_COMPONENTS * BPC_MAX_BANDS * sizeof(float));
    ALLOC(d, d->d_table, sizeof(((bpc_tables *)0)->p[0]));
    ALLOC(d, d->d_err, sizeof(int));
    CK(d, cudaMallocHost((void **)&d->h_err, sizeof(int)));
    for (int i = 0; i <= BPC_GPU_STAGES; i++)
        CK(d, cudaEventCreate(&d->ev[i]));
    return XSF_OK;
}

xsf_status bpc_gpu_decoder_create(bpc_gpu_decoder **out, struct CUstream_st *stream, xsf_error *err)
{
    *out = NULL;
    xsf_status s = bpc_gpu_available();
    if (s)
        return xsf_error_set(err, s, "no usable GPU");
    bpc_gpu_decoder *d = (bpc_gpu_decoder *)calloc(1, sizeof *d);
    if (!d)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a GPU decoder");
    d->stream = (cudaStream_t)stream;
    if ((s = dec_setup(d)) != XSF_OK) {
        xsf_error_set(err, s, "%s", d->err.msg);
        bpc_gpu_decoder_destroy(d);
        return s;
    }
    *out = d;
    return XSF_OK;
}

void bpc_gpu_decoder_destroy(bpc_gpu_decoder *d)
{
    if (!d)
        return;
    cudaStreamSynchronize(d->stream);
    void *ptrs[] = {d->d_data, d->d_cb,   d->d_entry, d->d_a,  d->d_b,
                    d->d_out,  d->d_half, d->d_table, d->d_err};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        if (ptrs[i])
            cudaFree(ptrs[i]);
    if (d->h_err)
        cudaFreeHost(d->h_err);
    for (int i = 0; i <= BPC_GPU_STAGES; i++)
        if (d->ev[i])
            cudaEventDestroy(d->ev[i]);
    if (d->have_dwt)
        dwt_destroy(&d->dwt);
    bpc_codestream_free(&d->cs);
    free(d->kentries);
    free(d->h_out);
    free(d);
}

void bpc_gpu_decoder_set_tables(bpc_gpu_decoder *d, const bpc_tables *t)
{
    d->tables = t;
}
void bpc_gpu_decoder_set_timing(bpc_gpu_decoder *d, int on)
{
    d->timing = on;
}
void bpc_gpu_decoder_times(const bpc_gpu_decoder *d, bpc_gpu_times *t)
{
    *t = d->times;
}
const char *bpc_gpu_decoder_error(const bpc_gpu_decoder *d)
{
    return d ? d->err.msg : "no decoder";
}

static xsf_status dev_grow(bpc_gpu_decoder *d, void **p, size_t *cap, size_t need)
{
    if (*cap >= need)
        return XSF_OK;
    if (*p) {
        CK(d, cudaStreamSynchronize(d->stream));
        CK(d, cudaFree(*p));
        *p = NULL;
    }
    CK(d, cudaMalloc(p, need));
    *cap = need;
    return XSF_OK;
}

/* The DWT plans of the codestream's shape (kept while the shape stays). */
static xsf_status dec_plans(bpc_gpu_decoder *d)
{
    const bpc_layout *lay = &d->cs.lay;
    bpc_dwt_key key;
    memset(&key, 0, sizeof key);
    key.nc = lay->nc;
    key.filter = (int)lay->filter;
    key.levels = lay->levels;
    for (int c = 0; c < lay->nc; c++) {
        key.width[c] = lay->width[c];
        key.height[c] = lay->height[c];
    }
    if (d->have_dwt && !memcmp(&key, &d->dwt_key, sizeof key))
        return XSF_OK;
    if (d->have_dwt) {
        CK(d, cudaStreamSynchronize(d->stream));
        dwt_destroy(&d->dwt);
        d->have_dwt = 0;
    }
    xsf_status s = dwt_create(&d->dwt, lay, &d->err);
    if (s)
        return s;
    d->have_dwt = 1;
    d->dwt_key = key;
    return XSF_OK;
}

static xsf_status dec_mark(bpc_gpu_decoder *d, int stage)
{
    if (d->timing)
        CK(d, cudaEventRecord(d->ev[stage], d->stream));
    return XSF_OK;
}

#define DMARK(stage)                                                                               \
    do {                                                                                           \
        xsf_status m_ = dec_mark(d, stage);                                                        \
        if (m_)                                                                                    \
            return m_;                                                                             \
    } while (0)

xsf_status bpc_gpu_decode(bpc_gpu_decoder *d, const uint8_t *buf, size_t len, int device,
                          size_t *consumed, const xsf_picture **img)
{
    return bpc_gpu_decode_parsed(d, NULL, buf, len, device, consumed, img);
}

xsf_status bpc_gpu_decode_parsed(bpc_gpu_decoder *d, const bpc_info *info, const uint8_t *buf,
                                 size_t len, int device, size_t *consumed, const xsf_picture **img)
{
    *consumed = 0;
    *img = NULL;
    xsf_error_clear(&d->err);
    xsf_status s = bpc_codestream_open(&d->cs, buf, len, info, d->tables, &d->err);
    if (s)
        return s;
    const bpc_layout *lay = &d->cs.lay;
    const bpc_tables *t = d->cs.tables;
    const bpc_cb_entry *entries = d->cs.entries;
    const size_t ncb = lay->ncb, db = d->cs.info.data_bytes;
    if (d->ncb_cap < ncb) {
        free(d->kentries);
        d->kentries = (bpc_kdec_entry *)malloc(ncb * sizeof *d->kentries);
        d->ncb_cap = d->kentries ? ncb : 0;
        if (!d->ncb_cap)
            return xsf_error_set(&d->err, XSF_ERR_NOMEM, "no memory for %zu code blocks", ncb);
    }
    for (size_t i = 0; i < ncb; i++) {
        d->kentries[i].offset = entries[i].offset;
        d->kentries[i].codewords = entries[i].codewords;
        d->kentries[i].planes = entries[i].planes;
        d->kentries[i].passes = entries[i].passes;
        d->kentries[i].pad[0] = d->kentries[i].pad[1] = 0;
    }
    if ((s = dec_plans(d)))
        return s;
    const size_t n = d->dwt.elements;
    size_t ccap = d->d_ncb_cap * sizeof(bpc_cb_desc), ecap = d->d_ncb_cap * sizeof(bpc_kdec_entry);
    size_t acap = d->elem_cap * 4, bcap = d->elem_cap * 4, ocap = d->elem_cap * 2;
    if ((s = dev_grow(d, (void **)&d->d_data, &d->data_cap, db + 64)) ||
        (s = dev_grow(d, (void **)&d->d_cb, &ccap, (ncb ? ncb : 1) * sizeof(bpc_cb_desc))) ||
        (s = dev_grow(d, (void **)&d->d_entry, &ecap, (ncb ? ncb : 1) * sizeof(bpc_kdec_entry))) ||
        (s = dev_grow(d, &d->d_a, &acap, n * 4)) || (s = dev_grow(d, &d->d_b, &bcap, n * 4)) ||
        (s = dev_grow(d, (void **)&d->d_out, &ocap, n * 2)))
        return s;
    d->d_ncb_cap = ccap / sizeof(bpc_cb_desc) < ecap / sizeof(bpc_kdec_entry)
                       ? ccap / sizeof(bpc_cb_desc)
                       : ecap / sizeof(bpc_kdec_entry);
    d->elem_cap = ocap / 2 < acap / 4 ? ocap / 2 : acap / 4;
    cudaStream_t st = d->stream;
    float inv[BPC_MAX_COMPONENTS * BPC_MAX_BANDS], half[BPC_MAX_COMPONENTS * BPC_MAX_BANDS];
    uint8_t bound[BPC_MAX_COMPONENTS * BPC_MAX_BANDS];
    memset(half, 0, sizeof half);
    band_arrays(lay, inv, half, bound);
    DMARK(0);
    /* pageable host memory: these copies complete before they return */
    CK(d, cudaMemcpyAsync(d->d_data, d->cs.data, db, cudaMemcpyHostToDevice, st));
    CK(d, cudaMemcpyAsync(d->d_cb, lay->cb, ncb * sizeof(bpc_cb_desc), cudaMemcpyHostToDevice, st));
    CK(d, cudaMemcpyAsync(d->d_entry, d->kentries, ncb * sizeof(bpc_kdec_entry),
                          cudaMemcpyHostToDevice, st));
    CK(d, cudaMemcpyAsync(d->d_half, half, sizeof half, cudaMemcpyHostToDevice, st));
    CK(d, cudaMemcpyAsync(d->d_table, &t->p[(int)lay->variant - 1][0][0][0], sizeof t->p[0],
                          cudaMemcpyHostToDevice, st));
    CK(d, cudaMemsetAsync(d->d_err, 0, sizeof(int), st));
    DMARK(1);
    bpc_kdec_params k;
    memset(&k, 0, sizeof k);
    k.cb = d->d_cb;
    k.ncb = (uint32_t)ncb;
    k.variant = (int)lay->variant;
    k.filter = lay->filter == BPC_FILTER_97;
    for (int c = 0; c < lay->nc; c++) {
        k.plane[c] = (uint8_t *)d->d_b + d->dwt.offset[c] * 4;
        k.pitch[c] = (uint32_t)lay->width[c];
    }
    k.half_step = d->d_half;
    k.table = d->d_table;
    k.plane_offset = lay->table_plane_offset;
    k.data = d->d_data;
    k.entry = d->d_entry;
    k.error = d->d_err;
    if (ncb) {
        const int blocks = grid_for(ncb * 32, 128);
        if (k.variant == 1)
            BPC_LAUNCH(bpc_decode_kernel<1>, blocks, 128, st, k);
        else if (k.variant == 2)
            BPC_LAUNCH(bpc_decode_kernel<2>, blocks, 128, st, k);
        else
            BPC_LAUNCH(bpc_decode_kernel<3>, blocks, 128, st, k);
        CK_LAUNCH(d);
    }
    DMARK(2);
    if ((s = dwt_run(&d->dwt, 1, d->d_b, d->d_a, st)))
        return xsf_error_set(&d->err, s, "inverse DWT: %s", wav_cuda_plan_error(d->dwt.plan[0]));
    DMARK(3);
    bpc_plane_set ps;
    memset(&ps, 0, sizeof ps);
    for (int c = 0; c < lay->nc; c++) {
        ps.p[c] = (uint8_t *)d->d_a + d->dwt.offset[c] * 4;
        ps.s[c] = d->d_out + d->dwt.offset[c];
        ps.w[c] = ps.spitch[c] = (uint32_t)lay->width[c];
        ps.h[c] = (uint32_t)lay->height[c];
        ps.depth[c] = lay->depth[c];
    }
    const int ct = lay->colour != BPC_COLOUR_NONE, filter = lay->filter == BPC_FILTER_97;
    for (int c = ct ? 2 : 0; c < lay->nc; c++) {
        const dim3 grid((unsigned)grid_for(ps.w[c], 256), ps.h[c]);
        BPC_LAUNCH(bpc_back_kernel, grid, 256, st, ps, c, ct && c == 2, filter);
        CK_LAUNCH(d);
    }
    DMARK(4);
    xsf_picture_init(&d->img);
    bpc_info_format(&d->cs.info, &d->img.fmt);
    d->img.memory = device ? XSF_MEMORY_DEVICE : XSF_MEMORY_HOST;
    d->img.device = device ? d->device : -1;
    bpc_transform_colour(lay->colour, &d->img.colour);
    if (!device && d->h_out_cap < n) {
        free(d->h_out);
        d->h_out = (uint16_t *)malloc(n * 2);
        d->h_out_cap = d->h_out ? n : 0;
        if (!d->h_out)
            return xsf_error_set(&d->err, XSF_ERR_NOMEM, "no memory for the decoded picture");
    }
    for (int c = 0; c < lay->nc; c++) {
        d->img.stride[c] = (size_t)lay->width[c] * sizeof(uint16_t);
        d->img.data[c] =
            (uint8_t *)(device ? d->d_out + d->dwt.offset[c] : d->h_out + d->dwt.offset[c]);
    }
    if (!device)
        CK(d, cudaMemcpyAsync(d->h_out, d->d_out, n * 2, cudaMemcpyDeviceToHost, st));
    CK(d, cudaMemcpyAsync(d->h_err, d->d_err, sizeof(int), cudaMemcpyDeviceToHost, st));
    DMARK(5);
    CK(d, cudaStreamSynchronize(st));
    if (*d->h_err) {
        const size_t i = (size_t)(*d->h_err - 1);
        return xsf_error_set(
            &d->err, XSF_ERR_INVALID,
            "code block %zu (component %u, band %u, data byte %zu): its %u codewords do not hold "
            "its %u passes",
            i, lay->cb[i].comp, lay->cb[i].band,
            lay->header_bytes + d->cs.info.index_bytes + entries[i].offset, entries[i].codewords,
            entries[i].passes);
    }
    if (d->timing)
        for (int i = 0; i < BPC_GPU_STAGES; i++)
            CK(d, cudaEventElapsedTime(&d->times.ms[i], d->ev[i], d->ev[i + 1]));
    *consumed = d->cs.info.codestream_bytes;
    *img = &d->img;
    return XSF_OK;
}
