// Cooperative CUDA blocks: the GPU form of cpu_blocks.h. A kernel built for blocks of W lanes
// (Kernel.with_block_width) runs with W GPU threads per block, thread x being lane x: each thread
// runs the kernel body with its own thread index and its own copy of every tile, exactly as a CPU
// lane does, and the lanes meet only in the block-wide primitives below (the generated body is the
// same text on both targets; only these primitives differ).
//
// Every primitive is a fixed sequence of `__syncthreads()` whose count depends only on types and
// the block's size, never on a lane's data, so every thread of a block reaches each barrier the
// same number of times (warp-lang requires every lane to reach each block-wide operation). Values
// travel through the block's dynamic shared memory (WPI_CUDA_BLOCK_SCRATCH bytes, given by the
// launch: runtime/cuda/modules.py) in chunks: a writer phase, a barrier, a reader phase and a
// second barrier before the scratch is written again.
//
// A launch of a one-lane kernel passes no dynamic shared memory: that is how these primitives know
// they are outside a cooperative block (then every thread is lane 0 of a one-lane block, as before).
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WPI_CUDA_BLOCKS 1
// bytes of dynamic shared memory a cooperative launch gives each block (runtime/cuda/modules.py
// reads this line: one source of truth)
#define WPI_CUDA_BLOCK_SCRATCH 16384

