// warp_interactive._native: the Python binding of the CPU runtime.
//
// Addresses cross this boundary as plain Python ints (ctypes.addressof(...),
// ctypes.cast(fn, c_void_p).value, ndarray.ctypes.data); 0 is NULL.

#include <pybind11/pybind11.h>

#include <pthread.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "interrupt.h"
#include "launch_py.h"
#include "thread_pool.h"

#ifndef WPI_NATIVE_VERSION
#define WPI_NATIVE_VERSION "0.0.0+unknown"
#endif

namespace py = pybind11;

namespace {

// Copies and fills at least this large run with the GIL released.
constexpr size_t kReleaseGilBytes = size_t(64) << 10;

// Thread id of the Python main thread: the only thread on which
// PyErr_CheckSignals() can report anything, so only launches from it poll.
unsigned long g_main_thread_ident = 0;

void atfork_child_main_thread() {
    // After fork() Python makes the forking thread the main thread.
    g_main_thread_ident = PyThread_get_thread_ident();
    wpi_native::set_main_thread(g_main_thread_ident);
}

// The GIL released for the lifetime of the object; the interrupt hook briefly
// takes it back to run pending signal handlers.
struct GilReleased {
    PyThreadState* state;
    GilReleased() : state(PyEval_SaveThread()) {}
    ~GilReleased() { PyEval_RestoreThread(state); }
    GilReleased(const GilReleased&) = delete;
    GilReleased& operator=(const GilReleased&) = delete;
};

// interrupt_hook: returns true if a Python signal handler raised (the error,
// normally KeyboardInterrupt, stays set in this thread's state).
bool check_signals(void* ctx) {
    auto* gil = static_cast<GilReleased*>(ctx);
    PyEval_RestoreThread(gil->state);
    const int rc = PyErr_CheckSignals();
    gil->state = PyEval_SaveThread();
    return rc != 0;
}

// Depth of interruptible launches on the main thread (a Python signal handler run by the hook
// may launch again): only the outermost one clears the stopping flag its kernels read.
int g_interruptible_depth = 0;
uint64_t g_signals_seen = 0;   // the SIGINT count (interrupt.h) when a launch last looked

// A launch from the main thread is interruptible (Ctrl-C, Jupyter's interrupt): between chunks
// through the hook, and inside a kernel's loops through the StopScope (interrupt.h). A kernel
// that returned early leaves the stopping flag set: the launch then raises as interrupted.
void launch(uintptr_t entry, uintptr_t args, uintptr_t bounds, int64_t total, int nthreads,
            int64_t chunk) {
    if (total <= 0) return;
    if (entry == 0) throw py::value_error("launch: entry address is 0");
    const auto fn = reinterpret_cast<wpi_native::entry_fn>(entry);
    const void* a = reinterpret_cast<const void*>(args);
    const void* b = reinterpret_cast<const void*>(bounds);
    if (PyThread_get_thread_ident() != g_main_thread_ident) {
        GilReleased gil;
        wpi_native::parallel_for(fn, a, b, total, nthreads, chunk, nullptr, nullptr);
        return;
    }
    wpi_native::StopScope scope;
    scope.start = wpi_native::sigint_count();
    if (scope.start != g_signals_seen) {
        // a Ctrl-C came since the last look: if Python has not run its handler yet, the launch
        // (which may never reach a chunk boundary) must not start
        g_signals_seen = scope.start;
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        if (g_interruptible_depth == 0) wpi_native::clear_stopping();   // Python has seen it
    }
    bool completed;
    ++g_interruptible_depth;
    const wpi_native::StopScope* outer = wpi_native::g_main_scope;
    wpi_native::g_main_scope = &scope;
    {
        GilReleased gil;
        completed = wpi_native::parallel_for(fn, a, b, total, nthreads, chunk,
                                             total > 1 ? &check_signals : nullptr, &gil, &scope);
    }
    wpi_native::g_main_scope = outer;
    --g_interruptible_depth;
    if (wpi_native::stopping()) {
        completed = false;
        if (g_interruptible_depth == 0) wpi_native::clear_stopping();
    }
    if (!completed) {
        // the handler ours chained to has been told: Python's raises KeyboardInterrupt
        if (!PyErr_Occurred() && PyErr_CheckSignals() == 0) PyErr_SetNone(PyExc_KeyboardInterrupt);
        throw py::error_already_set();
    }
}

}  // namespace

