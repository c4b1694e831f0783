"""Packing Python launch arguments into a kernel's C argument struct.

A kernel's struct layout is its KernelEntry's (build/entry.py: a ctypes Structure whose fields
mirror the C++ ``K_args``); each parameter gets a converter that validates a Python value and returns its C
value, with errors naming the kernel and the parameter.
"""

import ctypes

import numpy as np

from .. import hooks
from ..build.entry import ADJ
from ..errors import ArgError
from ..lang.builtins.registry import type_name
from ..types import composite as comp
from ..types import scalars as sc
from ..types.array import array
from ..types.arraydesc import ArrayDesc, IndexedArrayDesc
from ..types.indexedarray import is_indexed
from ..types.dtypes import np_dtype_of


def as_array(value, t, device):
    """A wp.array for parameter type ``t`` from a wp array, NumPy array or array-like."""
    if isinstance(value, array):
        return value
    if hasattr(value, "__array_interface__") or isinstance(value, np.ndarray):
        a = np.asarray(value)
        want = np_dtype_of(t.dtype)
        if a.dtype != want:
            raise ArgError(f"expected a NumPy array of {want}, got {a.dtype}")
        return array(a, dtype=t.dtype, copy=False, device=device)
    # torch tensors, __cuda_array_interface__, __dlpack__, __array__ (raises ArgError otherwise)
    return hooks.foreign_array(value, t, device)


def convert_array(value, t, device, grad=None, check=None):
    """``check(array or None)``, if given, vets what the kernel will do with it (see pack)."""
    if value is None:
        if check is not None:
            check(None)
        return IndexedArrayDesc() if is_indexed(t) else ArrayDesc()
    if isinstance(value, ArrayDesc) and not is_indexed(t):   # from from_torch(..., return_ctype=True)
        return value
    a = as_array(value, t, device)
    if is_indexed(a) != is_indexed(t):
        raise ArgError(f"expected {'an indexedarray' if is_indexed(t) else 'an array'}, got "
                       f"{'an indexedarray' if is_indexed(a) else type(a).__name__}")
    if check is not None and a._unwritable is not None:
        check(a)
    if a.dtype is not t.dtype and type_name(a.dtype) != type_name(t.dtype):
        raise ArgError(f"expected an array of {type_name(t.dtype)}, got an array of {type_name(a.dtype)}")
    if a.ndim != t.ndim:
        raise ArgError(f"expected an array of {t.ndim} dimension(s), got {a.ndim} (shape {a.shape})")
    if a.device is not device:
        raise ArgError(f"the array is on device {a.device}, but the launch is on {device}")
    if grad is None:
        return a.desc()
    d = type(a.desc()).from_buffer_copy(a.desc())
    d.grad = _grad_ptr(grad, t, device) if grad is not False else 0
    return d


def _grad_ptr(grad, t, device):
    """The gradient memory an adjoint launch passes for an array parameter (an indexed array's
    gradient is its data's gradient: the indices stay those of the array)."""
    g = as_array(grad, t, device)
    return g.data.ptr if is_indexed(g) else g.ptr


def convert_scalar(value, t):
    if isinstance(value, sc.Scalar):
        value = value.value
    if isinstance(value, np.generic):
        value = value.item()
    if t is sc.bool_:
        if not isinstance(value, (bool, int)):
            raise ArgError(f"expected a bool, got {type(value).__name__}")
        return bool(value)
    if sc.is_int(t):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgError(f"expected an integer ({t.__name__}), got {type(value).__name__} {value!r}")
        info = np.iinfo(t._np_dtype)
        if not info.min <= value <= info.max:
            raise ArgError(f"{value} does not fit in {t.__name__}")
        return value
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ArgError(f"expected a number ({t.__name__}), got {type(value).__name__}")
    if t is sc.float16 or t is sc.bfloat16:
        return sc.to_storage(t, value)   # their bit patterns
    return float(value)


def convert_composite(value, t):
    if isinstance(value, t):
        return value
    if isinstance(value, comp.Composite) and value._shape_ != t._shape_:
        raise ArgError(f"expected {t.__name__}, got {type(value).__name__}")
    try:
        return t(value) if not np.isscalar(value) else None
    except (ValueError, TypeError) as e:
        raise ArgError(f"expected {t.__name__}: {e}") from None


def convert(value, t, device, grad=None, check=None):
    """The C value for a parameter of type ``t``."""
    if isinstance(t, array):
        return convert_array(value, t, device, grad, check)
    if sc.is_scalar(t):
        return convert_scalar(value, t)
    if comp.is_composite(t):
        v = convert_composite(value, t)
        if v is None:
            raise ArgError(f"expected {t.__name__}, got {type(value).__name__}")
        return v
    if hasattr(t, "_wp_struct_"):
        if not isinstance(value, t):
            raise ArgError(f"expected a {t.__name__} instance, got {type(value).__name__}")
        return value.to_ctype()
    raise ArgError(f"unsupported parameter type {t!r}")


def pack(kernel, struct, values, device, grads=None):
    """A filled ``struct`` (the kernel entry's ``args``, or ``backward_args`` when ``grads``, an
    adjoint launch's array gradients, are given) for ``kernel``."""
    types = kernel.arg_types
    if len(values) != len(types):
        names = ", ".join(types)
        raise TypeError(f"kernel '{kernel.key}' takes {len(types)} arguments ({names}), "
                        f"got {len(values)}")
    st = struct()
    for i, ((name, t), v) in enumerate(zip(types.items(), values)):
        g = grads[i] if grads is not None else None
        try:
            setattr(st, name, convert(v, t, device, g, _access_check(kernel, name)))
        except ArgError as e:
            raise TypeError(f"kernel '{kernel.key}' argument '{name}' (type {type_name(t)}): {e}") from None
        if g is None or g is False or not comp.passes_adjoint_value(t):
            continue
        try:    # a by-value adjoint (an adjoint launch's adj_inputs/adj_outputs entry)
            setattr(st, name + ADJ, convert(g, t, device))
        except ArgError as e:
            raise TypeError(f"kernel '{kernel.key}' adjoint of argument '{name}' (type {type_name(t)}): "
                            f"{e}") from None
    return st


def _access_check(kernel, name):
    """A check for an array argument that is None or must not be written: refused when the
    kernel indexes it other than under ``if a:`` (None: as in warp-lang, whose kernels test a
    None array that way) or may write (read-only, stride-0) it. Translates the kernel only
    then, so ordinary launches never pay for the analysis."""
    def check(a):
        from ..lang.analysis.access import kernel_access, kernel_unguarded
        access = kernel_access(kernel).get(name, ())
        if a is None and access and name in kernel_unguarded(kernel):
            raise ArgError(f"is None, but kernel '{kernel.key}' indexes it outside a test of it; "
                           f"pass an array (None stands only for an array a kernel does not index, "
                           f"or indexes only under 'if {name}:')")
        if a is not None and "write" in access:
            raise ArgError(f"the kernel writes to this array, but it is "
                           f"{a._unwritable}; pass a writable copy (wp.array(x, copy=True) "
                           f"or np.array(x))")
    return check
