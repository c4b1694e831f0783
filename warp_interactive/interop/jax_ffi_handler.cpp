// XLA FFI handlers that run a warp_interactive kernel on JAX buffers: its CPU entry point on
// host buffers, or its CUDA entry (cuLaunchKernel on XLA's stream) on device buffers.
//
// One handler serves every kernel: jax_kernel kernels take arrays only, so their argument struct
// is N consecutive array_t descriptors (sizeof(array_t) each, no padding), which this handler fills from
// XLA's dense row-major buffers (inputs, then outputs). The kernel's CPU entry address, its CUDA
// function per device ordinal, the launch dimensions and each argument's warp rank and element
// size come as attributes; both platforms' handlers take the same attributes, so one lowering
// serves either. The CUDA driver is reached through function addresses passed in by Python
// (ctypes resolves them in libcuda), so this file needs no CUDA headers or libraries to build.
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

// Mirrors wp::array_t (native/include/warp_interactive/core/core.h) and types/arraydesc.py.
struct array_t {
    void* data;
    void* grad;
    int64_t strides[4];
    int32_t shape[4];
    int32_t ndim;
    int32_t pad;
};
// the sizes come from types/arraydesc.py (jax_ffi.py defines them when it builds this file)
static_assert(sizeof(array_t) == WPI_ARRAY_DESC_SIZE, "array_t layout");

// Mirrors wp::launch_bounds_t.
struct launch_bounds_t {
    int32_t shape[4];
    int32_t ndim;
    int32_t pad;
    int64_t size;
};
static_assert(sizeof(launch_bounds_t) == WPI_LAUNCH_BOUNDS_SIZE, "launch_bounds_t layout");

using entry_fn = void (*)(const void* args, const launch_bounds_t* dim, int64_t begin, int64_t end);

// The CUDA driver entry points used here, by address (their C signatures in cuda.h).
struct CUstream_st;
using cu_stream = CUstream_st*;
using cu_launch_fn = int (*)(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned shmem, cu_stream s, void** params, void** extra);
using cu_memset_fn = int (*)(unsigned long long dst, unsigned char value, size_t n, cu_stream s);
using cu_memcpy_fn = int (*)(unsigned long long dst, unsigned long long src, size_t n, cu_stream s);

// Below this many threads' worth of work, splitting costs more than it saves.
constexpr int64_t kMinPerThread = 1 << 15;

ffi::Error describe(array_t& a, void* data, ffi::Span<const int64_t> dims, int64_t ndim,
                    int64_t elem_size, size_t index)
{
    if (ndim < 1 || ndim > 4 || int64_t(dims.size()) < ndim)
        return ffi::Error(ffi::ErrorCode::kInvalidArgument,
                          "warp kernel argument " + std::to_string(index) + ": rank mismatch");
    std::memset(&a, 0, sizeof(a));
    a.data = data;
    a.ndim = int32_t(ndim);
    int64_t stride = elem_size;
    for (int64_t d = ndim - 1; d >= 0; --d) {
        a.shape[d] = int32_t(dims[d]);
        a.strides[d] = stride;
        stride *= dims[d];
    }
    return ffi::Error::Success();
}

// The launch grid from the primitive's launch_dims attribute (at most 4 dimensions).
launch_bounds_t bounds_of(ffi::Span<const int64_t> launch_dims)
{
    launch_bounds_t b;
    std::memset(&b, 0, sizeof(b));
    b.ndim = int32_t(launch_dims.size());
    b.size = 1;
    for (size_t d = 0; d < launch_dims.size() && d < 4; ++d) {
        b.shape[d] = int32_t(launch_dims[d]);
        b.size *= launch_dims[d];
    }
    return b;
}

// Runs the entry over [0, n): threads, or blocks for a kernel built for cooperative CPU blocks
// (its entry takes a range of blocks: codegen/target.py).
void run_threads(entry_fn fn, const void* args, const launch_bounds_t& b, int64_t n)
{
    int64_t workers = int64_t(std::thread::hardware_concurrency());
    if (workers < 1) workers = 1;
    if (workers > n / kMinPerThread) workers = n / kMinPerThread;
    if (workers <= 1) {
        fn(args, &b, 0, n);
        return;
    }
    std::vector<std::thread> pool;
    const int64_t chunk = (n + workers - 1) / workers;
    for (int64_t w = 1; w < workers; ++w) {
        const int64_t lo = w * chunk, hi = std::min(n, lo + chunk);
        if (lo < hi) pool.emplace_back(fn, args, &b, lo, hi);
    }
    fn(args, &b, 0, std::min(n, chunk));
    for (auto& t : pool) t.join();
}

