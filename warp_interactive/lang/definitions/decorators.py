"""The decorators users write: ``@wp.kernel``, ``@wp.func``, ``@wp.struct``, ``wp.constant``.

Defined functions and modules belong to the process-wide ``state`` (warp_interactive/state.py):
lang makes kernels and functions, the runtime registers what a module is."""

import sys
import typing
from typing import Callable, Optional, ParamSpec, TypeVar

from ... import hooks
from ...state import state
from ...types.struct import struct  # noqa: F401  (re-exported)
from .func import Function
from .kernel import Kernel
from ..analysis.deps import function_deps

P, R = ParamSpec("P"), TypeVar("R")
module_hook = None   # set by the notebook layer: fn -> the Module for a kernel defined in a cell


def _module_name(f, module):
    if module is None:
        return f.__module__
    if isinstance(module, str):
        return module
    # a Python module, or a wp.Module (warp-lang's tests pass wp.Module("name"))
    return getattr(module, "__name__", None) or module.name


def kernel(f=None, *, enable_backward=None, module=None, name=None, launch_bounds=None,
           module_options=None, grid_stride=None):
    """Compile ``f`` as a kernel: ``@wp.kernel`` or ``@wp.kernel(enable_backward=False)``;
    ``module="unique"`` gives the kernel a module of its own (``module_options`` then sets that
    module's options); ``launch_bounds`` and ``grid_stride`` (CUDA launch shape hints that do
    not change results) are accepted and not used."""
    if grid_stride not in (None, True, False):
        raise TypeError(f"@wp.kernel: grid_stride must be True, False or None, got {grid_stride!r}")
    if module_options is not None and module != "unique":
        raise ValueError('@wp.kernel: module_options requires module="unique"; use '
                         "wp.set_module_options() for a shared module")
    if module_options is not None:
        _check_module_options(module_options)

    def wrap(fn):
        options = {} if enable_backward is None else {"enable_backward": enable_backward}
        if module == "unique":
            return _unique_kernel(fn, name, options, module_options)
        return Kernel(fn, key=name, module=_module_for(fn, module), options=options)
    return wrap(f) if f is not None else wrap


# the module options @wp.kernel(module_options=...) takes: warp-lang 1.19's names (those that
# only tune CUDA builds are accepted and change nothing here) and this package's own
MODULE_OPTION_NAMES = frozenset((
    "block_dim", "compile_time_trace", "cpu_compiler_flags", "cuda_output", "default_grid_stride",
    "deterministic", "deterministic_max_records", "enable_backward", "enable_mathdx_fft",
    "enable_mathdx_gemm", "enable_mathdx_solver", "extra_build_options", "fast_math", "fuse_fp",
    "lineinfo", "max_unroll", "mode", "optimization_level", "strip_hash",
    "cpu_lanes", "bounds_check"))


def _check_module_options(options):
    """warp-lang's checks of ``module_options``: a dict of known names; a typo is an error, not
    an option silently ignored."""
    if not isinstance(options, dict):
        raise TypeError(f"@wp.kernel: module_options must be a dict, got {type(options).__name__}")
    unknown = sorted(k for k in options if k not in MODULE_OPTION_NAMES)
    if unknown:
        raise ValueError(f"@wp.kernel: unknown module_options {', '.join(map(repr, unknown))}. "
                         f"Valid options: {', '.join(sorted(MODULE_OPTION_NAMES))}")
    records = options.get("deterministic_max_records")
    if records is not None:
        if isinstance(records, bool) or not isinstance(records, int):
            raise TypeError(f"@wp.kernel: deterministic_max_records must be a non-negative int, "
                            f"got {type(records).__name__}")
        if records < 0:
            raise ValueError(f"@wp.kernel: deterministic_max_records must be non-negative, got {records}")


# module="unique" kernels by what defines them: declaring the same kernel again (the same text,
# reading the same values: a factory called twice with equal arguments) gives the first Kernel
# back, as warp-lang (whose unique module is named by the kernel's hash); other values, a new one
_unique_kernels = {}


def _annotation_key(t):
    """A parameter's type by value (``wp.array(dtype=float)`` makes a new object each time)."""
    from ..annotations import canonical_type, type_key
    from .definition_key import value_key
    try:
        return type(t).__name__, type_key(canonical_type(t))
    except Exception:             # not a type we know: the kernel's own checks will say so
        return value_key(t)


def _unique_kernel(fn, name, options, module_options):
    from .definition_key import definition_key, value_key
    from .source import source_of
    key = (fn.__module__, fn.__qualname__, source_of(fn).text, definition_key(fn),
           tuple((k, _annotation_key(v)) for k, v in fn.__annotations__.items()), value_key(fn.__defaults__),
           name, tuple(sorted(options.items())), value_key(sorted((module_options or {}).items())))
    k = _unique_kernels.get(key)
    if k is None or not k.is_registered():
        k = Kernel(fn, key=name, module="unique", options=options)
        if module_options:
            k.module.options.update(module_options)
        _unique_kernels[key] = k
    return k


