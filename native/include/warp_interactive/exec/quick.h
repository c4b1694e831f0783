// The quick tier's switch (build/quick_tier.py). Depends on core.h.
//
// A large cold CPU build runs first from units compiled at -O0 (the quick flags define
// WPI_QUICK_TIER), while the same units build at -O3 in the background; both compute the same
// bits. Every entry of a quick unit starts with WPI_QUICK_SWITCH, once per chunk of lanes the
// launcher hands it:
//   * once the background thread has loaded the optimised unit and put the optimised entry's
//     address in the entry's slot (`<entry>_optimised`, set through wpi_quick_set), the chunk
//     runs there: a launch that is running switches between two chunks (same bits either way);
//   * else, while the job's budget of quick time lasts (every thread's time in quick chunks,
//     summed), the chunk runs the quick code, timed;
//   * else, and at once for a kernel whose per-lane work has no bound (a dynamic loop, in it or
//     in a function it calls: one lane could run for minutes at -O0), the chunk waits for the
//     optimised entry (polling Ctrl-C every millisecond), the compilers then have the cores.
// So no launch runs more than the budget at -O0 beyond what one chunk of a loop-free kernel
// costs (the launcher aims chunks at 0.25 ms). A job whose optimised build failed (state 2), or a
// unit with no job, runs the quick code. Without WPI_QUICK_TIER both macros are empty.
#pragma once

#if defined(WPI_QUICK_TIER) && !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#include <time.h>

namespace {
// Mirrors quick_tier.py's _FIELDS: keep in sync. Written by Python (ctypes) and here.
struct wpi_quick_job_t {
    int64_t used_ns;           // time spent in quick chunks (all threads)
    int64_t budget_ns;         // < 0: never wait (tests comparing the quick code's bits)
    int64_t state;             // 0: the optimised build runs; 1: done; 2: failed
    int64_t quick_chunks;      // chunks run by the quick code
    int64_t optimised_chunks;  // chunks this unit forwarded to the optimised code
    int64_t waits;             // chunks that waited for the optimised code
};
wpi_quick_job_t* wpi_quick_job = nullptr;

inline int64_t wpi_quick_now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void wpi_quick_skip(const void*, const void*, int64_t, int64_t) {}   // an interrupted wait

inline int64_t wpi_quick_load(const int64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline void wpi_quick_add(int64_t* p, int64_t v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }

// The entry this chunk runs on: the optimised one, wpi_quick_skip (Ctrl-C during a wait), or
// nullptr: the quick code itself.
__attribute__((noinline)) wpi_entry_fn wpi_quick_next(void** slot, int unbounded)
{
    void* fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    wpi_quick_job_t* job = __atomic_load_n(&wpi_quick_job, __ATOMIC_ACQUIRE);
    if (fn == nullptr && job != nullptr && wpi_quick_load(&job->state) == 0 &&
        wpi_quick_load(&job->budget_ns) >= 0 &&
        (unbounded || wpi_quick_load(&job->used_ns) >= wpi_quick_load(&job->budget_ns))) {
        wpi_quick_add(&job->waits, 1);
        const timespec ms = {0, 1000000};
        while ((fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE)) == nullptr && wpi_quick_load(&job->state) == 0) {
            if (wpi_poll_stop()) return &wpi_quick_skip;   // the launch stops (interrupt.h)
            nanosleep(&ms, nullptr);
        }
    }
    if (job != nullptr) wpi_quick_add(fn ? &job->optimised_chunks : &job->quick_chunks, 1);
    return (wpi_entry_fn)fn;
}

// Adds the quick chunk's time to the job's budget use when it ends.
struct wpi_quick_timer {
    int64_t t0 = wpi_quick_now();
    ~wpi_quick_timer()
    {
        if (wpi_quick_job_t* job = __atomic_load_n(&wpi_quick_job, __ATOMIC_ACQUIRE))
            wpi_quick_add(&job->used_ns, wpi_quick_now() - t0);
    }
};
}  // namespace

extern "C" WPI_EXPORT void wpi_set_quick_job(void* job)
{
    __atomic_store_n(&wpi_quick_job, (wpi_quick_job_t*)job, __ATOMIC_RELEASE);
}
extern "C" WPI_EXPORT void wpi_quick_set(void** slot, void* fn) { __atomic_store_n(slot, fn, __ATOMIC_RELEASE); }

#define WPI_QUICK_SLOT(entry) extern "C" WPI_EXPORT void* entry##_optimised; void* entry##_optimised = nullptr;
#define WPI_QUICK_SWITCH(entry, unbounded)                                                        \
    if (wpi_entry_fn _wpi_o = wpi_quick_next(&entry##_optimised, unbounded)) {                  \
        _wpi_o(args, dim, begin, end);                                                            \
        return;                                                                                   \
    }                                                                                             \
    wpi_quick_timer _wpi_quick_timer
#else
#define WPI_QUICK_SLOT(entry)
#define WPI_QUICK_SWITCH(entry, unbounded) (void)0
#endif
