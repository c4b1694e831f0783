"""``jax_callable``: a Python function that launches Warp kernels, called from JAX (under
``jax.jit``, ``jax.vmap``...) as warp-lang 1.19's ``wp.jax_callable``.

The function's parameters are annotated like a kernel's: array inputs and static scalar inputs
first, then the outputs (the last ``num_outputs`` parameters, less the in-out ones, which are
inputs that the function updates in place and that are returned as outputs first). The call
takes the inputs and returns the list of outputs; an output's shape is ``output_dims`` (one
shape for all, or a dict by name) or else the first array input's shape.

Here the call is a JAX host callback (``jax.pure_callback``; ``io_callback`` with
``has_side_effect=True``): JAX hands the inputs over as host buffers, the function runs on
Warp's CPU device, and its outputs go back to JAX (copied to JAX's device when that is a GPU).
warp-lang instead registers an XLA FFI handler that runs the function on the device of the call,
with CUDA graph capture under ``graph_mode``. Here ``JAX`` and ``NONE`` (warp-lang's modes that
run on its CPU too) run the function directly, and the Warp-capture modes are refused as
warp-lang refuses them on the CPU; so there is no graph cache (``clear_jax_callable_graph_cache``
has nothing to clear) and modules load on the first launch whatever ``module_preload_mode`` says.
"""

import enum
import inspect
import threading

import numpy as np

from ..types.array import array
from ..types.dtypes import element_shape, scalar_of, type_repr

JAX_CALLABLE_DEFAULT_GRAPH_CACHE_MAX = 32


class JaxCallableGraphMode(enum.IntEnum):
    """CUDA graph capture modes for :func:`jax_callable` (here JAX and NONE run the function
    directly; WARP, WARP_STAGED and WARP_STAGED_EX, which capture CUDA graphs, are refused)."""

    NONE = 0
    JAX = 1
    WARP = 2
    WARP_STAGED = 3
    WARP_STAGED_EX = 4


class JaxModulePreloadMode(enum.IntEnum):
    """Module preload modes for JAX interop callables."""

    NONE = 0
    CURRENT_DEVICE = 1
    ALL_DEVICES = 2


_lock = threading.Lock()
_callables = {}   # the arguments of jax_callable -> the callable (the same one for the same call)


class _Param:
    def __init__(self, name, annotation):
        self.name, self.type = name, annotation
        self.is_array = isinstance(annotation, array)
        if self.is_array:
            self.inner = element_shape(annotation.dtype)
            self.jax_ndim = annotation.ndim + len(self.inner)

    def jax_dtype(self):
        from .jax import dtype_to_jax
        return dtype_to_jax(scalar_of(self.type.dtype))

    def output_type(self, dims):
        """The JAX shape of this output for ``dims`` (Warp's shape, or with the inner dims)."""
        import jax
        dims = (int(dims),) if isinstance(dims, (int, np.integer)) else tuple(int(d) for d in dims)
        if len(dims) == self.type.ndim:
            dims = dims + self.inner
        elif not self.inner or len(dims) != self.jax_ndim or dims[-len(self.inner):] != self.inner:
            raise ValueError(f"Invalid output dimensions for argument '{self.name}': {dims}")
        return jax.ShapeDtypeStruct(dims, self.jax_dtype())


def _parameters(func):
    sig = inspect.signature(func)
    hints = {}
    for name, p in sig.parameters.items():
        ann = p.annotation
        if isinstance(ann, str):
            ann = eval(ann, func.__globals__)   # noqa: S307  (postponed annotations)
        if ann is inspect.Parameter.empty:
            raise TypeError(f"jax_callable: parameter '{name}' of {func.__name__} has no type annotation")
        hints[name] = _Param(name, ann)
    return list(hints.values())