// Where a call runs: the host (memset/memcpy, CPU threads) or a CUDA stream (async driver calls).
struct HostBackend {
    entry_fn fn;
    int64_t width;            // lanes per cooperative block (1: a plain kernel's threads)

    ffi::Error zero(void* p, size_t n) const
    {
        std::memset(p, 0, n);
        return ffi::Error::Success();
    }
    ffi::Error copy(void* dst, const void* src, size_t n) const
    {
        std::memcpy(dst, src, n);
        return ffi::Error::Success();
    }
    ffi::Error run(std::vector<array_t>& args, const launch_bounds_t& b) const
    {
        if (fn == nullptr)
            return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                              "warp kernel call: the kernel was prepared for CUDA, not the CPU "
                              "(jax_kernel picks the platform of jax.default_backend())");
        if (b.size > 0) run_threads(fn, args.data(), b, width > 1 ? (b.size + width - 1) / width : b.size);
        return ffi::Error::Success();
    }
};

struct CudaBackend {
    void* function;           // CUfunction of the kernel's entry on this device
    cu_launch_fn launch;
    cu_memset_fn memset_async;
    cu_memcpy_fn memcpy_async;
    cu_stream stream;
    int64_t block_dim;
    int64_t max_blocks;
    int64_t width;            // lanes per cooperative block (1: a plain kernel's threads)
    int64_t scratch;          // a cooperative block's dynamic shared memory (cuda_blocks.h)

    static ffi::Error check(int status, const char* what)
    {
        if (status == 0) return ffi::Error::Success();
        return ffi::Error(ffi::ErrorCode::kInternal,
                          std::string("warp kernel call: ") + what + " failed with CUDA error " +
                              std::to_string(status));
    }
    ffi::Error zero(void* p, size_t n) const
    {
        return check(memset_async(reinterpret_cast<unsigned long long>(p), 0, n, stream),
                     "cuMemsetD8Async");
    }
    ffi::Error copy(void* dst, const void* src, size_t n) const
    {
        return check(memcpy_async(reinterpret_cast<unsigned long long>(dst),
                                  reinterpret_cast<unsigned long long>(src), n, stream),
                     "cuMemcpyAsync");
    }
    // The CUDA entry takes (args struct, launch bounds) by value and loops grid-stride, so the
    // grid is capped like the runtime's own launches (runtime/cuda/modules.py grid_size). A
    // cooperative kernel: the full blocks, then a partial last block in a launch of as many
    // threads as it has lanes (runtime/cuda/modules.py block_launches).
    ffi::Error run(std::vector<array_t>& args, const launch_bounds_t& b) const
    {
        if (b.size <= 0) return ffi::Error::Success();
        launch_bounds_t bounds = b;
        void* params[2] = {args.data(), &bounds};
        const int64_t block = width > 1 ? width : block_dim;
        int64_t blocks = width > 1 ? b.size / width : (b.size + block_dim - 1) / block_dim;
        if (max_blocks > 0 && blocks > max_blocks) blocks = max_blocks;
        if (blocks > 2147483647) blocks = 2147483647;
        const unsigned smem = unsigned(width > 1 ? scratch : 0);
        if (blocks > 0) {
            auto err = check(launch(function, unsigned(blocks), 1, 1, unsigned(block), 1, 1, smem, stream, params,
                                    nullptr),
                             "cuLaunchKernel");
            if (err.failure()) return err;
        }
        const int64_t rest = width > 1 ? b.size % width : 0;
        if (rest == 0) return ffi::Error::Success();
        return check(launch(function, 1, 1, 1, unsigned(rest), 1, 1, smem, stream, params, nullptr),
                     "cuLaunchKernel");
    }
};

