// warp_interactive native runtime: CPU launch engine (no Python dependency).
//
// parallel_for() runs a generated kernel entry point
//     void entry(const void* args, const void* bounds, int64_t begin, int64_t end)
// over the index range [0, total), cut into chunks [begin, end), on the calling
// thread plus a persistent pool of worker threads.  See thread_pool.cpp for the
// scheduling policy and the synchronisation protocol.
#pragma once

#include <cstdint>

#include "interrupt.h"

namespace wpi_native {

using entry_fn = void (*)(const void* args, const void* bounds, int64_t begin, int64_t end);

// Polled by the *calling* thread between two of its own chunks, at most every
// kInterruptCheckIntervalNs.  No lock of the runtime is held while it runs, but
// the launch may hold the pool (so the hook must not start a parallel launch
// itself; a nested launch from the hook runs serially).  Returns true to stop
// the launch: no further chunks are handed out, chunks already running finish.
using interrupt_hook = bool (*)(void* ctx);

constexpr int64_t kInterruptCheckIntervalNs = 20 * 1000 * 1000;  // 20 ms

// Number of CPUs this process may run on (affinity mask), at least 1.
int cpu_count();

// Size of the pool including the calling thread (n - 1 workers).  n <= 0 resets
// to cpu_count().  Waits for a running parallel launch to finish.
void set_num_threads(int n);
int get_num_threads();

// Runs entry over [0, total).
//   nthreads: threads to use including the caller; <= 0 means get_num_threads(),
//             larger values are capped at get_num_threads().
//   chunk:    > 0: fixed chunks [k*chunk, min((k+1)*chunk, total)).
//             <= 0: automatic, time-targeted chunk sizes (see thread_pool.cpp).
//   scope:    an interruptible launch (interrupt.h), or nullptr: the pool's workers run its
//             chunks under it (generated code polls it; the calling thread, Python's main
//             thread, has it as g_main_scope), and a SIGINT since it began stops handing out
//             chunks.
// Returns false if the hook or a SIGINT stopped the launch (some indices were then not run),
// true if every index in [0, total) was run exactly once (a polling kernel may still have
// returned early: see interrupt.h's stopping()).
bool parallel_for(entry_fn fn, const void* args, const void* bounds, int64_t total, int nthreads,
                  int64_t chunk, interrupt_hook hook, void* hook_ctx,
                  const StopScope* scope = nullptr);

// 1 while the calling thread of a launch runs a chunk as the only launch in progress (no other
// launch and no pool worker can run meanwhile), else 0. Generated code reads it (core.h
// wpi_set_plain_flag): gradients then take their additions with plain reads and writes, not
// atomics (warp-lang's CPU atomics always are plain). A launch starting on another thread waits
// for such a chunk to end (at most one chunk, ~0.25 ms), and none is plain while it runs.
const int* plain_gradients_flag();

// Stops and joins the worker threads (if any; idle ones only: waits for a
// running parallel launch).  The next parallel launch recreates them.
void shutdown_pool();

}  // namespace wpi_native
