// XLA FFI handler that runs a warp_interactive kernel's CPU entry point on JAX buffers.
//
// One handler serves every kernel: jax_kernel kernels take arrays only, so their argument struct
// is N consecutive array_t descriptors (72 bytes each, no padding), which this handler fills from
// XLA's dense row-major buffers (inputs, then outputs). The kernel's entry address, the launch
// dimensions and each argument's warp rank and element size come as attributes.
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

// Mirrors wp::array_t (native/include/warp_interactive/core.h) and types/arraydesc.py.
struct array_t {
    void* data;
    void* grad;
    int64_t strides[4];
    int32_t shape[4];
    int32_t ndim;
    int32_t pad;
};
static_assert(sizeof(array_t) == 72, "array_t layout");

// Mirrors wp::launch_bounds_t.
struct launch_bounds_t {
    int32_t shape[4];
    int32_t ndim;
    int32_t pad;
    int64_t size;
};

using entry_fn = void (*)(const void* args, const launch_bounds_t* dim, int64_t begin, int64_t end);

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

void run(entry_fn fn, const void* args, const launch_bounds_t& b)
{
    int64_t workers = int64_t(std::thread::hardware_concurrency());
    if (workers < 1) workers = 1;
    if (workers > b.size / kMinPerThread) workers = b.size / kMinPerThread;
    if (workers <= 1) {
        fn(args, &b, 0, b.size);
        return;
    }
    std::vector<std::thread> pool;
    const int64_t chunk = (b.size + workers - 1) / workers;
    for (int64_t w = 1; w < workers; ++w) {
        const int64_t lo = w * chunk, hi = std::min(b.size, lo + chunk);
        if (lo < hi) pool.emplace_back(fn, args, &b, lo, hi);
    }
    fn(args, &b, 0, std::min(b.size, chunk));
    for (auto& t : pool) t.join();
}

ffi::Error call_kernel(ffi::RemainingArgs inputs, ffi::RemainingRets outputs, int64_t entry,
                       ffi::Span<const int64_t> launch_dims, ffi::Span<const int64_t> ranks,
                       ffi::Span<const int64_t> elem_sizes)
{
    const size_t n_in = inputs.size(), n = n_in + outputs.size();
    if (ranks.size() != n || elem_sizes.size() != n || entry == 0)
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
        std::memset(out.untyped_data(), 0, out.size_bytes());
        auto err = describe(packed[n_in + j], out.untyped_data(), out.dimensions(),
                            ranks[n_in + j], elem_sizes[n_in + j], n_in + j);
        if (err.failure()) return err;
    }
    const launch_bounds_t b = bounds_of(launch_dims);
    if (b.size > 0) run(reinterpret_cast<entry_fn>(entry), packed.data(), b);
    return ffi::Error::Success();
}

// The reverse pass: inputs are the primal inputs then the outputs' cotangents; results are the
// inputs' gradients, then scratch memory for the outputs' data and gradients. The backward entry
// replays the forward pass, so the outputs' data start at zero as in the forward call, and the
// cotangents are copied into writable gradient memory.
ffi::Error call_adjoint(ffi::RemainingArgs inputs, ffi::RemainingRets results, int64_t entry,
                        ffi::Span<const int64_t> launch_dims, ffi::Span<const int64_t> ranks,
                        ffi::Span<const int64_t> elem_sizes)
{
    const size_t n = ranks.size();
    if (elem_sizes.size() != n || inputs.size() != n || results.size() < n ||
        results.size() > 2 * n || entry == 0)
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
            std::memset(g.untyped_data(), 0, g.size_bytes());
        } else {
            auto out = results.get<ffi::AnyBuffer>(i);
            auto cot = inputs.get<ffi::AnyBuffer>(i);
            if (out.has_error()) return out.error();
            if (cot.has_error()) return cot.error();
            ffi::AnyBuffer d = **out;
            std::memset(d.untyped_data(), 0, d.size_bytes());
            std::memcpy(g.untyped_data(), cot->untyped_data(), g.size_bytes());
            data = d.untyped_data();
            dims = d.dimensions();
        }
        auto err = describe(packed[i], data, dims, ranks[i], elem_sizes[i], i);
        if (err.failure()) return err;
        packed[i].grad = g.untyped_data();
    }
    const launch_bounds_t b = bounds_of(launch_dims);
    // gradients accumulate into arrays with atomic adds (adj_load), so threads may share them
    if (b.size > 0) run(reinterpret_cast<entry_fn>(entry), packed.data(), b);
    return ffi::Error::Success();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(WpiKernelAdjoint, call_adjoint,
                              ffi::Ffi::Bind()
                                  .RemainingArgs()
                                  .RemainingRets()
                                  .Attr<int64_t>("entry")
                                  .Attr<ffi::Span<const int64_t>>("launch_dims")
                                  .Attr<ffi::Span<const int64_t>>("ranks")
                                  .Attr<ffi::Span<const int64_t>>("elem_sizes"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(WpiKernelCall, call_kernel,
                              ffi::Ffi::Bind()
                                  .RemainingArgs()
                                  .RemainingRets()
                                  .Attr<int64_t>("entry")
                                  .Attr<ffi::Span<const int64_t>>("launch_dims")
                                  .Attr<ffi::Span<const int64_t>>("ranks")
                                  .Attr<ffi::Span<const int64_t>>("elem_sizes"));