def _module_for(fn, module):
    if module is not None and not isinstance(module, str) and hasattr(module, "add_kernel"):
        return module            # a Module object
    if module is None and module_hook is not None:
        m = module_hook(fn)      # a notebook cell's own module, not the notebook's __main__
        if m is not None:
            return m
    return state.module(_module_name(fn, module))


@typing.overload
def func(f: Callable[P, R]) -> Callable[P, R]: ...     # @wp.func


@typing.overload
def func(f: None = None, *, module: Optional[str] = None) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


def func(f=None, *, module=None):   # the overloads above: type checkers see f's own signature
    """A function callable from kernels. Defining it again with other argument types adds an
    overload; with the same types it replaces the earlier definition (kernels rebuild)."""
    caller = sys._getframe(1)    # the scope that defines fn (warp-lang's overload rule)

    def wrap(fn):
        return _define_func(fn, module, caller)
    return wrap(f) if f is not None else wrap


def _define_func(fn, module, caller):
    module_name = _module_name(fn, module)
    # module="unique" (warp-lang: a module of its own per definition): keyed by where it is
    # defined too, so a function of the same name in another Python module is another function
    # (under one key the second would join the first and replace its body)
    name = f"{fn.__module__}.{fn.__qualname__}" if module == "unique" else fn.__name__
    key = (module_name, name)
    existing = _earlier_definition(caller, key, fn)
    if existing is not None:
        from .source import source_of
        existing.func = fn
        existing.add_overload(fn, source_of(fn))
        state.redefine(existing)
        return existing
    result = state.functions[key] = Function(fn, module_name)
    state.touch(result)
    return result


def _earlier_definition(frame, key, fn):
    """The Function that a new ``@wp.func`` of ``key`` adds to, or None for a new one.

    warp-lang's rule: a definition joins the function its name is bound to in the defining
    scope. So two ``@wp.func def f`` in one factory call are overloads of one function (also
    when one calls the other: their closures differ), while each call of a factory, or
    another factory's ``f`` of the same module, makes its own function (joined into one, they
    would all run the last definition's body: a silently wrong result)."""
    try:
        bound = frame.f_locals.get(fn.__name__)
    except Exception:            # locals that cannot be read: the same name in the module
        existing = state.functions.get(key)
        return existing if existing is not None and _same_closure(existing.func, fn) else None
    if getattr(bound, "_wp_function_", False) and getattr(bound, "module_name", None) == key[0] \
            and hasattr(bound, "add_overload"):
        return bound
    existing = state.functions.get(key)
    if existing is not None and "<locals>" not in fn.__qualname__ \
            and "<locals>" not in existing.func.__qualname__:
        return existing          # module-level code run again (a reloaded module, a cell's text)
    return None


def func_native(snippet, adj_snippet=None, replay_snippet=None):
    """``@wp.func_native(snippet, adj_snippet=None)``: a function whose body is the native C++
    ``snippet`` (lang/definitions/func_native.py); the decorated function is a typed stub."""
    from .func_native import check_snippets
    native = check_snippets(snippet, adj_snippet, replay_snippet)

    caller = sys._getframe(1)

    def wrap(fn):
        f = _define_func(fn, None, caller)
        f.native = native
        for ov in f.overloads:
            ov.forget_ir()
        state.touch(f)
        return f
    return wrap


def _same_closure(old, new):
    """Whether ``new`` redefines ``old`` rather than being another closure of one factory
    (warp-lang gives each closure its own function): the same closure values, or none."""
    from .func import _identity_token
    return not new.__closure__ or _identity_token(old) == _identity_token(new)


def _custom(kind, f):
    if not getattr(f, "_wp_function_", False):
        raise TypeError(f"@wp.func_{kind}(f) needs a @wp.func, got {f!r}")

    def wrap(fn):
        f.set_custom(kind, fn)
        state.touch(f)     # modules whose kernels call f rebuild with the new adjoint
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


def _forget_callers(changed):
    """Drop the translated IR of every function overload that calls ``changed`` (directly or
    through others), so it re-resolves against the new definition. Kernels that call it are
    found by their modules' dependency records (lang.analysis.deps.function_deps)."""
    stale_by_function = []
    for f in state.functions.values():
        if f is changed:
            continue
        overloads = list(f.overloads) + list(f.generic_instances.values())
        # (a function's variants for cooperative blocks are translated on their own: lang/translation/block_funcs.py)
        overloads += [v for o in overloads for v in getattr(o, "block_variants", {}).values()]
        stale = [o for o in overloads
                 if o._ir is not None and changed in function_deps([o._ir], translate=False)]
        stale_by_function.append((f, stale))
    for f, stale in stale_by_function:     # cleared only after the walk, which reads them
        for o in stale:
            o.forget_ir()
        if any(o in stale for o in f.generic_instances.values()):
            f.generic_instances.clear()


hooks.forget_callers = _forget_callers


def constant(x):
    """A compile-time constant for kernels (its value is folded into the generated code)."""
    return x
