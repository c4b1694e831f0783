// Runs the CUDA block primitives of native/include/warp_interactive/exec/cuda_blocks.h on the host:
// each lane a std::thread (all running at once, as a GPU block's threads), __syncthreads() a
// std::barrier, the block's shared memory plain globals. tests/cuda_backend/test_cuda_blocks_emulated.py writes
// the header with its two device-only lines rewritten (the scratch's declaration, the
// %dynamic_smem_size read) as "cuda_blocks_emulated.h" and builds this file with
// -fsanitize=thread: a missing barrier between a write and a read of the scratch is a data race
// there. Every result is checked against a brute-force answer; prints "ok <checks>" or FAIL lines.
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

struct emu_dim3 {
    unsigned x = 0, y = 1, z = 1;
};
thread_local emu_dim3 threadIdx;
emu_dim3 blockDim;
unsigned emu_dynamic_smem = 0;
std::barrier<>* emu_barrier = nullptr;
inline void __syncthreads() { emu_barrier->arrive_and_wait(); }

#define __CUDACC__ 1
#define WPI_FUNC inline
#define __shared__ static
namespace wp {
typedef int32_t int32;
typedef uint32_t uint32;
typedef int64_t int64;
template <typename T> T add(T a, T b) { return a + b; }
template <typename T> T sub(T a, T b) { return a - b; }
template <typename T, int N> struct tile {
    typedef T value_type;
    static const int size = N;
    T data[N];
};
template <typename T, int CAP> struct stack {
    T data[CAP];
    int32 count;
};
}  // namespace wp
#include "cuda_blocks_emulated.h"

static int checks = 0, failures = 0;
static void expect(bool ok, const char* what, int width, int threads, int lane, long where)
{
    ++checks;
    if (!ok && failures++ < 20)
        std::printf("FAIL %s: width %d, %d threads, lane %d, at %ld\n", what, width, threads, lane, where);
}

// `threads` lanes of a block of `width` (fewer: a partial last block), each running body(lane)
template <typename F>
static void run_block(int width, int threads, bool cooperative, F body)
{
    std::barrier<> bar(threads);
    emu_barrier = &bar;
    blockDim.x = unsigned(threads);
    emu_dynamic_smem = cooperative ? WPI_CUDA_BLOCK_SCRATCH : 0;
    std::vector<std::thread> lanes;
    for (int l = 0; l < threads; ++l)
        lanes.emplace_back([=] {
            threadIdx.x = unsigned(l);
            if (cooperative) wp::cuda_block_begin(width);
            body(l);
        });
    for (auto& t : lanes) t.join();
}

static void check_queries(int width, int threads)
{
    std::vector<int> lane(threads), w(threads);
    run_block(width, threads, true, [&](int l) { lane[l] = wp::block_lane(), w[l] = wp::block_width(); });
    for (int l = 0; l < threads; ++l) expect(lane[l] == l && w[l] == width, "lane/width", width, threads, l, 0);
    run_block(width, threads, false, [&](int l) { lane[l] = wp::block_lane(), w[l] = wp::block_width(); });
    for (int l = 0; l < threads; ++l) expect(lane[l] == 0 && w[l] == 1, "one-lane query", width, threads, l, 0);
}

// n doubles per lane: n * width * 8 bytes, more than the scratch for the larger cases (rounds)
static void check_gather(int width, int threads, int n)
{
    std::vector<std::vector<double>> out(threads, std::vector<double>(size_t(n) * width, -1.0));
    run_block(width, threads, true, [&](int l) {
        std::vector<double> mine(n);
        for (int k = 0; k < n; ++k) mine[k] = 1000.0 * k + l;
        wp::cuda_block_gather(mine.data(), n, out[l].data(), width);
    });
    for (int l = 0; l < threads; ++l)
        for (int k = 0; k < n; ++k)
            for (int m = 0; m < width; ++m)
                expect(out[l][size_t(k) * width + m] == (m < threads ? 1000.0 * k + m : 0.0), "gather", width,
                       threads, l, long(k) * width + m);
}

typedef wp::tile<float, 6000> big_tile;     // 24000 bytes: two rounds of the scratch

