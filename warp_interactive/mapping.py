"""``wp.map(func, *inputs, out=None, return_kernel=False, block_dim=None, device=None)``: apply a
function elementwise over arrays, as in warp-lang 1.19.

``func`` is a builtin (``wp.clamp``), a ``@wp.func`` or a plain Python function / lambda whose body
kernels can run. Inputs are arrays (broadcast together by NumPy's rules) and values (the same for
every element). A kernel is generated as Python text (registered with ``linecache`` so that it is
translated like any other kernel), one per function, argument types and broadcast pattern, and
kept in ``map_cache``; its outputs' types are the function's return types, found by translating
the call for the inputs' element types before the kernel is made."""

import ast
import inspect
import itertools

import numpy as np

from .lang.builtins.function import BuiltinFunction
from .lang.definitions.decorators import kernel as wp_kernel
from .lang.definitions.func import Function
from .lang.definitions.generics import type_of_value
from .lang.builtins.registry import type_name
from .runtime.device import get_device
from .runtime.launch import launch
from .types import scalars as sc
from .types.array import array
from .types.array_factories import empty
from .utils.function_source import exec_generated, python_function_as_func

map_cache = {}    # (function, argument types, broadcast pattern, output types) -> generated kernel
_returns = {}     # (function, argument types, broadcast pattern) -> the function's return types
_counter = itertools.count()


def map(func, *inputs, out=None, return_kernel=False, block_dim=None, device=None):  # noqa: A001
    """Map ``func`` over the elements of the array inputs (see the module's doc); the output
    array (a list of them for a function returning several values), or the kernel with
    ``return_kernel=True`` (its parameters: the inputs, then the outputs)."""
    arrays = [x for x in inputs if isinstance(x, array)]
    if not arrays:
        raise ValueError("map requires at least one warp.array input")
    device = get_device(device if device is not None else arrays[0].device)
    shape = _broadcast_shape([a.shape for a in arrays])
    fn, name, n_params = _as_function(func)
    if n_params is not None and n_params != len(inputs):
        raise TypeError(f"Number of input arguments ({len(inputs)}) does not match expected number of "
                        f"function arguments ({n_params})")
    in_types = [_input_type(x) for x in inputs]
    pattern = tuple(_pattern(x.shape, len(shape)) if isinstance(x, array) else None for x in inputs)
    key = (_function_key(func, fn), tuple(_type_key(t) for t in in_types), pattern, len(shape))
    ret_types = _returns.get(key)
    if ret_types is None:
        ret_types = _returns[key] = _return_types(fn, name, in_types)
    outs = _outputs(out, ret_types, shape, device, arrays)
    out_types = [_input_type(o) for o in outs]      # an indexed output array is indexed in the kernel
    kkey = key + (tuple(_type_key(t) for t in out_types),)
    kernel = map_cache.get(kkey)
    if kernel is None:
        kernel = map_cache[kkey] = _make_kernel(fn, in_types, pattern, out_types, len(shape))
    if return_kernel:
        return kernel
    launch(kernel, dim=shape, inputs=list(inputs), outputs=outs, device=device, block_dim=block_dim)
    if out is not None:
        return out
    return outs[0] if len(outs) == 1 else outs


# --- what the function is ----------------------------------------------------------------------
def _as_function(func):
    """(the callable kernels see, its name for messages, its parameter count or None)."""
    if isinstance(func, BuiltinFunction):
        return func, func.key, None
    if isinstance(func, Function):
        return func, _key_name(func.func.__qualname__), func.func.__code__.co_argcount
    if inspect.isfunction(func):
        return python_function_as_func(func), _key_name(func.__qualname__), func.__code__.co_argcount
    raise TypeError(f"wp.map: func must be a Warp builtin, a @wp.func or a Python function, got "
                    f"{type(func).__name__}")


def _key_name(qualname):
    """warp-lang's spelling of a function's key in messages (``f.<locals>.g`` -> ``f__locals__g``)."""
    return qualname.replace("<", "").replace(">", "").replace(".", "__")


def _function_key(func, fn):
    if inspect.isfunction(func):       # a lambda: by its text and the values it closes over
        cells = tuple(_value_key(c.cell_contents) for c in (func.__closure__ or ()))
        return ("py", fn._wp_map_source, cells)
    return ("fn", id(func))


def _value_key(v):
    try:
        hash(v)
        return v
    except TypeError:
        return id(v)


# --- types and shapes --------------------------------------------------------------------------
def _input_type(x):
    t = type_of_value(x)
    if t is None:
        raise TypeError(f"wp.map: cannot pass a value of type {type(x).__name__} to a kernel")
    return t


def _type_key(t):
    from .lang.annotations import type_key
    return type_key(t)


def _elem_type(t):
    return t.dtype if isinstance(t, array) else t