class FfiCallable:
    """The JAX-facing callable: ``outputs = f(*inputs, output_dims=None, vmap_method=None)``."""

    def __init__(self, func, num_outputs, graph_mode, vmap_method, output_dims, in_out_argnames,
                 has_side_effect, stage_in_argnames=None, stage_out_argnames=None, params=None):
        names = list(in_out_argnames or ())
        if len(set(names)) != len(names):
            raise ValueError("in_out_argnames must not contain duplicate names")
        params = _parameters(func) if params is None else params
        num_inputs = len(params) - num_outputs + len(names)
        if num_outputs < 1:
            raise ValueError("At least one output is required")
        if num_outputs > len(params):
            raise ValueError("Number of outputs cannot be greater than the number of kernel arguments")
        if num_outputs < len(names):
            raise ValueError("Number of outputs cannot be smaller than the number of in_out_argnames")
        for i, p in enumerate(params):
            if p.name in names and i >= num_inputs:
                raise ValueError(f"Expected an output-only argument for argument {p.name}. in_out arguments "
                                 "should be placed before output-only arguments.")
        unknown = set(names) - {p.name for p in params}
        if unknown:
            raise ValueError(f"in_out_argnames: '{unknown}' did not match any function argument names.")
        self.func, self.graph_mode, self.vmap_method = func, graph_mode, vmap_method
        self.output_dims, self.has_side_effect = output_dims, has_side_effect
        self.stage_in_argnames = set(stage_in_argnames) if stage_in_argnames else None
        self.stage_out_argnames = set(stage_out_argnames) if stage_out_argnames else None
        self.input_args, self.output_args = params[:num_inputs], params[num_inputs:]
        self.in_out_args = [p for p in self.input_args if p.name in names]
        for p in self.in_out_args + self.output_args:
            if not p.is_array:
                raise TypeError(f"Output argument '{p.name}' must be an array")
        self.num_inputs, self.num_outputs = num_inputs, num_outputs
        self.first_array_arg = next((i for i, p in enumerate(self.input_args) if p.is_array), None)
        self.__name__ = getattr(func, "__name__", "jax_callable")

    def __call__(self, *args, output_dims=None, vmap_method=None):
        import jax
        if self.graph_mode not in (JaxCallableGraphMode.NONE, JaxCallableGraphMode.JAX):
            raise RuntimeError(f"JaxCallableGraphMode.{self.graph_mode.name} captures a CUDA graph: it "
                               "requires CUDA, and jax_callable runs its function on the CPU here "
                               "(use JaxCallableGraphMode.JAX or NONE)")
        if len(args) != self.num_inputs:
            names = ", ".join(p.name for p in self.input_args)
            s = "" if self.num_inputs == 1 else "s"
            raise ValueError(f"Expected {self.num_inputs} input{s} ({names}), but got {len(args)}")
        vmap_method = self.vmap_method if vmap_method is None else vmap_method
        output_dims = self.output_dims if output_dims is None else output_dims
        arrays, statics = [], {}
        for p, x in zip(self.input_args, args):
            if p.is_array:
                self._check_input(p, x)
                arrays.append(x)
            else:
                if isinstance(x, jax.core.Tracer):
                    raise ValueError(f"Argument '{p.name}' must be a static value")
                statics[p.name] = p.type(x) if callable(p.type) else x
        out_types = [jax.ShapeDtypeStruct(x.shape, x.dtype)
                     for p, x in zip(self.input_args, args) if p in self.in_out_args]
        out_types += [p.output_type(self._dims(p, output_dims, args)) for p in self.output_args]

        context = self._context(args)

        def host(*values):
            return self._run(values, statics, out_types, context)

        if self.has_side_effect:
            from jax.experimental import io_callback
            results = io_callback(host, out_types, *arrays)
        else:
            results = jax.pure_callback(host, out_types, *arrays, vmap_method=vmap_method)
        return list(results)

    def _dims(self, p, output_dims, args):
        if isinstance(output_dims, dict):
            if output_dims.get(p.name) is None:
                raise ValueError(f"Missing output dimensions for argument '{p.name}'")
            return output_dims[p.name]
        if output_dims is not None:
            return output_dims
        if self.first_array_arg is None:
            raise ValueError("Unable to determine output dimensions")
        first = self.input_args[self.first_array_arg]
        return tuple(args[self.first_array_arg].shape[:first.type.ndim])

    @staticmethod
    def _check_input(p, x):
        from .jax import dtype_from_jax
        if dtype_from_jax(x.dtype) is not scalar_of(p.type.dtype):
            raise TypeError(f"Invalid data type for array argument '{p.name}', expected "
                            f"{np.dtype(p.jax_dtype())}, got {x.dtype}")
        if x.ndim != p.jax_ndim:
            raise TypeError(f"Invalid dimensionality for array argument '{p.name}', expected "
                            f"{p.jax_ndim} dimensions, got {x.ndim}")
        if p.inner and tuple(x.shape[-len(p.inner):]) != p.inner:
            raise TypeError(f"Invalid inner dimensions for array argument '{p.name}', expected "
                            f"{p.inner}, got {tuple(x.shape[-len(p.inner):])}")

    def _context(self, args):
        """What the host side needs to know of this call besides its buffers (subclasses)."""
        return None

    def _invoke(self, inputs, outputs, context):
        self.func(*inputs.values(), *outputs)

    def _run(self, values, statics, out_types, context):
        """The host side of a call. Under ``jax.vmap`` (``broadcast_all``, ``expand_dims``) the
        inputs arrive with leading batch axes: the function then runs once per batch element, as
        ``sequential`` would run it."""
        arrays = [p for p in self.input_args if p.is_array]
        values = [np.asarray(v) for v in values]
        batches = [v.shape[:v.ndim - p.jax_ndim] for p, v in zip(arrays, values)]
        batch = np.broadcast_shapes(*batches) if batches else ()
        if not batch:
            return self._run_one(values, statics, out_types, context)
        values = [np.broadcast_to(v, batch + v.shape[len(b):]) for v, b in zip(values, batches)]
        results = [np.empty(batch + t.shape, dtype=t.dtype) for t in out_types]
        for idx in np.ndindex(batch):
            for r, one in zip(results, self._run_one([v[idx] for v in values], statics, out_types, context)):
                r[idx] = one
        return tuple(results)

    def _run_one(self, values, statics, out_types, context):
        """Warp arrays over copies of JAX's buffers, the function run on the CPU device, the
        in-out arrays and the outputs handed back."""
        from ..runtime.device import ScopedDevice
        from ..runtime.utils import synchronize_device
        values = iter(values)
        with ScopedDevice("cpu"):
            inputs = {}
            for p in self.input_args:
                if p.is_array:
                    host = np.array(next(values), copy=True)
                    inputs[p.name] = array(host, dtype=p.type.dtype, device="cpu")
                else:
                    inputs[p.name] = statics[p.name]
            n_in_out = len(self.in_out_args)
            outputs = [array(shape=t.shape[:p.type.ndim], dtype=p.type.dtype, device="cpu")
                       for p, t in zip(self.output_args, out_types[n_in_out:])]
            for o in outputs:
                o.zero_()
            self._invoke(inputs, outputs, context)
            synchronize_device("cpu")
            results = [inputs[p.name] for p in self.in_out_args] + outputs
            return tuple(np.ascontiguousarray(r.numpy()).reshape(t.shape).astype(t.dtype, copy=False)
                         for r, t in zip(results, out_types))


