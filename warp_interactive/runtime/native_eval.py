"""Builtins called in Python scope (``wp.sin(1.0)``, ``wp.normalize(v)`` outside kernels).

The reference ships a native library exporting every builtin. We reuse the kernel pipeline
instead: each (builtin, argument types) pair becomes a one-thread kernel that evaluates the call
and stores the result, compiled once and cached on disk like any module. Python-scope results
are therefore bit-identical to what the same call gives inside a kernel.
"""

import hashlib
import linecache

import numpy as np

from ..types import composite as comp
from ..types import scalars as sc
from ..lang.builtins import registry
from ..lang.builtins.registry import type_name
from ..errors import OperandTypeError, TypeMismatch

_evaluators = {}   # (key, arg types) -> _Evaluator


def evaluate(key, args, kwargs):
    if key not in registry.registry:
        raise TypeError(f"wp.{key}() can only be called inside kernels")
    if kwargs:
        raise TypeError(f"wp.{key}() takes no keyword arguments outside kernels "
                        f"(got {', '.join(sorted(kwargs))})")
    types = tuple(_arg_types(key, args))
    ev = _evaluators.get((key, types))
    if ev is None:
        ev = _evaluators[(key, types)] = _Evaluator(key, types)
    return ev(args)


def _typed(a):
    """The wp type of an already-typed value, or None for plain Python numbers."""
    if isinstance(a, (sc.Scalar, comp.Composite)):
        return type(a)
    if isinstance(a, np.generic):
        return sc.dtype_from_numpy(a.dtype)
    return None


def _arg_types(key, args):
    """Types for the call; Python numbers take the scalar type of the typed arguments, as
    literals do in kernels (a float never becomes an integer)."""
    typed = [_typed(a) for a in args]
    target = next((s for s in (registry.element_scalar_of(t) for t in typed if t is not None)
                   if s not in (None, sc.bool_)), None)
    types = []
    for a, t in zip(args, typed):
        if t is not None:
            types.append(t)
        elif isinstance(a, bool):
            types.append(sc.bool_)
        elif isinstance(a, int):
            types.append(target or sc.int32)
        elif isinstance(a, float):
            types.append(target if target is not None and sc.is_float(target) else sc.float32)
        else:
            raise TypeError(f"wp.{key}(): argument of type {type(a).__name__} cannot be passed "
                            "outside kernels (expected a number, a wp scalar, vector, matrix, "
                            "quaternion or transform)")
    return types


class _Evaluator:
    """A compiled one-thread kernel evaluating ``key`` for fixed argument types."""

    def __init__(self, key, types):
        try:
            _, self.ret = registry.resolve(key, list(types))
        except TypeMismatch as e:
            # warp-lang's wording and its RuntimeError (also a TypeError, which callers catch)
            got = ", ".join(type_name(t) for t in types)
            raise OperandTypeError(f"wp.{key}(): Couldn't find a function '{key}' compatible with the "
                                   f"arguments '{got}'{getattr(e, 'detail', ': ' + str(e))}") from None
        self.key = key
        self.types = types
        self.kernel = self._make_kernel()

    def _make_kernel(self):
        from .module import get_module
        from ..types.array import array
        from ..lang.builtins.function import BuiltinFunction
        from ..lang.definitions.kernel import Kernel
        params = [f"a{i}: T{i}" for i in range(len(self.types))]
        call = f"_builtin({', '.join(f'a{i}' for i in range(len(self.types)))})"
        body = f"    out[0] = {call}\n" if self.ret is not None else f"    {call}\n"
        if self.ret is not None:
            params.append("out: OutArray")
        text = f"def {self.key}_eval({', '.join(params)}):\n{body}"
        sig = hashlib.sha256(f"{self.key}|{[registry.type_name(t) for t in self.types]}".encode())
        filename = f"<wp python-scope {self.key} {sig.hexdigest()[:12]}>"
        # the kernel pipeline reads sources through linecache, as it does for notebook cells
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        env = {f"T{i}": t for i, t in enumerate(self.types)}
        env["_builtin"] = BuiltinFunction(self.key)
        if self.ret is not None:
            env["OutArray"] = array(dtype=self.ret)
        exec(compile(text, filename, "exec"), env)
        fn = env[f"{self.key}_eval"]
        fn.__module__ = f"__wp_python_scope__.{self.key}_{sig.hexdigest()[:12]}"
        return Kernel(fn, module=get_module(fn.__module__), options={"enable_backward": False})

    def __call__(self, args):
        from .launch import launch
        from ..types.array_factories import zeros
        inputs = [a.value if isinstance(a, sc.Scalar) else a for a in args]
        if self.ret is None:
            launch(self.kernel, dim=1, inputs=inputs, device="cpu")
            return None
        out = zeros(1, dtype=self.ret, device="cpu")
        launch(self.kernel, dim=1, inputs=inputs + [out], device="cpu")
        return _to_python(out.numpy()[0], self.ret)


def _to_python(value, t):
    """As warp-lang: a float32 result is a Python float, an int32 (or bool) one a Python int
    (bool), any other scalar type a value of that type (``wp.abs(wp.int8(-3))`` is ``int8(3)``)."""
    if comp.is_composite(t):
        return t(np.asarray(value).reshape(-1))
    if t in (sc.float32, sc.int32, sc.bool_):
        return value.item()
    return t(value.item())
