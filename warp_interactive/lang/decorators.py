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


def _custom(kind, f):
    if not getattr(f, "_wp_function_", False):
        raise TypeError(f"@wp.func_{kind}(f) needs a @wp.func, got {f!r}")

    def wrap(fn):
        from ..runtime.module import bump_generation
        f.set_custom(kind, fn)
        bump_generation()   # kernels that call f rebuild with the new adjoint
        return fn
    return wrap


def func_grad(f):
    """``@wp.func_grad(f)``: replace f's generated adjoint with the decorated function, which
    takes f's parameters then the adjoint of its result and adds to ``wp.adjoint[param]``."""
    return _custom("grad", f)


def func_replay(f):
    """``@wp.func_replay(f)``: the function run instead of f in the forward replay of adjoints
    (same parameters and result, without side effects such as atomics)."""
    return _custom("replay", f)


def constant(x):
    """A compile-time constant for kernels (its value is folded into the generated code)."""
    return x
