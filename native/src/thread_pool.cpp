// warp_interactive native runtime: CPU launch engine.
//
// Scheduling
// ----------
// A launch covers the index range [0, total).  Threads take chunks [begin, end)
// from one shared atomic cursor (`fetch_add`), so every index is handed out
// exactly once no matter how many threads take part or in which order.
//
//  * Trivial launches (total <= chunk, or total == 1 in automatic mode) are one
//    direct call of the entry on the calling thread: no clock read, no lock, no
//    hand-off.  This is the dim=1 fast path.
//  * Fixed chunks (chunk > 0): chunks are [k*chunk, min((k+1)*chunk, total)).
//    With more than one thread the pool is woken at once.
//  * Automatic chunks (chunk <= 0): the best chunk size depends on what one
//    index costs, which only the kernel knows, so it is measured instead of
//    guessed from `total`.  The calling thread starts alone with chunks of
//    1, 2, 4, ... indices and times them.  Once it has run for kProbeMinNs
//    (long enough for the clock to be meaningful) and the measured cost per
//    index predicts at least kEngageMinWorkNs of remaining work (several times
//    what waking and joining the workers costs), it wakes the pool; otherwise
//    the launch simply finishes on the calling thread.  So a cheap dim=1000
//    kernel never pays for a thread hand-off, while a kernel whose indices take
//    milliseconds each is spread over all threads even at dim=8, which a rule
//    like "at least 1024 indices per chunk" would run serially.
//    Every thread then keeps its own chunk size aimed at kTargetChunkNs of work
//    (0.25 ms: the atomic grab and two clock reads per chunk cost ~0.1% of
//    that, and it keeps the time between interrupt checks and the load
//    imbalance at the end of a launch small), and no chunk is larger than
//    1/(2*threads) of what is left (guided scheduling), so the last chunks are
//    small and all threads finish at about the same time.
//    Automatic chunk boundaries vary from run to run; each index still runs
//    exactly once.
//
// Pool protocol
// -------------
// Parallel launches are serialised by g_launch_mutex (launches from several
// Python threads at once simply queue).  The launching thread publishes the
// job, the number of helpers it wants (`wanted_`) and a new generation under
// the pool mutex, then wakes workers.  A worker joins only while `wanted_ > 0`,
// under the pool mutex, and counts itself in `active_`.  When the caller has
// no chunks left it sets `wanted_ = 0` (so a worker that wakes late cannot join
// a finished job, or read a job that is about to be replaced) and waits until
// `active_` is 0: then every chunk has completed and no worker touches the job,
// the cursor or the caller's memory any more, and the next launch may reuse
// them.  Correctness never depends on workers showing up: the caller alone
// drains the cursor if it has to.
// Waiting is sleep-based (condition variables), with one exception for latency:
// after a job a worker watches the generation counter for kWorkerSpinNs before
// it sleeps, and the caller spins up to kFinishSpinNs for the last workers, so
// back-to-back launches (a simulation loop) avoid most futex wake-ups.  An idle
// process therefore uses no CPU beyond 50 us after its last launch.
//
// Interrupts
// ----------
// Only the calling thread polls the interrupt hook, between its own chunks and
// at most every kInterruptCheckIntervalNs.  When the hook says stop, the cursor
// is moved to the end (no new chunks are handed out), chunks already running
// finish, and parallel_for returns false.  An interruptible launch also has a
// StopScope (interrupt.h): every thread running its chunks works under it, so a
// generated kernel's loops see a SIGINT and return early (a chunk of a kernel
// that loops ends within ~1024 iterations of it), and no thread takes another
// chunk once it arrived.
//
// Process lifetime
// ----------------
// Worker threads block all asynchronous signals (so SIGINT reaches the Python
// main thread) and are never joined at exit: the pool and its mutex are heap
// objects that are deliberately leaked, so no destructor of a joinable
// std::thread runs during static destruction and exit() is never held up.
// In a child after fork() the workers do not exist; an atfork handler drops
// (leaks) the parent's pool and mutex and the next launch creates new ones.

