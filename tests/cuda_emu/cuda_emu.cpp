/* The fiber scheduler of cuda_emu.h: one fiber per thread of a block.
 *
 * Speed decides how many vectors CI can afford, so switching is cheap.
 * Fibers outlive their block: each loops over the blocks of every launch,
 * so a block costs no context set-up. On x86-64 a switch is six pushes,
 * a stack swap and six pops (xsf_emu_switch below); elsewhere a fiber starts
 * with ucontext and switches with _setjmp/_longjmp, which unlike
 * swapcontext save no signal mask (no system call). Launches from several
 * host threads (the pipeline's GPU stage) take turns: the fibers and the
 * `__shared__` statics are one set. */
#undef _FORTIFY_SOURCE /* its longjmp refuses to jump to another stack */
#include "cuda_emu.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include <mutex>
#include <vector>

#if defined(__x86_64__)
/* Saves the callee-saved registers of the System V ABI on the current
 * stack and the stack pointer in *from, then continues on stack `to`
 * (saved the same way, or prepared by start_fiber). */
extern "C" void xsf_emu_switch(void **from, void *to);
asm(R"(
    .text
    .p2align 4
    .type xsf_emu_switch, @function
xsf_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size xsf_emu_switch, .-xsf_emu_switch
)");
#define EMU_ASM_SWITCH 1
#endif

namespace
{
enum { RUNNING, WAIT_WARP, WAIT_BLOCK, DONE };
constexpr size_t STACK_BYTES = 256 * 1024;
struct fiber {
#if EMU_ASM_SWITCH
    void *sp; /* where xsf_emu_switch saved it */
#else
    jmp_buf ctx;
    ucontext_t start; /* until first run */
#endif
    char *stack = nullptr;
#if !EMU_ASM_SWITCH
    int started = 0;
#endif
    int state = DONE;
    emu_op op = EMU_ANY;
    uint64_t value = 0, result = 0;
    int arg = 0;
    dim3 tid;
};
#if EMU_ASM_SWITCH
void *scheduler;
#else
jmp_buf scheduler;
#endif
/* Heap-allocated fibers never move: a started fiber's saved context and
 * stack stay where they were. They live as long as the process (a vector
 * never destroyed, so that LeakSanitizer sees them reachable). */
std::vector<fiber *> &fibers = *new std::vector<fiber *>;
unsigned current, nthreads;
const std::function<void()> *body;
std::mutex launch_lock;

void fail(const char *why)
{
    fprintf(stderr, "cuda_emu: %s (block %u,%u,%u, thread %u)\n", why, emu_block_idx.x,
            emu_block_idx.y, emu_block_idx.z, current);
    abort();
}

void fiber_main();

#if EMU_ASM_SWITCH
/* From the scheduler into fiber i, back when it waits or ends. */
void resume(unsigned i)
{
    current = i;
    xsf_emu_switch(&scheduler, fibers[i]->sp);
}

/* From the running fiber on to the next runnable one of the scheduler's
 * sweep, or back to the scheduler after the last: half the switches of
 * going through the scheduler each time. */
void yield()
{
    fiber *me = fibers[current];
    for (unsigned j = current + 1; j < nthreads; j++)
        if (fibers[j]->state == RUNNING) {
            current = j;
            xsf_emu_switch(&me->sp, fibers[j]->sp);
            return;
        }
    xsf_emu_switch(&me->sp, scheduler);
}

/* A stack that xsf_emu_switch "returns" into fiber_main from: six
 * registers to pop, then fiber_main's address for the ret, then a return
 * address for fiber_main (which never returns) that leaves the stack as
 * the ABI has it at a function's entry, 16-byte aligned plus 8. */
void start_fiber(fiber *f, size_t bytes)
{
    void **sp = (void **)(((uintptr_t)f->stack + bytes) & ~(uintptr_t)15);
    *--sp = nullptr;
    *--sp = (void *)fiber_main;
    for (int r = 0; r < 6; r++)
        *--sp = nullptr;
    f->sp = sp;
}
#else
void resume(unsigned i)
{
    current = i;
    fiber &f = *fibers[i];
    if (_setjmp(scheduler))
        return;
    if (!f.started) {
        f.started = 1;
        setcontext(&f.start);
    }
    _longjmp(f.ctx, 1);
}

void yield()
{
    if (!_setjmp(fibers[current]->ctx))
        _longjmp(scheduler, 1);
}

/* Alone in its function: getcontext returns twice, which spoils the
 * compiler's view of the caller's locals. */
void start_fiber(fiber *f, size_t bytes)
{
    if (getcontext(&f->start))
        fail("getcontext failed");
    f->start.uc_stack.ss_sp = f->stack;
    f->start.uc_stack.ss_size = bytes;
    f->start.uc_link = nullptr; /* fiber_main never returns */
    makecontext(&f->start, fiber_main, 0);
}
#endif

/* A fiber's life: the kernel body once per block it is given. */
void fiber_main()
{
    for (;;) {
        (*body)();
        fibers[current]->state = DONE;
        yield();
    }
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
        if (fibers[first + i]->op != fibers[first]->op)
            fail("lanes at different warp primitives");
        ballot |= (uint64_t)(fibers[first + i]->value != 0) << i;
    }
    for (unsigned i = 0; i < 32; i++) {
        fiber &f = *fibers[first + i];
        int src;
        switch (f.op) {
        case EMU_SHFL_IDX: f.result = fibers[first + (f.arg & 31)]->value; break;
        case EMU_SHFL_UP:
            src = (int)i - f.arg;
            f.result = src >= 0 ? fibers[first + src]->value : f.value;
            break;
        case EMU_SHFL_DOWN:
            src = (int)i + f.arg;
            f.result = src < 32 ? fibers[first + src]->value : f.value;
            break;
        case EMU_SHFL_XOR: f.result = fibers[first + ((i ^ (unsigned)f.arg) & 31)]->value; break;
        case EMU_BALLOT: f.result = ballot; break;
        case EMU_ANY: f.result = ballot != 0; break;
        case EMU_SYNCWARP: break;
        }
    }
    for (unsigned i = 0; i < 32; i++)
        fibers[first + i]->state = RUNNING;
}

