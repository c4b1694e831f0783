// What the builtin library needs from the C library, for the host compiler, without including
// <cmath>, <cstdio>, <cstring> or <cstdint>.
//
// Those headers are ~15 MB of the precompiled header (libstdc++'s <cmath> alone pulls in most of
// <type_traits>, <limits> and the special functions), and g++ maps and reads the whole PCH on
// every module build: most of the time of a rebuild after a one-line edit. So the library uses
// the compiler's own names instead: __builtin_sqrtf & co. (inlined to an instruction where one
// exists, otherwise a call of the same libm function <cmath> would call), __builtin_isnan & co.,
// __builtin_memcpy and __builtin_snprintf / __builtin_printf (calls of libc's functions).
//
// CUDA (NVRTC, nvcc) keeps its own definitions: see the __CUDACC__ branches of the headers.
#pragma once

#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#include <cmath>
#include <cstdint>
#include <cstring>
#elif defined(__CUDACC_RTC__)
// NVRTC has no <cmath>: generated code writes INFINITY and NAN for inf and nan literals
// (wp.inf, float("nan")), so give them from the bit patterns, as device expressions
#ifndef INFINITY
#define INFINITY (__int_as_float(0x7f800000))
#endif
#ifndef NAN
#define NAN (__int_as_float(0x7fffffff))
#endif
#elif !defined(__CUDACC_RTC__)
// <cstdint>'s names, from the compiler's predefined types (the same types glibc's typedefs use)
typedef __INT8_TYPE__ int8_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __INT16_TYPE__ int16_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __INT32_TYPE__ int32_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __SIZE_TYPE__ size_t;

// <cmath>'s constants, which generated code writes for inf and nan literals
#ifndef INFINITY
#define INFINITY (__builtin_inff())
#endif
#ifndef NAN
#define NAN (__builtin_nanf(""))
#endif

// glibc binds a module's unversioned `expf` to its oldest version, a compatibility wrapper around
// the current implementation (compiler/cpu.py, _FLOATN_LIBM): name the wrapper-free current one
// through its _FloatN alias. The builtins keep their meaning (constant folding, no errno).
#if defined(WPI_LIBM_FLOATN)
extern "C" {
float expf(float) __asm__("expf32");
float exp2f(float) __asm__("exp2f32");
float logf(float) __asm__("logf32");
float log2f(float) __asm__("log2f32");
float powf(float, float) __asm__("powf32");
double exp(double) __asm__("expf64");
double exp2(double) __asm__("exp2f64");
double log(double) __asm__("logf64");
double log2(double) __asm__("log2f64");
double pow(double, double) __asm__("powf64");
}
#endif

// libm of matching precision: fn -> fnf (float) / fn (double)
#define WPI_HOST_LIBM32(fn) __builtin_##fn##f
#define WPI_HOST_LIBM64(fn) __builtin_##fn
#define WPI_HOST_CLASSIFY(fn) __builtin_##fn
#define WPI_HOST_MEMCPY __builtin_memcpy
#define WPI_HOST_PRINTF __builtin_printf
#define WPI_HOST_SNPRINTF __builtin_snprintf
#endif