#include "thread_pool.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace wpi_native {
namespace {

// ---- tuning (see the header comment) ----------------------------------------
constexpr int64_t kTargetChunkNs = 250 * 1000;     // aim of one automatic chunk
constexpr int64_t kLaneBlock = 8;                   // codegen/target.py CPU_LANES
constexpr int64_t kProbeMinNs = 3 * 1000;          // serial time before trusting the estimate
constexpr int64_t kEngageMinWorkNs = 20 * 1000;    // remaining work that justifies waking the pool
constexpr int64_t kMaxAutoChunk = int64_t(1) << 24;
constexpr int64_t kFinishSpinNs = 50 * 1000;       // caller spins this long before sleeping at the end
constexpr int64_t kWorkerSpinNs = 50 * 1000;       // idle workers spin this long before sleeping
constexpr int kMaxThreads = 1024;

inline int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);  // vDSO, ~20 ns
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

// New automatic chunk size after `n` indices took `dt` ns: aim at
// kTargetChunkNs, shrink at once, grow at most 2x per chunk (one short timing
// must not cause a huge chunk).
inline int64_t adapt_chunk(int64_t size, int64_t n, int64_t dt) {
    if (dt < 1) dt = 1;
    const double ideal = double(n) * double(kTargetChunkNs) / double(dt);
    int64_t next = ideal >= double(kMaxAutoChunk) ? kMaxAutoChunk : int64_t(ideal);
    next = std::min(next, 2 * size);
    return std::max<int64_t>(1, std::min(next, kMaxAutoChunk));
}

// Guided limit: at most 1/(2*participants) of the remaining indices.
inline int64_t guided(int64_t size, int64_t remaining, int participants) {
    const int64_t cap = remaining / (2 * int64_t(participants));
    return std::max<int64_t>(1, std::min(size, cap));
}

struct Job {
    entry_fn fn = nullptr;
    const void* args = nullptr;
    const void* bounds = nullptr;
    int64_t total = 0;
    int64_t fixed_chunk = 0;  // > 0: fixed chunk size; 0: automatic
    int64_t init_chunk = 1;   // automatic: starting chunk size for workers
    int participants = 1;     // caller + workers, for the guided limit
    const StopScope* scope = nullptr;   // an interruptible launch (interrupt.h)
};

// Takes one chunk from `cursor`; returns false when none is left.
inline bool grab(const Job& job, std::atomic<int64_t>& cursor, int64_t size, int64_t& begin,
                 int64_t& end) {
    int64_t n = size;
    if (job.fixed_chunk == 0) {
        n = guided(size, job.total - cursor.load(std::memory_order_relaxed), job.participants);
        // Kernels with a lanes body run whole blocks of kLaneBlock threads, the rest one by
        // one (several times slower each): automatic chunks of a block or more are whole blocks.
        if (n >= kLaneBlock) n -= n % kLaneBlock;
    }
    begin = cursor.fetch_add(n, std::memory_order_relaxed);
    if (begin >= job.total) return false;
    end = std::min(begin + n, job.total);
    return true;
}

