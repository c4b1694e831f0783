"""The decorators users write: ``@wp.kernel``, ``@wp.func``, ``@wp.struct``, ``wp.constant``."""

from ..types.struct import struct  # noqa: F401  (re-exported)
from .func import Function, Kernel

_functions = {}   # (module name, function name) -> Function


def _module_name(f, module):
    if module is None:
        return f.__module__
    return module if isinstance(module, str) else module.__name__


def kernel(f=None, *, enable_backward=None, module=None):
    """Compile ``f`` as a kernel: ``@wp.kernel`` or ``@wp.kernel(enable_backward=False)``."""
    def wrap(fn):
        from ..runtime.module import get_module
        return Kernel(fn, get_module(_module_name(fn, module)), enable_backward)
    return wrap(f) if f is not None else wrap


def func(f=None, *, module=None):
    """A function callable from kernels. Defining it again with other argument types adds an
    overload; with the same types it replaces the earlier definition (kernels rebuild)."""
    def wrap(fn):
        from ..runtime.module import bump_generation
        key = (_module_name(fn, module), fn.__name__)
        existing = _functions.get(key)
        if existing is not None:
            from .source import source_of
            existing.func = fn
            existing.add_overload(fn, source_of(fn))
            result = existing
        else:
            result = _functions[key] = Function(fn, key[0])
        bump_generation()
        return result
    return wrap(f) if f is not None else wrap


def constant(x):
    """A compile-time constant for kernels (its value is folded into the generated code)."""
    return x
