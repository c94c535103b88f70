/* The fiber scheduler of cuda_emu.h: one fiber per thread of a block. */
#include "cuda_emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include <vector>

namespace {
enum { RUNNING, WAIT_WARP, WAIT_BLOCK, DONE };
constexpr size_t STACK_BYTES = 256 * 1024;
struct fiber {
    ucontext_t ctx;
    char *stack = nullptr;
    int state = DONE;
    emu_op op = EMU_ANY;
    uint64_t value = 0, result = 0;
    int arg = 0;
    dim3 tid;
};
ucontext_t scheduler;
std::vector<fiber> fibers;
unsigned current, nthreads;
const std::function<void()> *body;

void fail(const char *why)
{
    fprintf(stderr, "cuda_emu: %s (block %u,%u, thread %u)\n", why, emu_block_idx.x, emu_block_idx.y, current);
    abort();
}

void trampoline()
{
    (*body)();
    fibers[current].state = DONE;
    swapcontext(&fibers[current].ctx, &scheduler);
}

/* Completes the primitive the 32 (or fewer, at a block's end) lanes of warp
 * `w` wait at. */
void resolve_warp(unsigned w)
{
    const unsigned first = w * 32, n = nthreads - first < 32 ? nthreads - first : 32;
    if (n != 32)
        fail("a warp primitive in a partial warp");
    uint64_t ballot = 0;
    for (unsigned i = 0; i < 32; i++) {
        if (fibers[first + i].op != fibers[first].op)
            fail("lanes at different warp primitives");
        ballot |= (uint64_t)(fibers[first + i].value != 0) << i;
    }
    for (unsigned i = 0; i < 32; i++) {
        fiber &f = fibers[first + i];
        int src;
        switch (f.op) {
        case EMU_SHFL_IDX:
            f.result = fibers[first + (f.arg & 31)].value;
            break;
        case EMU_SHFL_UP:
            src = (int)i - f.arg;
            f.result = src >= 0 ? fibers[first + src].value : f.value;
            break;
        case EMU_SHFL_DOWN:
            src = (int)i + f.arg;
            f.result = src < 32 ? fibers[first + src].value : f.value;
            break;
        case EMU_SHFL_XOR:
            f.result = fibers[first + ((i ^ (unsigned)f.arg) & 31)].value;
            break;
        case EMU_BALLOT:
            f.result = ballot;
            break;
        case EMU_ANY:
            f.result = ballot != 0;
            break;
        }
    }
    for (unsigned i = 0; i < 32; i++)
        fibers[first + i].state = RUNNING;
}

void run_block()
{
    for (unsigned i = 0; i < nthreads; i++) {
        fiber &f = fibers[i];
        if (!f.stack && !(f.stack = (char *)malloc(STACK_BYTES)))
            fail("no memory for a fiber stack");
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack;
        f.ctx.uc_stack.ss_size = STACK_BYTES;
        f.ctx.uc_link = nullptr;
        makecontext(&f.ctx, trampoline, 0);
        f.state = RUNNING;
        f.tid = dim3(i % emu_block_dim.x, i / emu_block_dim.x, 0);
    }
    for (;;) {
        for (unsigned i = 0; i < nthreads; i++)
            if (fibers[i].state == RUNNING) {
                current = i;
                swapcontext(&scheduler, &fibers[i].ctx);
            }
        unsigned done = 0, at_barrier = 0, progressed = 0;
        for (unsigned w = 0; w * 32 < nthreads; w++) {
            const unsigned first = w * 32, n = nthreads - first < 32 ? nthreads - first : 32;
            unsigned waiting = 0, ended = 0;
            for (unsigned i = 0; i < n; i++)
                waiting += fibers[first + i].state == WAIT_WARP, ended += fibers[first + i].state == DONE;
            if (waiting && ended)
                fail("lanes ended while others wait at a warp primitive (divergent synchronization)");
            if (waiting && waiting < n) {
                current = first;
                fail("lanes of a warp at a warp primitive and at __syncthreads");
            }
            if (waiting == n) {
                resolve_warp(w);
                progressed = 1;
            }
        }
        if (progressed)
            continue;
        for (unsigned i = 0; i < nthreads; i++)
            done += fibers[i].state == DONE, at_barrier += fibers[i].state == WAIT_BLOCK;
        if (done == nthreads)
            return;
        if (done + at_barrier == nthreads) {
            for (unsigned i = 0; i < nthreads; i++)
                if (fibers[i].state == WAIT_BLOCK)
                    fibers[i].state = RUNNING;
            continue;
        }
        fail("deadlock");
    }
}
} // namespace

dim3 emu_block_idx, emu_block_dim, emu_grid_dim;

const dim3 &emu_thread_idx() { return fibers[current].tid; }

unsigned emu_linear_thread() { return current; }

uint64_t emu_exchange(emu_op o, uint64_t v, int a)
{
    fiber &f = fibers[current];
    f.op = o;
    f.value = v;
    f.arg = a;
    f.state = WAIT_WARP;
    swapcontext(&f.ctx, &scheduler);
    return fibers[current].result;
}

void emu_syncthreads()
{
    fibers[current].state = WAIT_BLOCK;
    swapcontext(&fibers[current].ctx, &scheduler);
}

void emu_launch_grid(dim3 grid, dim3 block, const std::function<void()> &f)
{
    body = &f;
    emu_block_dim = block;
    emu_grid_dim = grid;
    nthreads = block.x * block.y * block.z;
    if (fibers.size() < nthreads)
        fibers.resize(nthreads);
    for (unsigned by = 0; by < grid.y; by++)
        for (unsigned bx = 0; bx < grid.x; bx++) {
            emu_block_idx = dim3(bx, by, 0);
            run_block();
        }
}
