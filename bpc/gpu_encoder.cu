/* The CUDA codec, encoder (the decoder: gpu_decoder.cu): the same
 * codestreams as the C reference (encoder.c), stage by stage:
 *
 *   encode: upload -> front kernel (level shift, RCT/ICT) -> DWT
 *           (wavelet_cuda.h, out of place) -> code-block kernel (9/7
 *           quantization fused into its load) -> hull kernel (one thread per
 *           code block) -> rate kernel (one block: bisection and fill of
 *           rate.c, CUB reductions and scans) -> sizes, scans (CUB) -> pack
 *           kernel (index entries and data) -> download.
 *   decode: header and index read and validated on the host (codestream.c)
 *           -> upload of the data -> code-block kernel (dequantization fused
 *           into its store) -> inverse DWT -> back kernel (inverse colour
 *           transform, clamp) -> download (or device planes).
 *
 * Every device buffer is allocated at creation (encoder) or grows with the
 * largest picture seen (decoder); no call synchronizes the device, only the
 * codec's stream, twice per encode (the sizes, then the codestream) and once
 * per decode. The kernels are compiled without FMA contraction
 * (-fmad=false), so their float and double arithmetic rounds as the C
 * reference's does. */
#define BPC_KERNELS_ENCODE_ONLY /* this file's kernels only */
#include "codeblock_kernels.cuh"
#include "gpu_common.cuh"
#include "gpu_kernels.cuh"

xsf_status bpc_gpu_available(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        cudaGetLastError();
        return XSF_ERR_NODEVICE;
    }
    return XSF_OK;
}

/* ---- encoder ---- */

struct bpc_gpu_encoder {
    bpc_params params;
    xsf_error err;
    cudaStream_t stream;
    bpc_layout lay;
    bpc_dwt dwt;
    int timing;
    cudaEvent_t ev[BPC_GPU_STAGES + 1];
    bpc_gpu_times times;
    /* device */
    uint16_t *d_in;  /* staged samples, width elements per row */
    void *d_a, *d_b; /* front end output, DWT output */
    bpc_cb_desc *d_cb;
    float *d_inv;
    uint8_t *d_bound;
    uint16_t *d_table;
    uint64_t *d_slot;
    uint8_t *d_slots;
    uint8_t *d_planes, *d_passes, *d_sel;
    uint32_t *d_cw, *d_full;
    int64_t *d_dist;
    double *d_weight;
    bpc_rate_cb *d_rate;
    int *d_point, *d_err;
    unsigned long long *d_isz, *d_dsz, *d_ioff, *d_doff, *d_totals;
    void *d_scan_tmp;
    size_t scan_tmp_bytes;
    uint8_t *d_out;
    size_t out_cap;
    unsigned long long *h_meta; /* pinned: totals[2], error */
};

static void enc_free(bpc_gpu_encoder *e)
{
    void *ptrs[] = {e->d_in,       e->d_a,    e->d_b,     e->d_cb,     e->d_inv,    e->d_bound,
                    e->d_table,    e->d_slot, e->d_slots, e->d_planes, e->d_passes, e->d_sel,
                    e->d_cw,       e->d_full, e->d_dist,  e->d_weight, e->d_rate,   e->d_point,
                    e->d_err,      e->d_isz,  e->d_dsz,   e->d_ioff,   e->d_doff,   e->d_totals,
                    e->d_scan_tmp, e->d_out};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        if (ptrs[i])
            cudaFree(ptrs[i]);
    if (e->h_meta)
        cudaFreeHost(e->h_meta);
    for (int i = 0; i <= BPC_GPU_STAGES; i++)
        if (e->ev[i])
            cudaEventDestroy(e->ev[i]);
    dwt_destroy(&e->dwt);
    bpc_layout_free(&e->lay);
}

void bpc_gpu_encoder_destroy(bpc_gpu_encoder *e)
{
    if (!e)
        return;
    cudaStreamSynchronize(e->stream);
    enc_free(e);
    free(e);
}

const char *bpc_gpu_encoder_error(const bpc_gpu_encoder *e)
{
    return e ? e->err.msg : "no encoder";
}

