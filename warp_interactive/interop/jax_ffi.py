"""``jax_kernel``: a warp kernel as a JAX operation, usable under ``jax.jit``, ``shard_map``...

The call becomes an XLA FFI custom call (``jax.ffi.ffi_call``) whose handlers
(``jax_ffi_handler.cpp``, compiled once against the FFI headers shipped in jaxlib and kept in the
kernel cache) pack XLA's buffers into the kernel's ``array_t`` descriptors and run its CPU entry
point, or, when JAX's default backend is a CUDA GPU, launch its CUDA entry on XLA's stream of the
device running the call (the kernel is loaded on every local GPU, so ``shard_map`` over GPUs
works as over host devices). Inputs are followed by outputs in the kernel's parameters; the launch dimensions
are the first argument's shape unless ``launch_dims=`` is given; outputs have the launch shape.
The kernel's generated adjoint is its VJP rule (``jax.custom_vjp``), so ``jax.grad`` works.
``block_dim=`` groups the launch's threads into blocks as ``wp.launch(..., block_dim=)`` does: on
CUDA (default 256) a kernel holding tiles runs cooperative blocks, on the CPU the blocks cooperate
with ``wp.config.enable_cpu_blocks`` (else one lane each), as warp-lang's ``jax_kernel`` does.
"""

import ctypes
import functools
import hashlib
import os
import threading

import numpy as np

from ..config import config
from ..types.array import array
from ..types.dtypes import element_shape, scalar_of, type_repr, type_size

TARGET = "warp_interactive_kernel_call"
ADJOINT_TARGET = "warp_interactive_kernel_adjoint"
_HANDLER_SOURCE = os.path.join(os.path.dirname(__file__), "jax_ffi_handler.cpp")
_lock = threading.Lock()
_registered = []   # the loaded handler library, once registered with JAX


# --- the handler library ---------------------------------------------------------------------
def _build_handler(include_dir):
    """The handler library's path: compiled once against this jaxlib's FFI headers (~5 s) by
    the compiler stage, cached like a kernel module."""
    from ..compiler.build import BuildOptions, compile
    from ..types.arraydesc import ARRAY_DESC_SIZE, LAUNCH_BOUNDS_SIZE
    with open(_HANDLER_SOURCE) as f:
        source = (f"#define WPI_ARRAY_DESC_SIZE {ARRAY_DESC_SIZE}\n"
                  f"#define WPI_LAUNCH_BOUNDS_SIZE {LAUNCH_BOUNDS_SIZE}\n" + f.read())
    with open(os.path.join(include_dir, "xla", "ffi", "api", "api.h"), "rb") as f:
        ffi_abi = hashlib.sha256(f.read()).hexdigest()   # the FFI ABI of this jaxlib
    options = BuildOptions("host-library", name="the JAX FFI handler", include_dirs=(include_dir,),
                           key_extra=(ffi_abi,))
    return compile(source, options).path


def _ensure_registered():
    """Build, load and register the FFI target with JAX (once per process)."""
    if _registered:
        return
    with _lock:
        if _registered:
            return
        import jax
        lib = ctypes.CDLL(_build_handler(jax.ffi.include_dir()))
        jax.ffi.register_ffi_target(TARGET, jax.ffi.pycapsule(lib.WpiKernelCall), platform="cpu")
        jax.ffi.register_ffi_target(ADJOINT_TARGET, jax.ffi.pycapsule(lib.WpiKernelAdjoint),
                                    platform="cpu")
        if _jax_gpus():
            jax.ffi.register_ffi_target(TARGET, jax.ffi.pycapsule(lib.WpiKernelCallCuda),
                                        platform="CUDA")
            jax.ffi.register_ffi_target(ADJOINT_TARGET, jax.ffi.pycapsule(lib.WpiKernelAdjointCuda),
                                        platform="CUDA")
        _registered.append(lib)


def _jax_gpus():
    """JAX's local CUDA devices ([] without jax's CUDA plugin or without a GPU)."""
    import jax
    try:
        gpus = jax.local_devices(backend="gpu")
    except RuntimeError:
        return []
    return [d for d in gpus if "rocm" not in str(getattr(d.client, "platform_version", "")).lower()]