def _broadcast_shape(shapes):
    out = ()
    for s in shapes:
        try:
            out = tuple(np.broadcast_shapes(out, tuple(s)))
        except ValueError:
            raise ValueError(f"Shapes {out} and {tuple(s)} are not broadcastable") from None
    if len(out) > 4:
        raise ValueError(f"wp.map: the broadcast shape {out} has more than 4 dimensions")
    return out


def _pattern(shape, ndim):
    """Per output dimension, whether the input indexes it (its own, right-aligned, not of size 1)."""
    offset = ndim - len(shape)
    return tuple(d >= offset and shape[d - offset] != 1 for d in range(ndim))


def _return_types(fn, name, in_types):
    """The function's return types for these element types (translating the call once)."""
    from .errors import CodegenError
    if isinstance(fn, Function) and not any(isinstance(n, ast.Return) and n.value is not None
                                            for n in ast.walk(fn.src.tree)):
        raise TypeError("The provided function must return a value")
    params = [f"a{i}" for i in range(len(in_types))]
    text = f"def _wp_map_probe({', '.join(params)}):\n    return _fn({', '.join(params)})\n"
    probe = exec_generated(text, {"_fn": fn}, "_wp_map_probe")
    probe.__annotations__ = {p: _elem_type(t) for p, t in zip(params, in_types)}
    ov = Function(probe, f"warp_interactive.mapping_probe_{next(_counter)}").overloads[0]
    try:
        ret = list(ov.ir.return_types)
    except CodegenError as e:
        given = ", ".join(type_name(_elem_type(t)) for t in in_types)
        if "return" in str(e) and "None" in str(e):
            raise TypeError("The provided function must return a value") from None
        raise TypeError(f"Function {name} does not support the provided argument types {given}: "
                        f"{str(e).strip().splitlines()[-1]}") from None
    if not ret or ret == [None]:
        raise TypeError("The provided function must return a value")
    return ret


def _make_kernel(fn, in_types, pattern, out_types, ndim):
    idx = [f"i{d}" for d in range(ndim)]
    args = []
    for i, (t, pat) in enumerate(zip(in_types, pattern)):
        if pat is None:
            args.append(f"in{i}")
        else:
            sub = [(idx[ndim - t.ndim + k] if pat[ndim - t.ndim + k] else "0") for k in range(t.ndim)]
            args.append(f"in{i}[{', '.join(sub)}]")
    outs = [f"out{j}" for j in range(len(out_types))]
    results = [f"r{j}" for j in range(len(out_types))]
    tid = f"{', '.join(idx)} = _tid()" if ndim > 1 else f"{idx[0]} = _tid()"
    body = [tid, f"{', '.join(results)} = _fn({', '.join(args)})"]
    body += [f"{o}[{', '.join(idx)}] = {r}" for o, r in zip(outs, results)]
    names = [f"in{i}" for i in range(len(in_types))] + outs
    text = f"def _wp_map_kernel({', '.join(names)}):\n" + "".join(f"    {ln}\n" for ln in body)
    py = exec_generated(text, {"_fn": fn, "_tid": BuiltinFunction("tid")}, "_wp_map_kernel")
    ann = {f"in{i}": t for i, t in enumerate(in_types)}
    ann.update(zip(outs, out_types))
    py.__annotations__ = ann
    return wp_kernel(py, module="unique")


def _outputs(out, ret_types, shape, device, arrays):
    n = len(ret_types)
    if out is None:
        grad = any(a.requires_grad for a in arrays)
        return [empty(shape, dtype=r, device=device, requires_grad=grad and _differentiable(r))
                for r in ret_types]
    if n == 1 and isinstance(out, array):
        _check_output(out, ret_types[0], shape, "")
        return [out]
    if not isinstance(out, (list, tuple)):
        dtypes = ", ".join(type_name(r) for r in ret_types)
        raise TypeError(f"Invalid output provided, expected {n} Warp arrays with shape {shape} and dtypes ({dtypes})")
    if len(out) != n:
        raise TypeError(f"Number of provided output arrays ({len(out)}) does not match expected number of "
                        f"function outputs ({n})")
    for j, (o, r) in enumerate(zip(out, ret_types)):
        _check_output(o, r, shape, f" {j}" if n > 1 else "")
    return list(out)


def _check_output(o, dtype, shape, which):
    from .lang.annotations import type_key
    if type_key(o.dtype) != type_key(dtype):
        raise TypeError(f"Output array{which} dtype {type_name(o.dtype)} does not match expected dtype {type_name(dtype)}")
    if tuple(o.shape) != tuple(shape):
        raise TypeError(f"Output array{which} shape {tuple(o.shape)} does not match expected shape {tuple(shape)}")


def _differentiable(t):
    s = getattr(t, "_wp_scalar_type_", t)
    return sc.is_float(s)