namespace wp {

extern __shared__ __align__(16) unsigned char wpi_block_scratch[];

// the block's width W (the lanes of a full block): written by the entry, read by block_width()
WPI_FUNC int32& cuda_block_width_slot()
{
    __shared__ int32 width;
    return width;
}

WPI_FUNC bool cuda_block_active()
{
    unsigned bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    return bytes != 0;
}

// The cooperative entry's prologue (codegen/target.py): every thread calls it once.
WPI_FUNC void cuda_block_begin(int32 width)
{
    if (threadIdx.x == 0) cuda_block_width_slot() = width;
    __syncthreads();
}

WPI_FUNC void block_sync()
{
    if (cuda_block_active()) __syncthreads();    // uniform: the same for the whole launch
}
WPI_FUNC int32 block_lane() { return cuda_block_active() ? int32(threadIdx.x) : 0; }
// the lanes of a full block (a partial last block runs fewer threads: blockDim.x of them)
WPI_FUNC int32 block_width() { return cuda_block_active() ? cuda_block_width_slot() : 1; }

// Every lane's `n` values, visited by every lane in the order (value k, then lane l) as
// visit(k, l, value), through the scratch in rounds of whole values.
template <typename T, typename F>
WPI_FUNC void cuda_block_each(const T* mine, int n, F&& visit)
{
    static_assert(sizeof(T) <= WPI_CUDA_BLOCK_SCRATCH, "a value exchanged in a block must fit the scratch");
    T* buf = (T*)wpi_block_scratch;
    const int per = int(WPI_CUDA_BLOCK_SCRATCH / sizeof(T));
    const int lanes = int(blockDim.x), lane = int(threadIdx.x), total = n * lanes;
    for (int e0 = 0; e0 < total; e0 += per) {
        const int e1 = e0 + per < total ? e0 + per : total;
        for (int k = 0; k < n; ++k) {
            const int e = k * lanes + lane;
            if (e >= e0 && e < e1) buf[e - e0] = mine[k];
        }
        __syncthreads();    // every lane has written its values of this round
        for (int e = e0; e < e1; ++e) visit(e / lanes, e % lanes, (const T&)buf[e - e0]);
        __syncthreads();    // every lane has read them: the scratch may be written again
    }
}

// block_gather (cpu_blocks.h): lane l's k-th value at out[k * W + l]; a partial block's missing
// lanes give zero
template <typename T>
WPI_FUNC void cuda_block_gather(const T* mine, int n, T* out, int W)
{
    for (int k = 0; k < n * W; ++k) out[k] = T{};
    cuda_block_each(mine, n, [&](int k, int l, const T& v) {
        if (l < W) out[k * W + l] = v;
    });
}

// the copy unit of a raw exchange: 4-byte words where the type allows, else bytes
template <typename T, bool WORDS = (sizeof(T) % 4 == 0 && alignof(T) >= 4)>
struct cuda_block_unit { typedef unsigned char type; };
template <typename T>
struct cuda_block_unit<T, true> { typedef uint32 type; };

// block_broadcast: lane `src`'s `value` in every lane (a value of any size: in rounds of the
// scratch); a `src` outside the block gives zero
template <typename T>
WPI_FUNC T cuda_block_broadcast(const T& value, int src)
{
    typedef typename cuda_block_unit<T>::type U;
    const int units = int(sizeof(T) / sizeof(U)), per = int(WPI_CUDA_BLOCK_SCRATCH / sizeof(U));
    const bool valid = src >= 0 && src < int(blockDim.x);
    T r = T{};
    const U* from = (const U*)&value;
    U* to = (U*)&r;
    U* buf = (U*)wpi_block_scratch;
    for (int u0 = 0; u0 < units; u0 += per) {
        const int u1 = u0 + per < units ? u0 + per : units;
        if (int(threadIdx.x) == src)
            for (int u = u0; u < u1; ++u) buf[u - u0] = from[u];
        __syncthreads();
        if (valid)
            for (int u = u0; u < u1; ++u) to[u] = buf[u - u0];
        __syncthreads();
    }
    return r;
}

template <typename T>
WPI_FUNC bool cuda_block_same_bytes(const T& a, const T& b)
{
    const unsigned char* x = (const unsigned char*)&a;
    const unsigned char* y = (const unsigned char*)&b;
    for (int i = 0; i < int(sizeof(T)); ++i)
        if (x[i] != y[i]) return false;
    return true;
}

// block_merge_tile: every lane changed its copy `mine` of the block's tile `old`; every lane gets
// `old` with all lanes' changes applied in lane order (the last lane changing an element wins,
// or with `sum` every lane's increment is added), as the CPU merge does. The tile goes through the
// scratch in chunks of elements; within a chunk the lanes take turns (a barrier after each).
// (`mode` as block_merge_tile's in cpu_blocks.h: 0 writes, 1 adds, 2/3/4 `&=`/`|=`/`^=` combined bit
// by bit: each lane's copy and-ed / or-ed in, or its change xor-ed in)
template <typename T>
WPI_FUNC void cuda_block_bits(T& acc, const T& mine, const T& old, int mode)
{
    unsigned char* a = (unsigned char*)&acc;
    const unsigned char* m = (const unsigned char*)&mine;
    const unsigned char* o = (const unsigned char*)&old;
    for (int i = 0; i < int(sizeof(T)); ++i)
        a[i] = mode == 2 ? (a[i] & m[i]) : mode == 3 ? (a[i] | m[i]) : (a[i] ^ (m[i] ^ o[i]));
}
template <typename Tl>
WPI_FUNC Tl cuda_block_merge_tile(const Tl& old, const Tl& mine, int mode)
{
    typedef typename Tl::value_type T;
    static_assert(sizeof(T) <= WPI_CUDA_BLOCK_SCRATCH, "a tile element must fit the block's scratch");
    T* buf = (T*)wpi_block_scratch;
    const int per = int(WPI_CUDA_BLOCK_SCRATCH / sizeof(T));
    const int lanes = int(blockDim.x), lane = int(threadIdx.x);
    Tl r = old;
    for (int k0 = 0; k0 < Tl::size; k0 += per) {
        const int k1 = k0 + per < Tl::size ? k0 + per : Tl::size;
        if (lane == 0)
            for (int k = k0; k < k1; ++k) buf[k - k0] = old.data[k];
        __syncthreads();
        for (int l = 0; l < lanes; ++l) {
            if (l == lane)
                for (int k = k0; k < k1; ++k) {
                    if (mode >= 2) {
                        cuda_block_bits(buf[k - k0], mine.data[k], old.data[k], mode);
                        continue;
                    }
                    if (cuda_block_same_bytes(mine.data[k], old.data[k])) continue;
                    buf[k - k0] = mode == 1 ? add(buf[k - k0], sub(mine.data[k], old.data[k])) : mine.data[k];
                }
            __syncthreads();    // lane l's changes are in: the next lane applies its own on top
        }
        for (int k = k0; k < k1; ++k) r.data[k] = buf[k - k0];
        __syncthreads();        // every lane has read the chunk
    }
    return r;
}

// tile_stack_push (tile/gather_fft_stack.h): the pushing lanes' values appended in lane order, up to the
// capacity; each pushing lane gets its slot (-1 when full or not pushing), every lane the same stack
template <typename S, typename T>
WPI_FUNC void cuda_tile_stack_push(const S& s, const T& value, bool has_value, int32& slot, S& out)
{
    struct pushed {
        T value;
        int32 flag;
    };
    pushed mine;
    mine.value = value;
    mine.flag = has_value ? 1 : 0;
    const int cap = int(sizeof(s.data) / sizeof(s.data[0])), lane = int(threadIdx.x);
    out = s;
    slot = -1;
    cuda_block_each(&mine, 1, [&](int, int l, const pushed& p) {
        if (!p.flag || out.count >= cap) return;
        if (l == lane) slot = out.count;
        out.data[out.count++] = p.value;
    });
}

}  // namespace wp
#endif