class Pool {
  public:
    explicit Pool(int nworkers) {
        // Workers inherit the creator's signal mask: block asynchronous signals
        // so that the kernel delivers SIGINT & co. to a Python thread.  Faults
        // stay unblocked so a crash in a kernel still reaches faulthandler.
        sigset_t block, old;
        sigfillset(&block);
        for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) sigdelset(&block, s);
        pthread_sigmask(SIG_BLOCK, &block, &old);
        threads_.reserve(nworkers);
        for (int i = 0; i < nworkers; ++i) {
            try {
                threads_.emplace_back([this] { worker_main(); });
            } catch (...) {
                break;  // out of threads: run with fewer workers
            }
#if defined(__linux__)
            pthread_setname_np(threads_.back().native_handle(), "wpi-worker");
#endif
        }
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }

    ~Pool() {
        {
            std::lock_guard<std::mutex> lk(m_);
            stop_ = true;
        }
        cv_work_.notify_all();
        for (auto& t : threads_) t.join();
    }

    int size() const { return int(threads_.size()); }

    // Publishes `job` with the cursor at `start` and wakes `nworkers` helpers.
    void begin(const Job& job, int64_t start, int nworkers) {
        {
            std::lock_guard<std::mutex> lk(m_);
            job_ = job;
            cursor_.store(start, std::memory_order_relaxed);
            wanted_ = nworkers;
            active_.store(0, std::memory_order_relaxed);
            gen_.fetch_add(1, std::memory_order_relaxed);
        }
        if (nworkers >= size())
            cv_work_.notify_all();
        else
            for (int i = 0; i < nworkers; ++i) cv_work_.notify_one();
    }

    // Called by the launching thread once it found no chunk left (or stopped
    // the launch): returns when no worker is inside the job any more.
    void finish() {
        {
            std::lock_guard<std::mutex> lk(m_);
            wanted_ = 0;
        }
        // Workers usually finish their last chunk at about the same time as the
        // caller; a short spin avoids a futex sleep/wake round trip.
        if (active_.load(std::memory_order_acquire) != 0) {
            const int64_t until = now_ns() + kFinishSpinNs;
            while (active_.load(std::memory_order_acquire) != 0 && now_ns() < until) cpu_relax();
        }
        if (active_.load(std::memory_order_acquire) != 0) {
            std::unique_lock<std::mutex> lk(m_);
            cv_done_.wait(lk, [this] { return active_.load(std::memory_order_acquire) == 0; });
        }
    }

    // Stops handing out chunks of the current job.
    void cancel(int64_t total) { cursor_.store(total, std::memory_order_relaxed); }

    std::atomic<int64_t>& cursor() { return cursor_; }

  private:
    void worker_main() {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lk(m_);
        for (;;) {
            if (kWorkerSpinNs > 0 && seen != 0) {
                // Just finished a job: launches often come back to back, so
                // watch for the next one briefly before sleeping on the futex.
                lk.unlock();
                const int64_t until = now_ns() + kWorkerSpinNs;
                while (gen_.load(std::memory_order_relaxed) == seen && now_ns() < until) cpu_relax();
                lk.lock();
            }
            cv_work_.wait(lk, [&] { return stop_ || gen_.load(std::memory_order_relaxed) != seen; });
            if (stop_) return;
            seen = gen_.load(std::memory_order_relaxed);
            if (wanted_ <= 0) continue;  // job already has enough helpers, or is over
            --wanted_;
            active_.fetch_add(1, std::memory_order_relaxed);
            const Job job = job_;
            lk.unlock();

            set_worker_scope(job.scope);   // what the kernel's polls answer to
            int64_t size = job.fixed_chunk > 0 ? job.fixed_chunk : job.init_chunk;
            int64_t b, e;
            while (!interrupted(job.scope) && grab(job, cursor_, size, b, e)) {
                if (job.fixed_chunk > 0) {
                    job.fn(job.args, job.bounds, b, e);
                } else {
                    const int64_t t0 = now_ns();
                    job.fn(job.args, job.bounds, b, e);
                    size = adapt_chunk(size, e - b, now_ns() - t0);
                }
            }

            set_worker_scope(nullptr);
            // Release: the caller's acquire load of active_ == 0 sees all our writes.
            const bool last = active_.fetch_sub(1, std::memory_order_acq_rel) == 1;
            lk.lock();
            if (last) cv_done_.notify_all();
        }
    }

    alignas(64) std::atomic<int64_t> cursor_{0};
    alignas(64) std::atomic<int> active_{0};
    alignas(64) std::mutex m_;
    std::condition_variable cv_work_;
    std::condition_variable cv_done_;
    Job job_;
    std::atomic<uint64_t> gen_{0};  // written under m_; read without it while spinning
    int wanted_ = 0;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

// Heap objects, leaked on purpose (see "Process lifetime" above).
std::mutex* g_launch_mutex = new std::mutex;  // serialises parallel launches and pool changes
Pool* g_pool = nullptr;                       // guarded by *g_launch_mutex
std::atomic<int> g_num_threads{0};            // 0: not yet set, use cpu_count()
thread_local bool t_in_pool_launch = false;   // this thread holds the pool (hook re-entry)