def _hashable(x):
    if isinstance(x, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return tuple(_hashable(v) for v in x)
    return x


def jax_callable(func, num_outputs=1, graph_mode=JaxCallableGraphMode.JAX, vmap_method="broadcast_all",
                 output_dims=None, in_out_argnames=None, stage_in_argnames=None, stage_out_argnames=None,
                 graph_cache_max=JAX_CALLABLE_DEFAULT_GRAPH_CACHE_MAX,
                 module_preload_mode=JaxModulePreloadMode.CURRENT_DEVICE, has_side_effect=False):
    """A JAX callable running the annotated Python function ``func`` (see the module's text).

    The same arguments give the same callable (warp-lang's cache). ``stage_*_argnames``,
    ``graph_cache_max`` and ``module_preload_mode`` concern graph capture and module loading,
    which do not happen here; they are checked and kept in the cache key."""
    graph_mode = JaxCallableGraphMode(graph_mode)
    module_preload_mode = JaxModulePreloadMode(module_preload_mode)
    if graph_cache_max is not None and int(graph_cache_max) < 0:
        raise ValueError(f"graph_cache_max must be non-negative or None, got {graph_cache_max}")
    key = (func, num_outputs, graph_mode, vmap_method, _hashable(output_dims),
           tuple(in_out_argnames) if in_out_argnames else None,
           tuple(stage_in_argnames) if stage_in_argnames else None,
           tuple(stage_out_argnames) if stage_out_argnames else None,
           graph_cache_max, module_preload_mode, bool(has_side_effect))
    with _lock:
        made = _callables.get(key)
        if made is None:
            made = _callables[key] = FfiCallable(func, num_outputs, graph_mode, vmap_method, output_dims,
                                                 in_out_argnames, bool(has_side_effect),
                                                 stage_in_argnames, stage_out_argnames)
    return made


def clear_jax_callable_graph_cache(callable=None):   # noqa: A002  (warp-lang's parameter name)
    """Release the CUDA graphs ``callable`` (or every jax_callable) captured: here none are
    captured (see the module's text), so there is nothing to release."""
    if callable is not None and not isinstance(callable, FfiCallable):
        raise TypeError(f"Expected a callable created by jax_callable, got {type(callable).__name__}")
