"""The kernels behind Python-scope array arithmetic (types/array_arith.py): ``a + b``, ``s * a``,
``a %= 3``, ``-a`` on ``wp.array`` map the kernel builtin of the operator over the elements.

As warp-lang's ``wp.map`` does for its array operators: arrays broadcast against each other by
NumPy's rules, any other operand (a number, a warp scalar or composite) is passed to every
element, the result is a new array of the builtin's result type (``requires_grad`` when an input
array has it and the result is a float type), or the left operand itself for ``a += b``. The
launch goes through ``wp.launch``, so it is recorded on an active tape and differentiable.
Python numbers adapt to the arrays' scalar type, as literals do in kernels.

Each (operator, operand types, broadcast pattern) gets one small generated kernel, built once
(and cached on disk like any module).
"""

import hashlib
import linecache

import numpy as np

from ..errors import OperandTypeError, TypeMismatch
from ..lang.builtins import registry
from ..types import composite as comp
from ..types import scalars as sc
from ..types.array import array
from ..types.array_factories import empty
from ..types.indexedarray import indexedarray, is_indexed

_kernels = {}   # (op, descriptors) -> (Kernel, result dtype)


def array_op(op, operands, out=None):
    arrays = [a for a in operands if isinstance(a, array)]
    types = _operand_types(operands, arrays)
    if types is NotImplemented:
        return NotImplemented
    shape = _broadcast([a.shape for a in arrays])
    device = arrays[0].device
    if any(a.device is not device for a in arrays):
        raise ValueError(f"array {op}: the arrays are on different devices "
                         f"({', '.join(str(a.device) for a in arrays)})")
    descs = tuple((t, a.ndim, _mask(a.shape, shape), is_indexed(a)) if isinstance(a, array) else (t,)
                  for a, t in zip(operands, types))
    kernel, ret = _kernel(op, descs, len(shape), out is not None and is_indexed(out))
    if out is None:
        grad = any(a.requires_grad for a in arrays) and _differentiable(ret)
        out = empty(shape, dtype=ret, device=device, requires_grad=grad)
    elif out.shape != shape or out.dtype is not ret:
        raise OperandTypeError(f"array {op} in place: the result is {registry.type_name(ret)} of "
                               f"shape {shape}, the array is {registry.type_name(out.dtype)} of "
                               f"shape {out.shape}")
    from .launch import launch
    inputs = [a.value if isinstance(a, sc.Scalar) else a for a in operands]
    launch(kernel, dim=shape, inputs=inputs + [out], device=device)
    return out


def _operand_types(operands, arrays):
    """The element type of each operand (array dtypes, warp values' types, Python and NumPy
    numbers in the arrays' scalar type), or NotImplemented for an operand this cannot take."""
    target = registry.element_scalar_of(arrays[0].dtype)
    types = []
    for a in operands:
        if isinstance(a, array):
            types.append(a.dtype)
        elif isinstance(a, (sc.Scalar, comp.Composite)):
            types.append(type(a))
        elif isinstance(a, (bool, np.bool_)):
            types.append(sc.bool_)
        elif isinstance(a, int):
            types.append(target if target is not None else sc.int32)
        elif isinstance(a, float):
            types.append(target if target is not None and sc.is_float(target) else sc.float32)
        elif isinstance(a, np.generic):
            types.append(sc.dtype_from_numpy(a.dtype))
        else:
            return NotImplemented
    return types


def _broadcast(shapes):
    try:
        return tuple(int(n) for n in np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"array shapes {', '.join(map(str, shapes))} do not broadcast together "
                         "(NumPy's rules)") from None


def _mask(shape, out_shape):
    """For each dimension of an input array: True where it is broadcast (size 1 against more)."""
    lead = len(out_shape) - len(shape)
    return tuple(n == 1 and out_shape[lead + j] != 1 for j, n in enumerate(shape))


def _differentiable(t):
    s = registry.element_scalar_of(t)
    return s is not None and sc.is_float(s)


def _kernel(op, descs, ndim, out_indexed=False):
    key = (op, descs, ndim, out_indexed)
    found = _kernels.get(key)
    if found is None:
        found = _kernels[key] = _make_kernel(op, descs, ndim, out_indexed)
    return found


def _make_kernel(op, descs, ndim, out_indexed):
    from .module import get_module
    from ..lang.builtins.function import BuiltinFunction
    from ..lang.definitions.kernel import Kernel
    arg_types = [d[0] for d in descs]
    try:
        _, ret = registry.resolve(op, arg_types)
    except TypeMismatch:
        names = ", ".join(registry.type_name(t) for t in arg_types)
        raise OperandTypeError(f"Function {op} does not support the provided argument types "
                               f"{names}") from None
    idx = [f"i{d}" for d in range(ndim)]
    env, params, args = {"_builtin": BuiltinFunction(op), "_tid": BuiltinFunction("tid")}, [], []
    for k, d in enumerate(descs):
        if len(d) == 4:     # an array (an indexed one is indexed through its indices)
            t, n, mask, indexed = d
            env[f"T{k}"] = (indexedarray if indexed else array)(dtype=t, ndim=n)
            lead = ndim - n
            args.append(f"a{k}[{', '.join('0' if mask[j] else idx[lead + j] for j in range(n))}]")
        else:
            env[f"T{k}"] = d[0]
            args.append(f"a{k}")
        params.append(f"a{k}: T{k}")
    env["TOut"] = (indexedarray if out_indexed else array)(dtype=ret, ndim=ndim)
    sig = hashlib.sha256(repr((op, [(registry.type_name(d[0]),) + d[1:] for d in descs], ndim, out_indexed))
                         .encode()).hexdigest()[:12]
    text = (f"def array_{op}({', '.join(params)}, out: TOut):\n"
            f"    {', '.join(idx)} = _tid()\n"
            f"    out[{', '.join(idx)}] = _builtin({', '.join(args)})\n")
    filename = f"<wp array {op} {sig}>"
    # the kernel pipeline reads sources through linecache, as it does for notebook cells
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), env)
    fn = env[f"array_{op}"]
    fn.__module__ = f"__wp_array_ops__.{op}_{sig}"
    return Kernel(fn, module=get_module(fn.__module__)), ret