def _on_cuda():
    """Whether calls lower for CUDA: JAX's default backend is its CUDA GPU."""
    import jax
    return jax.default_backend() == "gpu" and bool(_jax_gpus())


_CUDA_API = ("cuLaunchKernel", "cuMemsetD8Async", "cuMemcpyAsync")


@functools.lru_cache(maxsize=None)
def _cuda_api():
    """Addresses of the driver functions the CUDA handler calls (resolved in libcuda)."""
    from ..runtime.cuda_backend import _driver_library
    lib = ctypes.CDLL(_driver_library())
    return tuple(ctypes.cast(getattr(lib, name), ctypes.c_void_p).value for name in _CUDA_API)


# --- the JAX-facing callable ---------------------------------------------------------------------
class JaxKernel:
    """A warp kernel called like a JAX function: ``outputs = f(*inputs)`` (always a list)."""

    def __init__(self, kernel, launch_dims=None, block_dim=None, num_outputs=None):
        from ..lang.definitions.kernel import Kernel
        if not isinstance(kernel, Kernel):
            raise TypeError(f"jax_kernel expects a @wp.kernel, got {type(kernel).__name__}")
        for name, t in kernel.arg_types.items():
            if not isinstance(t, array):
                raise TypeError(f"jax_kernel: kernel '{kernel.key}' parameter '{name}' is "
                                f"{type_repr(t)}; all parameters must be arrays")
        if len(kernel.arg_types) < 2:
            raise TypeError(f"jax_kernel: kernel '{kernel.key}' needs at least one input and one "
                            "output array")
        self.kernel = kernel
        self._params = list(kernel.arg_types.items())
        self._differentiable = {}   # number of inputs -> the jax.custom_vjp callable
        self.launch_dims = None if launch_dims is None else _dims(launch_dims)
        self.block_dim = _block_dim(block_dim)
        self.num_outputs = num_outputs
        self.__name__ = kernel.key

    def __call__(self, *args, launch_dims=None):
        params = list(self.kernel.arg_types.items())
        n_in, n_out = len(args), len(params) - len(args)
        if self.num_outputs is not None and n_out != self.num_outputs:
            names = ", ".join(name for name, _ in params[:len(params) - self.num_outputs])
            n = len(params) - self.num_outputs
            raise ValueError(f"Expected {n} input{'' if n == 1 else 's'} ({names}), but got {n_in}")
        if launch_dims is not None:
            return JaxKernel(self.kernel, launch_dims, self.block_dim, self.num_outputs)(*args)
        if n_in < 1 or n_out < 1:
            raise TypeError(f"jax_kernel '{self.kernel.key}' has {len(params)} array parameters: "
                            f"pass 1 to {len(params) - 1} inputs (the rest are outputs), got {n_in}")
        for (name, t), x in zip(params, args):
            self._check_input(name, t, x)
        fn = self._differentiable.get(n_in)
        if fn is None:
            fn = self._differentiable[n_in] = self._make_differentiable()
        return list(fn(*args))

    def _make_differentiable(self):
        """The forward call with the kernel's generated adjoint as its JAX VJP rule."""
        import jax

        @jax.custom_vjp
        def call(*xs):
            return tuple(self._forward(xs))

        def call_fwd(*xs):
            return tuple(self._forward(xs)), xs

        def call_bwd(xs, cotangents):
            return tuple(self._adjoint(xs, cotangents))

        call.defvjp(call_fwd, call_bwd)
        return call

    def _launch_shape(self, xs):
        return self.launch_dims or tuple(int(s) for s in xs[0].shape[:self._params[0][1].ndim])

    def _attrs(self, which, dims):
        """The handler's attributes: the same set for both platforms, filled for the one the
        call lowers for (the other's fields are zero, and its handler says so if reached)."""
        params = self._params
        cuda = _on_cuda()
        kernel, block, width = self._launched(cuda)
        if cuda:
            from ..runtime.cuda.modules import block_scratch_bytes
            entry, functions = 0, self._cuda_functions(kernel, which)
            api = [*_cuda_api(), block, 0, block_scratch_bytes() if width > 1 else 0]
        else:
            entry, functions, api = self._entry(kernel, which), [0], [0] * 6
        i64 = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
        return dict(entry=np.int64(entry), cuda_functions=i64(functions), cuda_api=i64(api),
                    block_width=np.int64(width), launch_dims=i64(dims),
                    ranks=np.array([t.ndim for _, t in params], dtype=np.int64),
                    elem_sizes=np.array([type_size(t.dtype) for _, t in params], dtype=np.int64))

    def _forward(self, xs):
        import jax
        dims = self._launch_shape(xs)
        outs = [self._output_type(name, t, dims) for name, t in self._params[len(xs):]]
        _ensure_registered()
        call = jax.ffi.ffi_call(TARGET, outs, vmap_method="sequential")
        return call(*xs, **self._attrs("forward", dims))

    def _adjoint(self, xs, cotangents):
        """Gradients of the inputs from the outputs' cotangents, by the kernel's backward entry."""
        import jax
        dims = self._launch_shape(xs)
        outs = [self._output_type(name, t, dims) for name, t in self._params[len(xs):]]
        grads = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in xs]
        call = jax.ffi.ffi_call(ADJOINT_TARGET, grads + outs + outs, vmap_method="sequential")
        cots = [c.astype(o.dtype) for c, o in zip(cotangents, outs)]
        results = call(*xs, *cots, **self._attrs("backward", dims))
        return [g if jax.numpy.issubdtype(x.dtype, jax.numpy.inexact)
                else np.zeros(x.shape, dtype=jax.dtypes.float0)
                for g, x in zip(results[:len(xs)], xs)]

    def _check_input(self, name, t, x):
        from .jax import dtype_from_jax
        where = f"jax_kernel '{self.kernel.key}' input '{name}'"
        es = element_shape(t.dtype)
        if dtype_from_jax(x.dtype) is not scalar_of(t.dtype):
            raise TypeError(f"{where}: expected {type_repr(scalar_of(t.dtype))} data for "
                            f"{type_repr(t.dtype)}, got {x.dtype}")
        if len(x.shape) != t.ndim + len(es) or (es and tuple(x.shape[t.ndim:]) != es):
            raise ValueError(f"{where}: expected {t.ndim} dimension(s) of {type_repr(t.dtype)} "
                             f"(shape (..){' + ' + str(es) if es else ''}), got shape {x.shape}")

    def _output_type(self, name, t, dims):
        import jax
        from .jax import dtype_to_jax
        if t.ndim != len(dims):
            raise ValueError(f"jax_kernel '{self.kernel.key}' output '{name}' has {t.ndim} "
                             f"dimension(s) but the launch has {len(dims)} {dims}: outputs take "
                             "the launch shape (pass launch_dims=)")
        return jax.ShapeDtypeStruct(tuple(dims) + element_shape(t.dtype), dtype_to_jax(t.dtype))

    def _current_kernel(self):
        k = self.kernel
        if not k.is_registered():
            raise RuntimeError(f"jax_kernel: kernel '{k.key}' was defined again in module "
                               f"'{k.module.name}' after this jax_kernel was made: call "
                               "jax_kernel on the newer definition")
        return k

    def _launched(self, cuda):
        """(kernel, threads per block, lanes per cooperative block) of a call, as ``wp.launch(...,
        block_dim=self.block_dim)`` resolves them (runtime/launch.py): on CUDA a kernel holding tiles
        runs its build for cooperative blocks of ``block_dim`` lanes; on the CPU every kernel does
        with ``wp.config.enable_cpu_blocks`` and ``block_dim`` > 1, else one lane per block."""
        from ..runtime.launch import cpu_block_width, cuda_block_dim, cuda_blocks
        k = self._current_kernel()
        if cuda:
            block = cuda_block_dim(self.block_dim)
            launched, width = cuda_blocks(k, block)
            return launched, block, width if launched.block_width > 1 else 1
        width = cpu_block_width(self.block_dim, "cpu")
        return (k.with_block_width(width) if width > 1 else k), width, width

    def _entry(self, k, which):
        from ..runtime.device import get_device
        return k.module.load(get_device("cpu"), backward=which == "backward").kernel(k.cpp).entry(which)

    def _cuda_functions(self, k, which):
        """The kernel's CUDA entry (a CUfunction) on each of JAX's GPUs, by device ordinal."""
        from ..runtime.device import get_device
        ordinals = [int(d.local_hardware_id) for d in _jax_gpus()]
        table = [0] * (max(ordinals) + 1)
        for o in ordinals:
            lm = k.module.load(get_device(f"cuda:{o}"), backward=which == "backward")
            table[o] = int(lm.kernel(k.cpp).entry(which))
        return table