static xsf_status enc_setup(bpc_gpu_encoder *e, const xsf_format *shape)
{
    xsf_status s = bpc_layout_init(&e->lay, &e->params, shape, &e->err);
    if (s)
        return s;
    const bpc_layout *lay = &e->lay;
    const size_t ncb = lay->ncb ? lay->ncb : 1;
    if ((s = dwt_create(&e->dwt, lay, &e->err)))
        return s;
    const size_t n = e->dwt.elements;
    ALLOC(e, e->d_in, n * 2);
    ALLOC(e, e->d_a, n * 4);
    ALLOC(e, e->d_b, n * 4);
    ALLOC(e, e->d_cb, ncb * sizeof(bpc_cb_desc));
    ALLOC(e, e->d_inv, BPC_MAX_COMPONENTS * BPC_MAX_BANDS * sizeof(float));
    ALLOC(e, e->d_bound, BPC_MAX_COMPONENTS * BPC_MAX_BANDS);
    ALLOC(e, e->d_table, sizeof(((bpc_tables *)0)->p[0]));
    ALLOC(e, e->d_slot, ncb * sizeof(uint64_t));
    ALLOC(e, e->d_planes, ncb);
    ALLOC(e, e->d_passes, ncb);
    ALLOC(e, e->d_sel, ncb);
    ALLOC(e, e->d_cw, ncb * BPC_MAX_PASSES * sizeof(uint32_t));
    ALLOC(e, e->d_dist, ncb * BPC_MAX_PASSES * sizeof(int64_t));
    ALLOC(e, e->d_full, ncb * sizeof(uint32_t));
    ALLOC(e, e->d_weight, ncb * sizeof(double));
    ALLOC(e, e->d_rate, ncb * sizeof(bpc_rate_cb));
    ALLOC(e, e->d_point, ncb * sizeof(int));
    ALLOC(e, e->d_err, sizeof(int));
    ALLOC(e, e->d_isz, ncb * 8);
    ALLOC(e, e->d_dsz, ncb * 8);
    ALLOC(e, e->d_ioff, ncb * 8);
    ALLOC(e, e->d_doff, ncb * 8);
    ALLOC(e, e->d_totals, 16);
    CK(e, cudaMallocHost((void **)&e->h_meta, 4 * sizeof(unsigned long long)));
    CK(e, cub::DeviceScan::ExclusiveSum(NULL, e->scan_tmp_bytes, e->d_isz, e->d_ioff, (int)ncb,
                                        e->stream));
    ALLOC(e, e->d_scan_tmp, e->scan_tmp_bytes);

    /* host-side tables of the layout, uploaded once */
    uint64_t *slot = (uint64_t *)malloc(ncb * sizeof *slot);
    double *weight = (double *)malloc(ncb * sizeof *weight);
    if (!slot || !weight) {
        free(slot);
        free(weight);
        return xsf_error_set(&e->err, XSF_ERR_NOMEM, "no memory for %zu code blocks", ncb);
    }
    uint64_t total = 0, idx = 0;
    for (size_t i = 0; i < lay->ncb; i++) {
        const bpc_cb_desc *d = &lay->cb[i];
        const int pb = lay->comp[d->comp].band[d->band].planes_bound;
        slot[i] = total;
        total += bpc_codeblock_bound((int)d->w, (int)d->h, pb);
        idx += bpc_index_entry_size(bpc_passes_of((int)lay->variant, pb),
                                    (uint32_t)(bpc_codeblock_bound((int)d->w, (int)d->h, pb) / 2));
        weight[i] = bpc_codeblock_weight(lay, d);
    }
    float inv[BPC_MAX_COMPONENTS * BPC_MAX_BANDS], half[BPC_MAX_COMPONENTS * BPC_MAX_BANDS];
    uint8_t bound[BPC_MAX_COMPONENTS * BPC_MAX_BANDS];
    memset(inv, 0, sizeof inv);
    memset(bound, 0, sizeof bound);
    band_arrays(lay, inv, half, bound);
    const bpc_tables *t = e->params.tables ? e->params.tables : bpc_tables_builtin(lay->filter);
    cudaError_t ce = cudaMalloc((void **)&e->d_slots, total ? total : 1);
    if (ce == cudaSuccess)
        ce = cudaMemcpyAsync(e->d_slot, slot, lay->ncb * sizeof *slot, cudaMemcpyHostToDevice,
                             e->stream);
    if (ce == cudaSuccess)
        ce = cudaMemcpyAsync(e->d_weight, weight, lay->ncb * sizeof *weight, cudaMemcpyHostToDevice,
                             e->stream);
    /* pageable sources: the copies have taken them when they return */
    free(slot);
    free(weight);
    CK(e, ce);
    e->out_cap = idx + total;
    ALLOC(e, e->d_out, e->out_cap);
    CK(e, cudaMemcpyAsync(e->d_cb, lay->cb, lay->ncb * sizeof(bpc_cb_desc), cudaMemcpyHostToDevice,
                          e->stream));
    CK(e, cudaMemcpyAsync(e->d_inv, inv, sizeof inv, cudaMemcpyHostToDevice, e->stream));
    CK(e, cudaMemcpyAsync(e->d_bound, bound, sizeof bound, cudaMemcpyHostToDevice, e->stream));
    CK(e, cudaMemcpyAsync(e->d_table, &t->p[(int)lay->variant - 1][0][0][0], sizeof t->p[0],
                          cudaMemcpyHostToDevice, e->stream));
    for (int i = 0; i <= BPC_GPU_STAGES; i++)
        CK(e, cudaEventCreate(&e->ev[i]));
    return XSF_OK;
}

