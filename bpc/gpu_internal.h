/* Internal interface of the CUDA codec for the tests and the benchmark:
 * per-stage timings with CUDA events (off unless asked for). */
#ifndef XSF_BPC_GPU_INTERNAL_H
#define XSF_BPC_GPU_INTERNAL_H

#include "bpc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Encoder stages: 0 upload of the samples, 1 front end and DWT, 2 code-block
 * coder, 3 rate control (with the sizes' round trip to the host), 4 packing
 * and download of the codestream.
 * Decoder stages: 0 upload of the data, 1 code-block decoder (with
 * dequantization), 2 inverse DWT, 3 back end, 4 download of the picture (0
 * when it stays on the device). */
#define BPC_GPU_STAGES 5
typedef struct bpc_gpu_times {
    float ms[BPC_GPU_STAGES];
} bpc_gpu_times;

void bpc_gpu_encoder_set_timing(bpc_gpu_encoder *enc, int on);
void bpc_gpu_encoder_times(const bpc_gpu_encoder *enc, bpc_gpu_times *t);
void bpc_gpu_decoder_set_timing(bpc_gpu_decoder *dec, int on);
void bpc_gpu_decoder_times(const bpc_gpu_decoder *dec, bpc_gpu_times *t);

#ifdef __cplusplus
}
#endif
#endif