def _dims(d):
    d = (int(d),) if isinstance(d, (int, np.integer)) else tuple(int(x) for x in d)
    if not 1 <= len(d) <= 4:
        raise ValueError(f"launch_dims must have 1 to 4 dimensions, got {d}")
    return d


def _block_dim(block_dim):
    """``jax_kernel``'s ``block_dim``: None or a positive int (warp-lang's checks and texts)."""
    if block_dim is None:
        return None
    if isinstance(block_dim, bool) or not isinstance(block_dim, (int, np.integer)):
        raise TypeError("jax_kernel(): block_dim must be an integer or None.")
    if block_dim <= 0:
        raise ValueError("jax_kernel(): block_dim must be positive.")
    return int(block_dim)


_kernels = {}     # jax_kernel's arguments -> the callable (the same one for the same call)


def jax_kernel(kernel, num_outputs=None, vmap_method="broadcast_all", launch_dims=None, output_dims=None,
               in_out_argnames=None, module_preload_mode=1, enable_backward=False, has_side_effect=False,
               block_dim=None):
    """Turn a warp kernel into a JAX callable usable under ``jax.jit`` (warp-lang 1.19's
    arguments); the call takes the inputs and returns the list of outputs.

    A kernel whose parameters are all arrays, called without ``in_out_argnames``, ``output_dims``
    or ``has_side_effect``, runs through the XLA FFI handler: zero-copy, on JAX's CPU or CUDA
    device, under ``shard_map``, with the kernel's adjoint as its VJP whatever
    ``enable_backward`` says; its outputs have the launch shape (the first input's shape, or
    ``launch_dims``), and without ``num_outputs`` the inputs are as many as the call passes.
    Anything else (scalar parameters, which are static values as in warp-lang; in-out
    arguments; ``output_dims``) runs through a host callback on the CPU device
    (jax_kernel_host.py), with the adjoint as VJP when ``enable_backward=True``.
    ``block_dim``: threads per block, as ``wp.launch(..., block_dim=)``; a tiled kernel's
    ``launch_dims`` include the block's lanes as the last dimension, as warp-lang's.
    ``module_preload_mode`` is accepted: modules load at the first call."""
    from ..lang.definitions.kernel import Kernel
    if not isinstance(kernel, Kernel):
        raise TypeError(f"jax_kernel expects a @wp.kernel, got {type(kernel).__name__}")
    block_dim = _block_dim(block_dim)
    key = (kernel, num_outputs, vmap_method, _hashable(launch_dims), _hashable(output_dims),
           tuple(in_out_argnames) if in_out_argnames else None, int(module_preload_mode),
           bool(enable_backward), bool(has_side_effect), block_dim,
           config.enable_cpu_blocks)   # read when a call lowers: jax.jit keeps one lowering per callable
    made = _kernels.get(key)
    if made is not None and getattr(made, "kernel", None) is kernel:
        return made
    all_arrays = all(isinstance(t, array) for t in kernel.arg_types.values())
    if all_arrays and len(kernel.arg_types) >= 2 and not in_out_argnames and output_dims is None \
            and not has_side_effect:
        made = JaxKernel(kernel, launch_dims, block_dim, num_outputs)
    else:
        from .jax_kernel_host import HostJaxKernel
        made = HostJaxKernel(kernel, 1 if num_outputs is None else num_outputs, vmap_method, launch_dims,
                             output_dims, in_out_argnames, enable_backward, has_side_effect, block_dim)
    _kernels[key] = made
    return made


def _hashable(x):
    if isinstance(x, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return tuple(_hashable(v) for v in x)
    return x
