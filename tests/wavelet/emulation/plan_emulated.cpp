/* The CUDA plan code (schedule, scratch, entry points) built as host C++
 * against the stand-in runtime, for the emulated GPU test. */
#include "plan_cuda.cu"
