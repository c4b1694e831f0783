// A minimal fork-join helper for the geometry builders: split [0, n) into one contiguous chunk
// per worker thread. Builders run with the GIL released, so plain std::thread is enough here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace wpi_geometry {

inline int worker_count(int64_t n, int64_t min_per_thread = 1 << 14)
{
    const int hw = std::max(1u, std::thread::hardware_concurrency());
    const int64_t by_size = std::max<int64_t>(1, n / min_per_thread);
    return int(std::min<int64_t>(hw, by_size));
}

// fn(worker, begin, end) for each worker's chunk; the calling thread runs chunk 0.
template <typename Fn>
void parallel_chunks(int64_t n, int workers, Fn fn)
{
    if (workers <= 1 || n <= 1) {
        fn(0, int64_t(0), n);
        return;
    }
    std::vector<std::thread> threads;
    const int64_t step = (n + workers - 1) / workers;
    for (int w = 1; w < workers; ++w) {
        const int64_t b = std::min(n, w * step), e = std::min(n, (w + 1) * step);
        threads.emplace_back([=] { fn(w, b, e); });
    }
    fn(0, int64_t(0), std::min(n, step));
    for (auto& t : threads) t.join();
}

}  // namespace wpi_geometry
