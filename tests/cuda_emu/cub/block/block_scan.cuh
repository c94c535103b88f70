/* <cub/block/block_scan.cuh> of the emulation: see ../cub.cuh. */
#include "../cub.cuh"
