// wp.breakpoint() and wp.cast() (a bit-pattern reinterpretation).
//
// breakpoint, on the CPU: SIGTRAP when a debugger is attached to the process (the debugger stops
// in the kernel's generated code, which keeps `// py:FILE:LINE` markers of the Python source),
// otherwise one line on stdout and the kernel goes on: a trap nobody catches would kill the
// process. CUDA kernels refuse it at build time (a trap there kills the context).
#pragma once

#include "warp_interactive/core/core.h"

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
// libc, bound at load time like the library's other libc calls (no headers on the CPU)
extern "C" int open(const char*, int, ...);
extern "C" long read(int, void*, unsigned long);
extern "C" int close(int);
extern "C" int raise(int);
#endif

namespace wp {

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
template <int N = 0> WPI_FUNC void breakpoint()
{
    static_assert(N != N, "wp.breakpoint() is not supported in CUDA kernels: use it in a kernel "
                          "launched on the CPU, or wp.printf()");
}
#else
namespace detail {
// the TracerPid of /proc/self/status: nonzero while a debugger (ptrace) is attached
inline bool debugger_attached()
{
    char buf[2048];
    const int fd = open("/proc/self/status", 0);
    if (fd < 0)
        return false;
    const long n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = 0;
    const char key[] = "TracerPid:";
    for (long i = 0; i + 10 < n; ++i) {
        bool match = true;
        for (int k = 0; k < 10 && match; ++k)
            match = buf[i + k] == key[k];
        if (!match)
            continue;
        for (long j = i + 10; j < n && buf[j] != '\n'; ++j)
            if (buf[j] >= '1' && buf[j] <= '9')
                return true;
        return false;
    }
    return false;
}
}  // namespace detail

template <int N = 0> WPI_FUNC void breakpoint()
{
    if (detail::debugger_attached())
        raise(5);   // SIGTRAP
    else
        WPI_HOST_PRINTF("wp.breakpoint(): no debugger attached, continuing\n");
}
#endif
template <int N = 0> WPI_FUNC void adj_breakpoint() {}

// the bits of `a` read as a To (same size; checked by the translator)
template <typename To, typename From> WPI_FUNC To bit_cast(const From& a)
{
    To r;
    const char* src = (const char*)&a;
    char* dst = (char*)&r;
    for (unsigned i = 0; i < sizeof(To); ++i)
        dst[i] = src[i];
    return r;
}
template <typename To, typename From> WPI_FUNC void adj_bit_cast(const From&, From&, const To&) {}

// `assert cond` in debug mode (release builds emit no check, as warp-lang compiles asserts out):
// a false condition is recorded with the statement's text, the thread stops, and the runtime
// raises it after the launch (warp-lang's C assert aborts the process instead).
WPI_FUNC void record_assert_error(const char* text, const char* kernel, int line)
{
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
    if (__atomic_exchange_n(&g_error.set, 1, __ATOMIC_ACQ_REL)) return;
    snprintf(g_error.message, sizeof(g_error.message), "assertion failed in kernel '%s' (line %d): %s", kernel, line,
             text);
#else
    ::printf("assertion failed in kernel '%s' (line %d): %s\n", kernel, line, text);
    const int64 zero = 0;
    const int32 shape = 0;
    record_bounds_error(text, kernel, line, &zero, 0, &shape, 0);
#endif
}

}  // namespace wp
