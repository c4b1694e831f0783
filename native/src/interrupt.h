// warp_interactive native runtime: Ctrl-C inside a running CPU kernel (no Python dependency).
//
// The launch engine can only stop between chunks; one thread running a loop of 10^10 iterations
// never reaches a chunk boundary. So generated CPU code polls (native/include/.../core.h):
//   * on the back-edge of every dynamic loop, every 1024 iterations: poll_stop(), which returns
//     1 when the launch this thread works for was interrupted; the function then returns at once;
//   * after a call of a user function that polls: the stopping flag (one load, almost always 0),
//     then poll_stop() when it is set, so the caller returns too instead of using a value the
//     callee left unfinished.
// A generated module gets the two addresses when it is loaded (wpi_set_interrupt_hooks).
//
// Interruptible launches (those from Python's main thread, module.cpp) run under a StopScope:
// the SIGINT count when they started. The main thread finds its scope in a plain global (no
// thread-local access on the launch path: the dim=1 launch costs ~0.25 us in all); the pool's
// workers take the scope of the job they join. poll_stop() on any other thread (a launch from
// another Python thread) always says 0.
//
// The SIGINT handler: the first poll_stop() of a launch arms it (one sigaction query, so launches
// that never poll make no system call): if SIGINT's handler is a function that is not ours
// (Python's, re-installed by IPython around each cell), ours replaces it and chains to it, so
// Python still sees every Ctrl-C (PyErr_CheckSignals then raises KeyboardInterrupt). A handler
// of SIG_IGN or SIG_DFL is left alone (nothing to chain to: Ctrl-C is ignored, or ends the
// process, as before). Ours stays installed after the launch: it only counts signals, and
// Python's signal.signal() replaces it like any other handler.
#pragma once

#include <atomic>
#include <cstdint>

namespace wpi_native {

struct StopScope {
    uint64_t start = 0;                  // the SIGINT count when the launch began
    mutable std::atomic<int> armed{0};   // the handler was checked during this launch
};

extern std::atomic<uint64_t> g_sigint_count;   // SIGINTs our handler saw
extern int g_stopping;                          // see stopping_flag()
extern const StopScope* g_main_scope;           // the main thread's launch (main thread only)

inline uint64_t sigint_count() { return g_sigint_count.load(std::memory_order_relaxed); }

// Whether a SIGINT arrived since `scope` began (a relaxed load; between chunks).
inline bool interrupted(const StopScope* scope) { return scope && sigint_count() != scope->start; }

// The thread Python calls its main thread (module.cpp; again after fork()).
void set_main_thread(unsigned long pthread_id);

// The scope of the pool worker calling it (nullptr: none).
void set_worker_scope(const StopScope* scope);

// What generated code calls (see above); 1: stop. Sets the stopping flag when it says 1.
int poll_stop();

// The flag generated code reads after calls of polling functions: nonzero once some poll_stop()
// said 1, until clear_stopping().
inline const int* stopping_flag() { return &g_stopping; }
inline bool stopping() { return __atomic_load_n(&g_stopping, __ATOMIC_RELAXED) != 0; }
inline void clear_stopping() { __atomic_store_n(&g_stopping, 0, __ATOMIC_RELAXED); }

}  // namespace wpi_native