xsf_status bpc_gpu_encoder_create(bpc_gpu_encoder **out, const bpc_params *params,
                                  const xsf_format *shape, struct CUstream_st *stream,
                                  xsf_error *err)
{
    *out = NULL;
    xsf_status s = bpc_gpu_available();
    if (s)
        return xsf_error_set(err, s, "no usable GPU");
    bpc_gpu_encoder *e = (bpc_gpu_encoder *)calloc(1, sizeof *e);
    if (!e)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a GPU encoder");
    e->params = *params;
    e->stream = (cudaStream_t)stream;
    if ((s = enc_setup(e, shape)) != XSF_OK) {
        xsf_error_set(err, s, "%s", e->err.msg);
        bpc_gpu_encoder_destroy(e);
        return s;
    }
    *out = e;
    return XSF_OK;
}

void bpc_gpu_encoder_set_timing(bpc_gpu_encoder *e, int on)
{
    e->timing = on;
}

void bpc_gpu_encoder_times(const bpc_gpu_encoder *e, bpc_gpu_times *t)
{
    *t = e->times;
}

static xsf_status enc_mark(bpc_gpu_encoder *e, int stage)
{
    if (e->timing)
        CK(e, cudaEventRecord(e->ev[stage], e->stream));
    return XSF_OK;
}

#define MARK(stage)                                                                                \
    do {                                                                                           \
        xsf_status m_ = enc_mark(e, stage);                                                        \
        if (m_)                                                                                    \
            return m_;                                                                             \
    } while (0)