// Plain gradient additions (thread_pool.h plain_gradients_flag). g_cpu_launches counts the
// launches in progress; g_plain_chunk is 1 while a chunk runs that its launch, the only one,
// started plain. A Dekker pair (seq_cst): a new launch counts itself, then waits until no plain
// chunk runs; a chunk sets the flag, then checks that it is still alone. So a plain chunk never
// overlaps another launch's work, and workers (woken after the serial chunks) never see it set.
int g_cpu_launches = 0;
int g_plain_chunk = 0;

struct CountedLaunch {
    CountedLaunch() {
        __atomic_add_fetch(&g_cpu_launches, 1, __ATOMIC_SEQ_CST);
        while (__atomic_load_n(&g_plain_chunk, __ATOMIC_SEQ_CST) != 0) cpu_relax();
    }
    ~CountedLaunch() { __atomic_sub_fetch(&g_cpu_launches, 1, __ATOMIC_SEQ_CST); }
};

// One chunk on a launch's calling thread, before the pool takes part: plain when it is alone.
inline void run_chunk(entry_fn fn, const void* args, const void* bounds, int64_t b, int64_t e) {
    bool plain = false;
    if (__atomic_load_n(&g_cpu_launches, __ATOMIC_RELAXED) == 1) {
        __atomic_store_n(&g_plain_chunk, 1, __ATOMIC_SEQ_CST);
        plain = __atomic_load_n(&g_cpu_launches, __ATOMIC_SEQ_CST) == 1;
        if (!plain) __atomic_store_n(&g_plain_chunk, 0, __ATOMIC_SEQ_CST);
    }
    fn(args, bounds, b, e);
    if (plain) __atomic_store_n(&g_plain_chunk, 0, __ATOMIC_SEQ_CST);
}

void atfork_child() {
    g_launch_mutex = new std::mutex;  // the old one may have been locked by a thread that is gone
    g_pool = nullptr;                 // its threads do not exist in the child
    t_in_pool_launch = false;
    g_cpu_launches = 0;               // no launch runs in the child
    g_plain_chunk = 0;
}

struct AtForkRegistration {
    AtForkRegistration() { pthread_atfork(nullptr, nullptr, &atfork_child); }
} g_atfork_registration;

// Requires *g_launch_mutex.  Returns nullptr if n <= 1 or no thread could be made.
Pool* ensure_pool(int n) {
    if (g_pool && g_pool->size() != n - 1) {
        delete g_pool;
        g_pool = nullptr;
    }
    if (!g_pool && n > 1) g_pool = new Pool(n - 1);
    if (g_pool && g_pool->size() == 0) {
        delete g_pool;
        g_pool = nullptr;
    }
    return g_pool;
}

}  // namespace

int cpu_count() {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
#endif
    const unsigned hc = std::thread::hardware_concurrency();
    return hc > 0 ? int(hc) : 1;
}

int get_num_threads() {
    int n = g_num_threads.load(std::memory_order_relaxed);
    if (n > 0) return n;
    int expected = 0;
    g_num_threads.compare_exchange_strong(expected, std::min(cpu_count(), kMaxThreads));
    return g_num_threads.load(std::memory_order_relaxed);
}

void set_num_threads(int n) {
    if (n <= 0) n = cpu_count();
    n = std::min(n, kMaxThreads);
    g_num_threads.store(n, std::memory_order_relaxed);
    if (t_in_pool_launch) return;  // called from the interrupt hook: resize at the next launch
    std::lock_guard<std::mutex> lk(*g_launch_mutex);
    if (g_pool && g_pool->size() != n - 1) {
        delete g_pool;  // idle (we hold the launch mutex): joins quickly
        g_pool = nullptr;
    }
}

void shutdown_pool() {
    if (t_in_pool_launch) return;
    std::lock_guard<std::mutex> lk(*g_launch_mutex);
    delete g_pool;
    g_pool = nullptr;
}

