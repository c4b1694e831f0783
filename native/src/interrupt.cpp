// warp_interactive native runtime: Ctrl-C inside a running CPU kernel. See interrupt.h.

#include "interrupt.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>

namespace wpi_native {

std::atomic<uint64_t> g_sigint_count{0};
int g_stopping = 0;                      // __atomic builtins: generated code reads it as an int
const StopScope* g_main_scope = nullptr;

namespace {

std::atomic<unsigned long> g_main_thread{0};
thread_local const StopScope* t_worker_scope = nullptr;

// The handler ours replaced, called after counting. Written only while ours is not installed
// (before the sigaction that installs it), read by the handler.
struct sigaction g_chained;

void on_sigint(int sig, siginfo_t* info, void* context) {
    const int saved_errno = errno;
    g_sigint_count.fetch_add(1, std::memory_order_relaxed);
    if (g_chained.sa_flags & SA_SIGINFO) {
        if (g_chained.sa_sigaction) g_chained.sa_sigaction(sig, info, context);
    } else if (g_chained.sa_handler != SIG_DFL && g_chained.sa_handler != SIG_IGN) {
        g_chained.sa_handler(sig);
    }
    errno = saved_errno;
}

bool is_ours(const struct sigaction& sa) {
    return (sa.sa_flags & SA_SIGINFO) && sa.sa_sigaction == &on_sigint;
}

// Installs on_sigint in front of SIGINT's current handler when that is a function.
void arm_handler() {
    struct sigaction cur;
    if (sigaction(SIGINT, nullptr, &cur) != 0 || is_ours(cur)) return;
    if (!(cur.sa_flags & SA_SIGINFO) && (cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN))
        return;
    g_chained = cur;
    struct sigaction ours = cur;   // same mask and flags (Python: SA_ONSTACK), our function
    ours.sa_flags |= SA_SIGINFO;
    ours.sa_sigaction = &on_sigint;
    sigaction(SIGINT, &ours, nullptr);
}

const StopScope* current_scope() {
    if (const StopScope* s = t_worker_scope) return s;
    if ((unsigned long)pthread_self() == g_main_thread.load(std::memory_order_relaxed))
        return g_main_scope;   // written by this same thread only
    return nullptr;
}

}  // namespace

void set_main_thread(unsigned long pthread_id) {
    g_main_thread.store(pthread_id, std::memory_order_relaxed);
}

void set_worker_scope(const StopScope* scope) { t_worker_scope = scope; }

int poll_stop() {
    const StopScope* s = current_scope();
    if (s == nullptr) return 0;
    if (s->armed.load(std::memory_order_relaxed) == 0 && s->armed.exchange(1) == 0) arm_handler();
    if (sigint_count() == s->start) return 0;
    __atomic_store_n(&g_stopping, 1, __ATOMIC_RELAXED);
    return 1;
}

}  // namespace wpi_native