xsf_status bpc_gpu_encode(bpc_gpu_encoder *e, const xsf_picture *img, uint8_t *out, size_t cap,
                          size_t *len)
{
    *len = 0;
    xsf_error_clear(&e->err);
    const bpc_layout *lay = &e->lay;
    const uint32_t ncb = (uint32_t)lay->ncb;
    const xsf_format *f = &img->fmt;
    const int device = img->memory == XSF_MEMORY_DEVICE;
    if (f->nc != lay->nc || f->container != XSF_PLANAR_U16)
        return xsf_error_set(&e->err, XSF_ERR_ARG, "%d components, the encoder was made for %d",
                             f->nc, lay->nc);
    for (int c = 0; c < lay->nc; c++)
        if (f->width[c] != lay->width[c] || f->height[c] != lay->height[c] ||
            f->depth[c] != lay->depth[c] || img->stride[c] < (size_t)f->width[c] * 2 ||
            (device && img->stride[c] % 2))
            return xsf_error_set(&e->err, XSF_ERR_ARG,
                                 "component %d: not the shape the encoder was made for", c);
    cudaStream_t st = e->stream;
    MARK(0);
    /* samples: staged from the host, or read where they are on the device */
    bpc_plane_set ps;
    memset(&ps, 0, sizeof ps);
    for (int c = 0; c < lay->nc; c++) {
        ps.p[c] = (uint8_t *)e->d_a + e->dwt.offset[c] * 4;
        ps.w[c] = (uint32_t)lay->width[c];
        ps.h[c] = (uint32_t)lay->height[c];
        ps.depth[c] = lay->depth[c];
        if (device) {
            ps.s[c] = (uint16_t *)img->data[c];
            ps.spitch[c] = (uint32_t)(img->stride[c] / 2);
        } else {
            ps.s[c] = e->d_in + e->dwt.offset[c];
            ps.spitch[c] = ps.w[c];
            CK(e, cudaMemcpy2DAsync(ps.s[c], ps.w[c] * 2, img->data[c], img->stride[c], ps.w[c] * 2,
                                    ps.h[c], cudaMemcpyHostToDevice, st));
        }
    }
    MARK(1);
    const int ct = lay->colour != BPC_COLOUR_NONE, filter = lay->filter == BPC_FILTER_97;
    for (int c = ct ? 2 : 0; c < lay->nc; c++) {
        const dim3 grid((unsigned)grid_for(ps.w[c], 256), ps.h[c]);
        BPC_LAUNCH(bpc_front_kernel, grid, 256, st, ps, c, ct && c == 2, filter);
        CK_LAUNCH(e);
    }
    xsf_status s = dwt_run(&e->dwt, 0, e->d_a, e->d_b, st);
    if (s)
        return xsf_error_set(&e->err, s, "DWT: %s", wav_cuda_plan_error(e->dwt.plan[0]));
    MARK(2);
    /* the code blocks */
    bpc_kenc_params k;
    memset(&k, 0, sizeof k);
    k.cb = e->d_cb;
    k.ncb = ncb;
    k.variant = (int)lay->variant;
    k.filter = filter;
    for (int c = 0; c < lay->nc; c++) {
        k.plane[c] = (const uint8_t *)e->d_b + e->dwt.offset[c] * 4;
        k.pitch[c] = (uint32_t)lay->width[c];
    }
    k.inv_step = e->d_inv;
    k.planes_bound = e->d_bound;
    k.table = e->d_table;
    k.plane_offset = lay->table_plane_offset;
    k.slot = e->d_slot;
    k.slots = e->d_slots;
    k.planes_out = e->d_planes;
    k.passes_out = e->d_passes;
    k.pass_cw = e->d_cw;
    k.pass_dist = e->d_dist;
    k.error = e->d_err;
    CK(e, cudaMemsetAsync(e->d_err, 0, sizeof(int), st));
    if (ncb) {
        const int blocks = grid_for((size_t)ncb * 32, 128);
        if (k.variant == 1)
            BPC_LAUNCH(bpc_encode_kernel<1>, blocks, 128, st, k);
        else if (k.variant == 2)
            BPC_LAUNCH(bpc_encode_kernel<2>, blocks, 128, st, k);
        else
            BPC_LAUNCH(bpc_encode_kernel<3>, blocks, 128, st, k);
        CK_LAUNCH(e);
    }
    MARK(3);
    /* rate control */
    const size_t target = e->params.target_bytes;
    if (target && target < lay->header_bytes + lay->ncb)
        return xsf_error_set(&e->err, XSF_ERR_ARG,
                             "target of %zu bytes below the %zu of the header and the empty index",
                             target, lay->header_bytes + lay->ncb);
    if (ncb) {
        BPC_LAUNCH(bpc_hull_kernel, grid_for(ncb, 128), 128, st, ncb, (int)lay->variant,
                   e->d_planes, e->d_passes, e->d_cw, e->d_dist, e->d_weight, e->d_rate, e->d_full);
        CK_LAUNCH(e);
        BPC_LAUNCH(bpc_rate_kernel, 1, RATE_THREADS, st, ncb, e->d_rate, e->d_passes, e->d_full,
                   target ? (unsigned long long)(target - lay->header_bytes) : 0ull, e->d_point,
                   e->d_sel);
        CK_LAUNCH(e);
        BPC_LAUNCH(bpc_sizes_kernel, grid_for(ncb, 256), 256, st, ncb, e->d_sel, e->d_cw, e->d_isz,
                   e->d_dsz);
        CK_LAUNCH(e);
        size_t tb = e->scan_tmp_bytes;
        CK(e, cub::DeviceScan::ExclusiveSum(e->d_scan_tmp, tb, e->d_isz, e->d_ioff, (int)ncb, st));
        tb = e->scan_tmp_bytes;
        CK(e, cub::DeviceScan::ExclusiveSum(e->d_scan_tmp, tb, e->d_dsz, e->d_doff, (int)ncb, st));
        BPC_LAUNCH(bpc_totals_kernel, 1, 1, st, ncb, e->d_isz, e->d_dsz, e->d_ioff, e->d_doff,
                   e->d_totals);
        CK_LAUNCH(e);
        CK(e, cudaMemcpyAsync(e->h_meta, e->d_totals, 16, cudaMemcpyDeviceToHost, st));
    } else {
        e->h_meta[0] = e->h_meta[1] = 0;
    }
    CK(e, cudaMemcpyAsync(e->h_meta + 2, e->d_err, sizeof(int), cudaMemcpyDeviceToHost, st));
    CK(e, cudaStreamSynchronize(st));
    const int kerr = (int)*(int *)(e->h_meta + 2);
    if (kerr)
        return xsf_error_set(&e->err, XSF_ERR_ARG,
                             "code block %d needs more bitplanes than its band's bound", kerr - 1);
    const size_t ib = (size_t)e->h_meta[0], db = (size_t)e->h_meta[1];
    size_t total;
    if ((s = bpc_codestream_size(lay, ib, db, cap, &total, &e->err)))
        return s;
    MARK(4);
    if (ncb) {
        BPC_LAUNCH(bpc_pack_kernel, grid_for((size_t)ncb * 32, 128), 128, st, ncb, e->d_sel,
                   e->d_planes, e->d_cw, e->d_ioff, e->d_doff, e->d_totals, e->d_slot, e->d_slots,
                   e->d_out);
        CK_LAUNCH(e);
    }
    bpc_write_header(lay, ib, db, out);
    CK(e, cudaMemcpyAsync(out + lay->header_bytes, e->d_out, ib + db, cudaMemcpyDeviceToHost, st));
    MARK(5);
    CK(e, cudaStreamSynchronize(st));
    if (e->timing)
        for (int i = 0; i < BPC_GPU_STAGES; i++)
            CK(e, cudaEventElapsedTime(&e->times.ms[i], e->ev[i], e->ev[i + 1]));
    *len = total;
    return XSF_OK;
}
