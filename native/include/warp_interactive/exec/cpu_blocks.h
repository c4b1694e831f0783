// Cooperative CPU blocks (warp-lang's `wp.config.enable_cpu_blocks`): a tiled launch's block runs
// its `block_dim` lanes as fibers on one worker thread. Each lane runs the kernel body with its own
// thread index (so `wp.tid()`'s last index is the lane); a lane switches to the next one only at
// a block-wide operation (`wp.tile(x)` gathers a value from every lane, `tile_from_thread`
// broadcasts one, `tile_atomic_add` runs once and shares its result), as `__syncthreads()` would.
// Lanes run one after another on one thread, so no lane ever races another.
//
// Only kernels built for a block width above one use this (a separate entry point, see
// codegen/target.py); every query here answers "one lane, lane 0" outside a block. On CUDA the
// same primitives run a block's lanes as the GPU block's threads (cuda_blocks.h).
#pragma once

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#include <ucontext.h>
#include <sys/mman.h>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#define WPI_CPU_BLOCKS 1
#endif
#include "warp_interactive/exec/cuda_blocks.h"    // the same primitives for CUDA blocks (block_sync/lane/width there)

namespace wp {

#if defined(WPI_CPU_BLOCKS)
typedef void (*cpu_lane_fn)(const void* args, const void* bounds, int64 idx);

struct cpu_block {
    int capacity = 0;         // lanes the stacks below are reserved for (the widest block run yet)
    int width = 0;            // lanes in a full block (this launch's block_dim)
    int count = 0;            // lanes of the block now running (the last block may be partial)
    int lane = 0;             // the running lane
    int64 first = 0;          // the thread index of lane 0
    cpu_lane_fn fn = nullptr;
    const void* args = nullptr;
    const void* bounds = nullptr;
    ucontext_t sched;         // the worker's own context, between lanes
    ucontext_t* ctx = nullptr;
    char* done = nullptr;
    unsigned* syncs = nullptr;   // block-wide operations each lane has reached
    bool diverged = false;       // some lanes reached a block-wide operation others did not
    char* stacks = nullptr;   // one stack per lane (tiles live there), reserved once per worker
    size_t stack_bytes = 0;
    char* scratch = nullptr;  // where lanes exchange values at a block-wide operation
    size_t scratch_bytes = 0;
};

// Each lane's stack: tiles are values on it (the translator's budget is 3 MB per kernel).
// Reserved with MAP_NORESERVE: a lane's pages cost memory only once touched.
static const size_t CPU_LANE_STACK = size_t(4) << 20;

inline cpu_block*& cpu_block_current()
{
    static thread_local cpu_block* current = nullptr;
    return current;
}

inline void* cpu_block_scratch(cpu_block* b, size_t bytes)
{
    if (bytes > b->scratch_bytes) {
        b->scratch = (char*)std::realloc(b->scratch, bytes);
        b->scratch_bytes = bytes;
    }
    return b->scratch;
}

// The worker's block state, grown to the widest block it has run (kept for the next launches).
inline cpu_block* cpu_block_state(int width)
{
    static thread_local cpu_block state;
    cpu_block* b = &state;
    if (b->capacity < width) {
        if (b->stacks) munmap(b->stacks, b->stack_bytes);
        b->stack_bytes = CPU_LANE_STACK * size_t(width);
        void* p = mmap(nullptr, b->stack_bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (p == MAP_FAILED) return nullptr;
        b->stacks = (char*)p;
        b->ctx = (ucontext_t*)std::realloc(b->ctx, sizeof(ucontext_t) * size_t(width));
        b->done = (char*)std::realloc(b->done, size_t(width));
        b->syncs = (unsigned*)std::realloc(b->syncs, sizeof(unsigned) * size_t(width));
        b->capacity = width;
    }
    b->width = width;      // (not the capacity: wp.block_dim() of a narrower launch after a wider one)
    return b;
}

inline void cpu_lane_main()
{
    cpu_block* b = cpu_block_current();
    const int lane = b->lane;
    b->fn(b->args, b->bounds, b->first + lane);
    b->done[lane] = 1;     // returning resumes the scheduler (uc_link)
}

// Runs lanes [0, count) of one block: each lane until it finishes or reaches a block-wide
// operation, in lane order, round after round until all have finished.
inline void cpu_block_run(cpu_block* b, int count)
{
    b->count = count;
    for (int l = 0; l < count; ++l) {
        getcontext(&b->ctx[l]);
        b->ctx[l].uc_stack.ss_sp = b->stacks + CPU_LANE_STACK * size_t(l);
        b->ctx[l].uc_stack.ss_size = CPU_LANE_STACK;
        b->ctx[l].uc_link = &b->sched;
        makecontext(&b->ctx[l], cpu_lane_main, 0);
        b->done[l] = 0;
        b->syncs[l] = 0;
    }
    for (int live = count; live > 0;) {
        for (int l = 0; l < count; ++l) {
            if (b->done[l]) continue;
            b->lane = l;
            swapcontext(&b->sched, &b->ctx[l]);
            if (b->done[l]) --live;
        }
        // the lanes still running all wait at their n-th block-wide operation (else the values they
        // exchange pair the wrong operations: warp-lang requires every lane to reach each one).
        // A lane that has returned has left the block, as in warp-lang: the later operations
        // leave it out (cpu_lane_present)
        int first = -1;
        for (int l = 0; l < count; ++l) {
            if (b->done[l]) continue;
            if (first < 0) first = l;
            else if (b->syncs[l] != b->syncs[first]) b->diverged = true;
        }
    }
}

// The entry of a kernel built for blocks of `width` lanes: [begin, end) counts blocks.
inline void cpu_blocks_launch(int width, cpu_lane_fn fn, const void* args, const void* bounds, int64 size,
                              int64 begin, int64 end)
{
    cpu_block* b = cpu_block_state(width);
    if (!b) {      // no memory for the lanes' stacks: run no block rather than crash
        std::fprintf(stderr, "warp_interactive: cannot reserve stacks for %d CPU block lanes\n", width);
        return;
    }
    b->fn = fn, b->args = args, b->bounds = bounds;
    b->diverged = false;
    cpu_block_current() = b;
    for (int64 blk = begin; blk < end; ++blk) {
        b->first = blk * width;
        const int64 left = size - b->first;
        cpu_block_run(b, int(left < width ? left : width));
    }
    cpu_block_current() = nullptr;
    if (b->diverged)
        std::fprintf(stderr, "warp_interactive: in a cooperative CPU block (block_dim=%d) some lanes did not reach "
                             "a block-wide tile operation (wp.tile, tile_from_thread, tile_atomic_add, a per-lane "
                             "tile write) that others reached, e.g. one inside a branch on the lane: its results "
                             "are undefined, as in warp-lang\n", width);
}

// whether lane l takes part in the block's operations: within a partial block's lanes, and not
// returned (warp-lang's CPU blocks: a lane that exits early has left the block; its slot reads zero)
inline bool cpu_lane_present(const cpu_block* b, int l)
{
    return l < b->count && !b->done[l];
}

// a block-wide barrier: the running lane waits until every other lane has reached one too
inline void block_sync()
{
    cpu_block* b = cpu_block_current();
    if (b) {
        ++b->syncs[b->lane];
        swapcontext(&b->ctx[b->lane], &b->sched);
    }
}
inline int32 block_lane()
{
    cpu_block* b = cpu_block_current();
    return b ? b->lane : 0;
}
inline int32 block_width()
{
    cpu_block* b = cpu_block_current();
    return b ? b->width : 1;
}

// A partial cooperative block (the launch's last block, `count < width` lanes): warp-lang's CPU
// tiles give lane l the elements whose row-major index k has k % width == l, and the missing
// lanes' elements are left out of reductions and scans (they were never loaded there). `absent(k)`
// says whether element k is such an element; outside a partial block, never.
struct block_absent_t {
    int width, count;
    WPI_FUNC bool any() const { return width != 0; }
    WPI_FUNC bool operator()(int k) const { return width != 0 && k % width >= count; }
};
inline block_absent_t block_absent()
{
    cpu_block* b = cpu_block_current();
    if (b && b->count < b->width) return {b->width, b->count};
    return {0, 0};
}

// A run-time error of a cooperative block (an empty axis slice of a reduction without an
// identity): recorded like a failed bounds check and raised by the runtime after the launch.
inline void record_block_error(const char* message)
{
    if (__atomic_exchange_n(&g_error.set, 1, __ATOMIC_ACQ_REL)) return;
    snprintf(g_error.message, sizeof(g_error.message), "%s", message);
}
#elif !defined(WPI_CUDA_BLOCKS)
WPI_FUNC void block_sync() {}
WPI_FUNC int32 block_lane() { return 0; }
WPI_FUNC int32 block_width() { return 1; }
#endif

#if !defined(WPI_CPU_BLOCKS)    // CUDA: cooperative blocks (cuda_blocks.h) or one-thread blocks
struct block_absent_t {
    int width, count;
    WPI_FUNC bool any() const { return width != 0; }
    WPI_FUNC bool operator()(int k) const { return width != 0 && k % width >= count; }
};
WPI_FUNC block_absent_t block_absent()
{
#if defined(WPI_CUDA_BLOCKS)
    if (cuda_block_active() && int(blockDim.x) < block_width()) return {block_width(), int(blockDim.x)};
#endif
    return {0, 0};
}
WPI_FUNC void record_block_error(const char* message) { ::printf("%s\n", message); }
#endif

// Every lane's `n` values into `out` (n x W, lane fastest: lane l's k-th value at [k * W + l]).
// Outside a block (a width of one, or CUDA's one-thread blocks) this thread is lane 0.
template <typename T>
WPI_FUNC void block_gather(const T* mine, int n, T* out, int W)
{
#if defined(WPI_CPU_BLOCKS)
    cpu_block* b = cpu_block_current();
    if (b && W > 1) {
        T* buf = (T*)cpu_block_scratch(b, sizeof(T) * size_t(n) * size_t(W));
        for (int k = 0; k < n; ++k) buf[k * W + b->lane] = mine[k];
        block_sync();      // every lane has written its values
        for (int k = 0; k < n * W; ++k) out[k] = cpu_lane_present(b, k % W) ? buf[k] : T{};   // missing lanes: zero
        block_sync();      // every lane has read them: the scratch may be reused
        return;
    }
#elif defined(WPI_CUDA_BLOCKS)
    if (cuda_block_active() && W > 1) return cuda_block_gather(mine, n, out, W);
#endif
    for (int k = 0; k < n * W; ++k) out[k] = T{};
    for (int k = 0; k < n; ++k) out[k * W] = mine[k];
}

// `value` of lane `src` in every lane (tile_from_thread; the result of an operation one lane ran)
template <typename T>
WPI_FUNC T block_broadcast(const T& value, int src)
{
#if defined(WPI_CPU_BLOCKS)
    cpu_block* b = cpu_block_current();
    if (b) {
        T* buf = (T*)cpu_block_scratch(b, sizeof(T));
        if (b->lane == src) std::memcpy((void*)buf, (const void*)&value, sizeof(T));
        block_sync();
        // a lane outside the block (a partial block's missing lane, or one that returned) gives
        // zero, as on CUDA: its slot was never written (else the scratch's stale bytes)
        T r = T{};
        if (src >= 0 && cpu_lane_present(b, src)) std::memcpy((void*)&r, (const void*)buf, sizeof(T));
        block_sync();
        return r;
    }
#elif defined(WPI_CUDA_BLOCKS)
    if (cuda_block_active()) return cuda_block_broadcast(value, src);
#endif
    (void)src;
    return value;
}

// Per-lane writes into a tile (`t[lane] = x`, tile_scatter_add/masked, `t[i] op= x`): every lane
// changed its own copy `mine` of the block's tile `old`; all lanes then get `old` with every lane's
// changes, in lane order. `mode` 0 (writes): an element a lane changed takes its value, the last
// such lane winning; 1 (adds): old + the sum of the lanes' increments; 2, 3, 4 (`&=`, `|=`, `^=`:
// warp-lang's shared tiles apply each lane's operation atomically): the lanes' copies combined
// bit by bit (and / or of the copies, old ^ the xor of the lanes' changes), which is the same
// element by element for integers and vectors or matrices of them. Outside a block: `mine`.
template <typename Tl>
WPI_FUNC Tl block_merge_tile(const Tl& old, const Tl& mine, int mode)
{
#if defined(WPI_CPU_BLOCKS)
    cpu_block* b = cpu_block_current();
    if (b) {
        typedef typename Tl::value_type T;
        Tl* buf = (Tl*)cpu_block_scratch(b, sizeof(Tl) * size_t(b->count));
        std::memcpy((void*)&buf[b->lane], (const void*)&mine, sizeof(Tl));
        block_sync();
        Tl r = old;
        if (mode >= 2) {
            unsigned char* rb = (unsigned char*)&r;
            const unsigned char* ob = (const unsigned char*)&old;
            for (int l = 0; l < b->count; ++l) {
                if (!cpu_lane_present(b, l)) continue;
                const unsigned char* lb = (const unsigned char*)&buf[l];
                for (size_t k = 0; k < sizeof(Tl); ++k)
                    rb[k] = mode == 2 ? (rb[k] & lb[k]) : mode == 3 ? (rb[k] | lb[k]) : (rb[k] ^ (lb[k] ^ ob[k]));
            }
        } else {
            for (int l = 0; l < b->count; ++l)
                for (int k = 0; k < Tl::size && cpu_lane_present(b, l); ++k) {
                    if (std::memcmp((const void*)&buf[l].data[k], (const void*)&old.data[k], sizeof(T)) == 0) continue;
                    r.data[k] = mode == 1 ? add(r.data[k], sub(buf[l].data[k], old.data[k])) : buf[l].data[k];
                }
        }
        block_sync();
        return r;
    }
#elif defined(WPI_CUDA_BLOCKS)
    if (cuda_block_active()) return cuda_block_merge_tile(old, mine, mode);
#endif
    (void)old, (void)mode;
    return mine;
}

// Adjoints in a cooperative block: each lane's adjoint of a tile holds its own part (what its own
// uses of the tile contributed), so gradients added to arrays sum to the block's; where a gather
// hands each lane its element, the parts are summed first. (One lane: the adjoint itself.)
template <typename Tl>
WPI_FUNC Tl block_adjoint_sum(const Tl& mine)
{
    const Tl zero = {};
    return block_merge_tile(zero, mine, 1);
}

}  // namespace wp