static void check_broadcast(int width, int threads, int src)
{
    std::vector<big_tile> got(threads);
    run_block(width, threads, true, [&](int l) {
        big_tile mine;
        for (int k = 0; k < big_tile::size; ++k) mine.data[k] = float(l * 100000 + k);
        got[l] = wp::cuda_block_broadcast(mine, src);
    });
    for (int l = 0; l < threads; ++l)
        for (int k = 0; k < big_tile::size; ++k) {
            const float want = src >= 0 && src < threads ? float(src * 100000 + k) : 0.0f;
            if (got[l].data[k] != want) { expect(false, "broadcast", width, threads, l, k); break; }
        }
    ++checks;
}

typedef wp::tile<int, 5000> merge_tile;     // 20000 bytes: two chunks

// mode: 0 writes (the last lane in lane order wins), 1 adds, 2/3/4 `&=`/`|=`/`^=` (bit by bit)
static void check_merge(int width, int threads, int mode)
{
    const bool sum = mode == 1;
    std::vector<merge_tile> got(threads);
    merge_tile old;
    for (int k = 0; k < merge_tile::size; ++k) old.data[k] = k % 11;
    auto change = [&](merge_tile& t, int l) {     // lane l's writes or increments
        const int spots[3] = {0, (l * 7) % merge_tile::size, merge_tile::size - 1 - l};
        for (int s = 0; s < 3; ++s) {
            int& v = t.data[spots[s]];
            v = mode == 0 ? 100 + l : mode == 1 ? v + l + 1 : mode == 2 ? v & ~(1 << (l % 5)) :
                mode == 3 ? v | (16 << (l % 7)) : v ^ (1 << (l % 9));
        }
    };
    run_block(width, threads, true, [&](int l) {
        merge_tile mine = old;
        change(mine, l);
        got[l] = wp::cuda_block_merge_tile(old, mine, mode);
    });
    merge_tile want = old;      // brute force: lane order, the last writer winning or every increment added
    for (int l = 0; l < threads; ++l) {
        merge_tile mine = old;
        change(mine, l);
        for (int k = 0; k < merge_tile::size; ++k)
            if (mode == 2) want.data[k] &= mine.data[k];
            else if (mode == 3) want.data[k] |= mine.data[k];
            else if (mode == 4) want.data[k] ^= mine.data[k] ^ old.data[k];
            else if (mine.data[k] != old.data[k]) want.data[k] = sum ? want.data[k] + mine.data[k] - old.data[k] : mine.data[k];
    }
    for (int l = 0; l < threads; ++l)
        for (int k = 0; k < merge_tile::size; ++k)
            if (got[l].data[k] != want.data[k]) { expect(false, "merge", width, threads, l, mode * 100000L + k); break; }
    ++checks;
}

static void check_stack_push(int width, int threads)
{
    typedef wp::stack<int, 10> st;
    std::vector<st> got(threads);
    std::vector<int> slots(threads);
    run_block(width, threads, true, [&](int l) {
        st s = {};
        s.count = 2;
        wp::cuda_tile_stack_push(s, l * 10, l % 3 != 1, slots[l], got[l]);
    });
    st want = {};
    want.count = 2;
    std::vector<int> want_slot(threads, -1);
    for (int l = 0; l < threads; ++l)
        if (l % 3 != 1 && want.count < 10) want_slot[l] = want.count, want.data[want.count++] = l * 10;
    for (int l = 0; l < threads; ++l) {
        expect(slots[l] == want_slot[l] && got[l].count == want.count, "stack slot/count", width, threads, l, 0);
        for (int k = 2; k < want.count; ++k) expect(got[l].data[k] == want.data[k], "stack value", width, threads, l, k);
    }
}

int main()
{
    const int shapes[][2] = {{1, 1}, {3, 3}, {32, 32}, {64, 64}, {64, 37}, {32, 1}, {96, 96}};
    for (const auto& s : shapes) {
        const int width = s[0], threads = s[1];
        check_queries(width, threads);
        check_gather(width, threads, 1);
        check_gather(width, threads, 40);    // 40 * 64 * 8 bytes = 20480: two rounds
        check_broadcast(width, threads, threads - 1);
        check_broadcast(width, threads, 0);
        check_broadcast(width, threads, threads);     // outside the block: zeros
        for (int mode = 0; mode <= 4; ++mode) check_merge(width, threads, mode);
        check_stack_push(width, threads);
    }
    if (failures) return 1;
    std::printf("ok %d\n", checks);
    return 0;
}
