/* See cuda_runtime_api.h (and cuda_emu.h for the device side). */
#include "cuda_runtime_api.h"
#ifdef __cplusplus
#include "cuda_emu.h"
#endif