/* Makes sure fibers [0, n) exist, each with its stack and start context. */
void ensure_fibers(unsigned n)
{
    while (fibers.size() < n) {
        fiber *f = new fiber();
        if (!(f->stack = (char *)malloc(STACK_BYTES)))
            fail("no memory for a fiber stack");
        start_fiber(f, STACK_BYTES);
        fibers.push_back(f);
    }
}

void run_block()
{
    for (unsigned i = 0; i < nthreads; i++) {
        fibers[i]->state = RUNNING;
        fibers[i]->tid = dim3(i % emu_block_dim.x, i / emu_block_dim.x % emu_block_dim.y,
                              i / emu_block_dim.x / emu_block_dim.y);
    }
    for (;;) {
        /* A sweep: every runnable fiber runs to its next wait or its end
         * (with the asm switch, the first hands on to the next itself). */
        for (unsigned i = 0; i < nthreads; i++)
            if (fibers[i]->state == RUNNING)
                resume(i);
        unsigned done = 0, at_barrier = 0, progressed = 0;
        for (unsigned w = 0; w * 32 < nthreads; w++) {
            const unsigned first = w * 32, n = nthreads - first < 32 ? nthreads - first : 32;
            unsigned waiting = 0, ended = 0;
            for (unsigned i = 0; i < n; i++)
                waiting += fibers[first + i]->state == WAIT_WARP,
                    ended += fibers[first + i]->state == DONE;
            if (waiting && ended)
                fail("lanes ended while others wait at a warp primitive (divergent "
                     "synchronization)");
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
            done += fibers[i]->state == DONE, at_barrier += fibers[i]->state == WAIT_BLOCK;
        if (done == nthreads)
            return;
        if (done + at_barrier == nthreads) {
            for (unsigned i = 0; i < nthreads; i++)
                if (fibers[i]->state == WAIT_BLOCK)
                    fibers[i]->state = RUNNING;
            continue;
        }
        fail("deadlock");
    }
}
} // namespace

dim3 emu_block_idx, emu_block_dim, emu_grid_dim;
uint8_t *emu_dyn_smem;

static void set_dyn_smem(size_t bytes)
{
    /* Grows only; 16-byte aligned as the GPU's. Poisoned: shared memory
     * starts with whatever the last block left. */
    static std::vector<uint64_t> smem;
    if (smem.size() * 8 < bytes + 16)
        smem.assign((bytes + 16) / 8 + 1, 0xcdcdcdcdcdcdcdcdull);
    emu_dyn_smem = (uint8_t *)(((uintptr_t)smem.data() + 15) & ~(uintptr_t)15);
}

const dim3 &emu_thread_idx()
{
    return fibers[current]->tid;
}

unsigned emu_linear_thread()
{
    return current;
}

uint64_t emu_exchange(emu_op o, uint64_t v, int a)
{
    fiber &f = *fibers[current];
    f.op = o;
    f.value = v;
    f.arg = a;
    f.state = WAIT_WARP;
    yield();
    return fibers[current]->result;
}

void emu_syncthreads()
{
    fibers[current]->state = WAIT_BLOCK;
    yield();
}

void emu_launch_grid(dim3 grid, dim3 block, const std::function<void()> &f, size_t shared_bytes)
{
    std::lock_guard<std::mutex> hold(launch_lock);
    set_dyn_smem(shared_bytes);
    body = &f;
    emu_block_dim = block;
    emu_grid_dim = grid;
    nthreads = block.x * block.y * block.z;
    ensure_fibers(nthreads);
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                emu_block_idx = dim3(bx, by, bz);
                run_block();
            }
}