template <typename Backend>
ffi::Error call_kernel(const Backend& backend, ffi::RemainingArgs inputs, ffi::RemainingRets outputs,
                       ffi::Span<const int64_t> launch_dims, ffi::Span<const int64_t> ranks,
                       ffi::Span<const int64_t> elem_sizes)
{
    const size_t n_in = inputs.size(), n = n_in + outputs.size();
    if (ranks.size() != n || elem_sizes.size() != n)
        return ffi::Error(ffi::ErrorCode::kInvalidArgument, "warp kernel call: bad attributes");
    std::vector<array_t> packed(n);
    for (size_t i = 0; i < n_in; ++i) {
        auto buf = inputs.get<ffi::AnyBuffer>(i);
        if (buf.has_error()) return buf.error();
        auto err = describe(packed[i], buf->untyped_data(), buf->dimensions(), ranks[i],
                            elem_sizes[i], i);
        if (err.failure()) return err;
    }
    for (size_t j = 0; j < outputs.size(); ++j) {
        auto buf = outputs.get<ffi::AnyBuffer>(j);
        if (buf.has_error()) return buf.error();
        ffi::AnyBuffer out = **buf;
        // XLA hands outputs uninitialised; kernels that accumulate (atomic_add) need zeros
        auto err = backend.zero(out.untyped_data(), out.size_bytes());
        if (err.failure()) return err;
        err = describe(packed[n_in + j], out.untyped_data(), out.dimensions(),
                            ranks[n_in + j], elem_sizes[n_in + j], n_in + j);
        if (err.failure()) return err;
    }
    return backend.run(packed, bounds_of(launch_dims));
}

// The reverse pass: inputs are the primal inputs then the outputs' cotangents; results are the
// inputs' gradients, then scratch memory for the outputs' data and gradients. The backward entry
// replays the forward pass, so the outputs' data start at zero as in the forward call, and the
// cotangents are copied into writable gradient memory.
template <typename Backend>
ffi::Error call_adjoint(const Backend& backend, ffi::RemainingArgs inputs, ffi::RemainingRets results,
                        ffi::Span<const int64_t> launch_dims, ffi::Span<const int64_t> ranks,
                        ffi::Span<const int64_t> elem_sizes)
{
    const size_t n = ranks.size();
    if (elem_sizes.size() != n || inputs.size() != n || results.size() < n ||
        results.size() > 2 * n)
        return ffi::Error(ffi::ErrorCode::kInvalidArgument, "warp kernel adjoint: bad attributes");
    const size_t n_out = results.size() - n, n_in = n - n_out;
    std::vector<array_t> packed(n);
    for (size_t i = 0; i < n; ++i) {
        // inputs: data is the primal input, gradient a result; outputs: both are results
        auto grad = results.get<ffi::AnyBuffer>(i < n_in ? i : n + (i - n_in));
        if (grad.has_error()) return grad.error();
        ffi::AnyBuffer g = **grad;
        void* data = nullptr;
        ffi::AnyBuffer::Dimensions dims;
        if (i < n_in) {
            auto in = inputs.get<ffi::AnyBuffer>(i);
            if (in.has_error()) return in.error();
            data = in->untyped_data();
            dims = in->dimensions();
            auto err = backend.zero(g.untyped_data(), g.size_bytes());
            if (err.failure()) return err;
        } else {
            auto out = results.get<ffi::AnyBuffer>(i);
            auto cot = inputs.get<ffi::AnyBuffer>(i);
            if (out.has_error()) return out.error();
            if (cot.has_error()) return cot.error();
            ffi::AnyBuffer d = **out;
            auto err = backend.zero(d.untyped_data(), d.size_bytes());
            if (err.failure()) return err;
            err = backend.copy(g.untyped_data(), cot->untyped_data(), g.size_bytes());
            if (err.failure()) return err;
            data = d.untyped_data();
            dims = d.dimensions();
        }
        auto err = describe(packed[i], data, dims, ranks[i], elem_sizes[i], i);
        if (err.failure()) return err;
        packed[i].grad = g.untyped_data();
    }
    // gradients accumulate into arrays with atomic adds (adj_load), so threads may share them
    return backend.run(packed, bounds_of(launch_dims));
}

HostBackend host_backend(int64_t entry, int64_t width)
{
    return HostBackend{reinterpret_cast<entry_fn>(entry), width};
}