const int* plain_gradients_flag() { return &g_plain_chunk; }

bool parallel_for(entry_fn fn, const void* args, const void* bounds, int64_t total, int nthreads,
                  int64_t chunk, interrupt_hook hook, void* hook_ctx, const StopScope* scope) {
    if (total <= 0) return true;
    const CountedLaunch counted;
    const bool fixed = chunk > 0;

    // Trivial launch: one call, nothing else (its gradients are added atomically).
    if (fixed ? total <= chunk : total == 1) {
        fn(args, bounds, 0, total);
        return true;
    }

    int threads = get_num_threads();
    if (nthreads > 0 && nthreads < threads) threads = nthreads;
    if (t_in_pool_launch) threads = 1;  // launched from the interrupt hook of a parallel launch

    int64_t pos = 0;
    int64_t size = fixed ? chunk : 1;
    const int64_t t_start = now_ns();
    int64_t last_check = t_start;

    // Runs chunks on the calling thread from a private cursor `pos`.  Returns
    // false if interrupted; stops early (with pos < total) when `may_engage`
    // and the measured work left is worth waking the pool.
    // The probe's estimate starts after the first chunk: a first call into a freshly loaded
    // module pays for lazy symbol binding and cold caches, which says nothing about the rest.
    int64_t probe_t0 = t_start, probe_pos0 = 0;
    auto run_serial = [&](bool may_engage) -> bool {
        while (pos < total) {
            const int64_t n = std::min(size, total - pos);
            const int64_t t0 = now_ns();
            run_chunk(fn, args, bounds, pos, pos + n);
            const int64_t t1 = now_ns();
            if (pos == 0) {
                probe_t0 = t1;
                probe_pos0 = n;
            }
            pos += n;
            if (!fixed) size = adapt_chunk(size, n, t1 - t0);
            if (pos >= total) break;
            if (interrupted(scope)) return false;
            if (hook && t1 - last_check >= kInterruptCheckIntervalNs) {
                last_check = t1;
                if (hook(hook_ctx)) return false;
            }
            if (may_engage && pos > probe_pos0) {
                const int64_t elapsed = t1 - probe_t0;
                if (elapsed >= kProbeMinNs &&
                    double(elapsed) / double(pos - probe_pos0) * double(total - pos) >=
                        double(kEngageMinWorkNs))
                    break;
            }
        }
        return true;
    };

    if (threads <= 1) return run_serial(false);
    if (!fixed) {
        if (!run_serial(true)) return false;
        if (pos >= total) return true;
    }

    // Parallel phase.
    std::unique_lock<std::mutex> launch_lock(*g_launch_mutex);
    Pool* pool = ensure_pool(get_num_threads());
    const int nworkers = pool ? std::min(threads - 1, pool->size()) : 0;
    if (nworkers <= 0) {  // thread count lowered meanwhile, or no thread could be created
        launch_lock.unlock();
        return run_serial(false);
    }

    Job job;
    job.fn = fn;
    job.args = args;
    job.bounds = bounds;
    job.total = total;
    job.fixed_chunk = fixed ? chunk : 0;
    job.init_chunk = size;
    job.participants = nworkers + 1;
    job.scope = scope;

    t_in_pool_launch = true;
    pool->begin(job, pos, nworkers);
    bool completed = true;
    int64_t b, e;
    while (grab(job, pool->cursor(), size, b, e)) {
        const int64_t t0 = now_ns();
        fn(args, bounds, b, e);
        const int64_t t1 = now_ns();
        if (!fixed) size = adapt_chunk(size, e - b, t1 - t0);
        bool stop = interrupted(scope);
        if (!stop && hook && t1 - last_check >= kInterruptCheckIntervalNs) {
            last_check = t1;
            stop = hook(hook_ctx);
        }
        if (stop) {
            pool->cancel(total);
            completed = false;
            break;
        }
    }
    pool->finish();
    t_in_pool_launch = false;
    return completed;
}

}  // namespace wpi_native