bool wpi_py::run_launch(uintptr_t entry, const void* args, const void* bounds, int64_t total,
                        int nthreads) {
    try {
        launch(entry, reinterpret_cast<uintptr_t>(args), reinterpret_cast<uintptr_t>(bounds), total,
               nthreads, 0);
    } catch (py::error_already_set& e) {
        e.restore();
        return false;
    } catch (std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return false;
    }
    return true;
}

namespace {

// launch_fast(entry, args, bounds, total, nthreads): launch() for the per-launch hot path, a
// METH_FASTCALL function parsing five ints itself (pybind11's argument conversion costs several
// times the ~0.1 us this takes). Chunks are automatic. Returns None, or raises like launch().
PyObject* launch_fast(PyObject*, PyObject* const* argv, Py_ssize_t argc) {
    if (argc != 5) {
        PyErr_SetString(PyExc_TypeError, "launch_fast(entry, args, bounds, total, nthreads)");
        return nullptr;
    }
    const uintptr_t entry = uintptr_t(PyLong_AsUnsignedLongLongMask(argv[0]));
    const uintptr_t args = uintptr_t(PyLong_AsUnsignedLongLongMask(argv[1]));
    const uintptr_t bounds = uintptr_t(PyLong_AsUnsignedLongLongMask(argv[2]));
    const long long total = PyLong_AsLongLong(argv[3]);
    const long nthreads = PyLong_AsLong(argv[4]);
    if (PyErr_Occurred()) return nullptr;
    if (!wpi_py::run_launch(entry, reinterpret_cast<const void*>(args),
                            reinterpret_cast<const void*>(bounds), total, int(nthreads)))
        return nullptr;
    Py_RETURN_NONE;
}

PyMethodDef g_launch_fast_def = {"launch_fast", reinterpret_cast<PyCFunction>(
                                     reinterpret_cast<void (*)()>(&launch_fast)),
                                 METH_FASTCALL,
                                 "launch_fast(entry, args, bounds, total, nthreads): launch() with "
                                 "automatic chunks, for the hot path."};

uintptr_t alloc(size_t nbytes, size_t alignment) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        throw py::value_error("alloc: alignment must be a power of two");
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    void* p = nullptr;
    if (posix_memalign(&p, alignment, nbytes > 0 ? nbytes : 1) != 0 || p == nullptr)
        throw std::bad_alloc();  // -> MemoryError
    return reinterpret_cast<uintptr_t>(p);
}

void free_(uintptr_t ptr) { std::free(reinterpret_cast<void*>(ptr)); }

void memset_(uintptr_t ptr, int value, size_t nbytes) {
    if (nbytes == 0) return;
    if (ptr == 0) throw py::value_error("memset: ptr is 0");
    void* p = reinterpret_cast<void*>(ptr);
    if (nbytes >= kReleaseGilBytes) {
        py::gil_scoped_release nogil;
        std::memset(p, value, nbytes);
    } else {
        std::memset(p, value, nbytes);
    }
}

void memcpy_(uintptr_t dst, uintptr_t src, size_t nbytes) {
    if (nbytes == 0) return;
    if (dst == 0 || src == 0) throw py::value_error("memcpy: dst or src is 0");
    void* d = reinterpret_cast<void*>(dst);
    const void* s = reinterpret_cast<const void*>(src);
    if (nbytes >= kReleaseGilBytes) {
        py::gil_scoped_release nogil;
        std::memmove(d, s, nbytes);
    } else {
        std::memmove(d, s, nbytes);
    }
}

void set_num_threads(int n) {
    py::gil_scoped_release nogil;  // may wait for a launch that polls for signals with the GIL
    wpi_native::set_num_threads(n);
}

void shutdown() {
    py::gil_scoped_release nogil;
    wpi_native::shutdown_pool();
}

}  // namespace