// The backend for XLA's stream on device `ordinal`; cuda_api holds the addresses of
// cuLaunchKernel, cuMemsetD8Async and cuMemcpyAsync, then the block size, the block cap and a
// cooperative block's shared memory bytes.
ffi::Error cuda_backend(CudaBackend& out, cu_stream stream, int32_t ordinal,
                        ffi::Span<const int64_t> functions, ffi::Span<const int64_t> cuda_api, int64_t width)
{
    if (cuda_api.size() != 6 || cuda_api[0] == 0)
        return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                          "warp kernel call: the kernel was prepared for the CPU, not CUDA "
                          "(jax_kernel picks the platform of jax.default_backend())");
    if (ordinal < 0 || size_t(ordinal) >= functions.size() || functions[ordinal] == 0)
        return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                          "warp kernel call: the kernel is not loaded on CUDA device " +
                              std::to_string(ordinal));
    out = CudaBackend{reinterpret_cast<void*>(functions[ordinal]),
                      reinterpret_cast<cu_launch_fn>(cuda_api[0]),
                      reinterpret_cast<cu_memset_fn>(cuda_api[1]),
                      reinterpret_cast<cu_memcpy_fn>(cuda_api[2]),
                      stream, cuda_api[3] > 0 ? cuda_api[3] : 256, cuda_api[4], width, cuda_api[5]};
    return ffi::Error::Success();
}

ffi::Error host_call(ffi::RemainingArgs inputs, ffi::RemainingRets outputs, int64_t entry,
                     ffi::Span<const int64_t>, ffi::Span<const int64_t>, int64_t block_width,
                     ffi::Span<const int64_t> launch_dims, ffi::Span<const int64_t> ranks,
                     ffi::Span<const int64_t> elem_sizes)
{
    return call_kernel(host_backend(entry, block_width), inputs, outputs, launch_dims, ranks, elem_sizes);
}

ffi::Error host_adjoint(ffi::RemainingArgs inputs, ffi::RemainingRets results, int64_t entry,
                        ffi::Span<const int64_t>, ffi::Span<const int64_t>, int64_t block_width,
                        ffi::Span<const int64_t> launch_dims, ffi::Span<const int64_t> ranks,
                        ffi::Span<const int64_t> elem_sizes)
{
    return call_adjoint(host_backend(entry, block_width), inputs, results, launch_dims, ranks, elem_sizes);
}

ffi::Error cuda_call(cu_stream stream, int32_t ordinal, ffi::RemainingArgs inputs,
                     ffi::RemainingRets outputs, int64_t, ffi::Span<const int64_t> functions,
                     ffi::Span<const int64_t> cuda_api, int64_t block_width,
                     ffi::Span<const int64_t> launch_dims, ffi::Span<const int64_t> ranks,
                     ffi::Span<const int64_t> elem_sizes)
{
    CudaBackend backend;
    auto err = cuda_backend(backend, stream, ordinal, functions, cuda_api, block_width);
    if (err.failure()) return err;
    return call_kernel(backend, inputs, outputs, launch_dims, ranks, elem_sizes);
}

ffi::Error cuda_adjoint(cu_stream stream, int32_t ordinal, ffi::RemainingArgs inputs,
                        ffi::RemainingRets results, int64_t, ffi::Span<const int64_t> functions,
                        ffi::Span<const int64_t> cuda_api, int64_t block_width,
                        ffi::Span<const int64_t> launch_dims, ffi::Span<const int64_t> ranks,
                        ffi::Span<const int64_t> elem_sizes)
{
    CudaBackend backend;
    auto err = cuda_backend(backend, stream, ordinal, functions, cuda_api, block_width);
    if (err.failure()) return err;
    return call_adjoint(backend, inputs, results, launch_dims, ranks, elem_sizes);
}

}  // namespace

// Both platforms bind the same attributes (see the top of the file).
#define WPI_FFI_ATTRS                                   \
    .Attr<int64_t>("entry")                             \
        .Attr<ffi::Span<const int64_t>>("cuda_functions") \
        .Attr<ffi::Span<const int64_t>>("cuda_api")       \
        .Attr<int64_t>("block_width")                     \
        .Attr<ffi::Span<const int64_t>>("launch_dims")    \
        .Attr<ffi::Span<const int64_t>>("ranks")          \
        .Attr<ffi::Span<const int64_t>>("elem_sizes")

XLA_FFI_DEFINE_HANDLER_SYMBOL(WpiKernelCall, host_call,
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets() WPI_FFI_ATTRS);
XLA_FFI_DEFINE_HANDLER_SYMBOL(WpiKernelAdjoint, host_adjoint,
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets() WPI_FFI_ATTRS);
XLA_FFI_DEFINE_HANDLER_SYMBOL(WpiKernelCallCuda, cuda_call,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cu_stream>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .RemainingArgs()
                                  .RemainingRets() WPI_FFI_ATTRS);
XLA_FFI_DEFINE_HANDLER_SYMBOL(WpiKernelAdjointCuda, cuda_adjoint,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cu_stream>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .RemainingArgs()
                                  .RemainingRets() WPI_FFI_ATTRS);