PYBIND11_MODULE(_native, m) {
    m.doc() = "warp_interactive native CPU runtime: thread-pool kernel launches and host memory.";

    g_main_thread_ident =
        py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
    wpi_native::set_main_thread(g_main_thread_ident);
    static bool atfork_registered = false;
    if (!atfork_registered) {
        pthread_atfork(nullptr, nullptr, &atfork_child_main_thread);
        atfork_registered = true;
    }

    m.def("launch", &launch, py::arg("entry"), py::arg("args"), py::arg("bounds"), py::arg("total"),
          py::arg("nthreads"), py::arg("chunk"),
          R"doc(Run a kernel entry over the indices [0, total).

entry:    address of `void entry(const void* args, const void* bounds, int64_t begin, int64_t end)`,
          which runs the indices [begin, end).
args, bounds: addresses passed through unchanged (0 for NULL).
total:    number of indices; <= 0 does nothing.
nthreads: threads to use, the calling thread included; <= 0 means get_num_threads(),
          larger values are capped at get_num_threads(); 1 runs on the calling thread.
chunk:    > 0: fixed chunks [k*chunk, (k+1)*chunk); <= 0: automatic (chunk sizes are timed
          to ~0.25 ms of work each; small or cheap launches stay on the calling thread).

The GIL is released while the kernel runs; the calling thread works too.  A launch with
total <= chunk (or total == 1 when chunk <= 0) is a single direct call on the calling thread.
Parallel launches from several Python threads run one after another.

Interrupts: when called from the main thread, pending signals are checked between the calling
thread's chunks (at most every 20 ms, by briefly taking the GIL and calling
PyErr_CheckSignals).  If a handler raises (Ctrl-C: KeyboardInterrupt), no further chunks are
started, the chunks already running finish, and the exception propagates; some indices have
then not run.  A SIGINT also reaches generated kernels inside their loops (interrupt.h): their
threads return early, and the launch raises the handler's exception, or KeyboardInterrupt.)doc");

    m.def("interrupt_hooks", [] {
        return py::make_tuple(reinterpret_cast<uintptr_t>(&wpi_native::poll_stop),
                              reinterpret_cast<uintptr_t>(wpi_native::stopping_flag()),
                              reinterpret_cast<uintptr_t>(&wpi_native::poll_arm));
    }, "(poll, stopping, arm): the addresses a generated CPU module's wpi_set_interrupt_hooks takes "
       "(native/src/interrupt.h), through which its loops see Ctrl-C.");

    m.def("plain_gradients_flag",
          [] { return reinterpret_cast<uintptr_t>(wpi_native::plain_gradients_flag()); },
          "The address of the flag (thread_pool.h) a generated CPU module's wpi_set_plain_flag takes: "
          "while it is 1, the only launch runs on one thread and adds gradients plainly.");

    m.add_object("launch_fast", py::reinterpret_steal<py::object>(
                                    PyCFunction_NewEx(&g_launch_fast_def, nullptr, m.ptr())));

    PyObject* fast_plan = wpi_py::fast_plan_type();
    if (fast_plan == nullptr) throw py::error_already_set();
    m.add_object("FastPlan", py::reinterpret_steal<py::object>(fast_plan));

    m.def("cpu_count", &wpi_native::cpu_count,
          "Number of CPUs this process may run on (its affinity mask).");
    m.def("set_num_threads", &set_num_threads, py::arg("n"),
          "Set the pool size, calling thread included (n - 1 worker threads); n <= 0 resets it to "
          "cpu_count().  Takes effect after a running parallel launch; workers are (re)created by "
          "the next parallel launch.");
    m.def("get_num_threads", &wpi_native::get_num_threads,
          "Pool size including the calling thread (default: cpu_count()).");
    m.def("shutdown", &shutdown,
          "Stop and join the worker threads now; the next parallel launch starts them again.  "
          "Calling it is optional: idle workers never keep the process alive.");

    m.def("alloc", &alloc, py::arg("nbytes"), py::arg("alignment") = 64,
          "Allocate nbytes (at least 1) of host memory aligned to `alignment` (a power of two); "
          "returns the address.  Release it with free().  Raises MemoryError on failure.");
    m.def("free", &free_, py::arg("ptr"), "Free memory from alloc(); free(0) does nothing.");
    m.def("memset", &memset_, py::arg("ptr"), py::arg("value"), py::arg("nbytes"),
          "Fill nbytes at ptr with the byte value & 0xff.");
    m.def("memcpy", &memcpy_, py::arg("dst"), py::arg("src"), py::arg("nbytes"),
          "Copy nbytes from src to dst (overlapping ranges are allowed).  The GIL is released for "
          "large copies.");
    m.def("version", [] { return std::string(WPI_NATIVE_VERSION); },
          "Version of the native module.");
    m.attr("__version__") = WPI_NATIVE_VERSION;
}
