"""The warm-load index: a module's binary found without translating its kernels.

The binary's hash is a hash of the generated source, which needs every kernel translated (parse,
type, generate: ~10 ms for a small module, most of a warm load). The index maps a cheaper key,
computed from what the translation depends on, to the binaries found last time:

* each kernel's source text and parameter types,
* every global or closure value its code names, followed through: a ``@wp.func``'s source
  (every overload) and, recursively, the globals it names; constants by type and value; warp
  types by their C++ name and struct fields; modules only when they are warp_interactive or
  the standard math/numpy modules (whose attributes kernels use as builtins),
* each kernel's enable_backward state (whether its adjoint is generated), the module options,
  the compiler build key and the package version.

Anything the key cannot describe exactly (another module's attributes, an arbitrary object)
makes ``module_key`` return None, and the load translates as before. Each kernel also has a key
of its own (``kernel_keys``), so after an edit only the edited kernels translate. A module's
entry maps each kernel to its unit and ``tid`` arity (which the launch checks need); a kernel's
entry names its kernel hash, unit and arity (runtime/cpu_build.py). Entries are small JSON files
written atomically; a stale or damaged one is ignored (the load then translates and rewrites it).

The @wp.funcs the key walk reached are also the module's dependency record after a warm load
(runtime/module.py): redefining one of them rebuilds the module, as after a translating load.
"""

import hashlib
import json
import os
import types

from ..compiler import cache

_PLAIN = (int, float, bool, str, bytes, complex, type(None))
_MODULES_OK = ("warp_interactive", "math", "numpy", "builtins", "cmath")


class _Opaque(Exception):
    """A referenced value the key cannot describe: no index for this module."""


def _names(code):
    """Every name a code object (and the code objects nested in it) looks up: globals and
    attributes (co_names) and the enclosing function's variables (co_freevars: a kernel defined
    inside a function reaches the @wp.funcs defined beside it through its closure)."""
    out = set(code.co_names) | set(code.co_freevars)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def _type_fp(t):
    from ..lang.annotations import type_key
    st = getattr(t, "_wp_struct_", None)
    if st is not None:
        return ("struct", st.cpp_name, [(k, _type_fp(v)) for k, v in st.fields.items()])
    if getattr(t, "_cpp", None) is None and not hasattr(t, "_wp_scalar_type_"):
        raise _Opaque(t)
    return ("type", repr(type_key(t)))


def _value_fp(v, seen):
    if isinstance(v, _PLAIN):
        return (type(v).__name__, repr(v))
    if isinstance(v, tuple):
        return ("tuple", [_value_fp(x, seen) for x in v])
    if getattr(v, "_wp_function_", False):
        return _function_fp(v, seen)
    if isinstance(v, types.ModuleType):
        if v.__name__.split(".")[0] in _MODULES_OK:
            return ("module", v.__name__)
        raise _Opaque(v)
    if isinstance(v, type):
        return _type_fp(v)
    from ..lang.builtin_function import BuiltinFunction
    if isinstance(v, BuiltinFunction):
        return ("builtin", v.key)
    from ..types.array import array
    if isinstance(v, array) and v.shape is None:   # an annotation
        return ("array", _type_fp(v.dtype), v.ndim)
    comp_type = type(v)
    if getattr(comp_type, "_cpp", None) is not None:   # a vector/matrix/scalar value
        return ("value", _type_fp(comp_type), bytes(v).hex() if hasattr(v, "_fields_") or
                hasattr(v, "_length_") else repr(v))
    if getattr(type(v), "__module__", "").split(".")[0] in _MODULES_OK and callable(v):
        return ("callable", type(v).__module__, getattr(v, "__qualname__", getattr(v, "__name__", "")))
    raise _Opaque(v)


def _code_fp(func, src, seen):
    """Source text plus the fingerprint of every global/closure value the code names."""
    refs = []
    g = func.__globals__
    for name in sorted(_names(func.__code__)):
        if name in src.closure:
            refs.append((name, "c", _value_fp(src.closure[name], seen)))
        elif name in g:
            refs.append((name, "g", _value_fp(g[name], seen)))
    return (src.text, refs)


def _function_fp(fn, seen):
    if id(fn) in seen:
        return ("func-ref", fn.key)
    seen.add(id(fn))
    seen.functions.append(fn)
    parts = [("func", fn.key)]
    for ov in fn.overloads:
        from ..lang.annotations import type_key
        parts.append(([repr(type_key(t)) for t in ov.arg_types.values()], _code_fp(ov.py_func, ov.src, seen)))
    if hasattr(fn, "generic_py"):
        parts.append(("generic", _code_fp(fn.generic_py, fn.generic_src, seen)))
    custom = getattr(fn, "custom", None)
    if custom:    # @wp.func_grad / @wp.func_replay: generated into the adjoint code
        from ..lang.source import source_of
        for (kind, key), py_func in sorted(custom.items(), key=lambda kv: repr(kv[0])):
            parts.append(("custom", kind, repr(key), _code_fp(py_func, source_of(py_func), seen)))
    return parts


class _Seen(set):
    """The visited set of one key walk, also listing the @wp.funcs it fingerprinted."""

    def __init__(self):
        super().__init__()
        self.functions = []


def module_key(kernels, options, build_key, version, functions=None):
    """The index key for these kernels, or None when something they use is not describable.
    ``functions``, a list, receives every @wp.func the key describes (the module's dependency
    record after a warm load, which has no IR to walk)."""
    keys = kernel_keys(kernels, options, build_key, version, functions)
    return None if keys is None else keys[0]


def kernel_keys(kernels, options, build_key, version, functions=None):
    """(the module's key, [each kernel's own key]) or None (see ``module_key``). A kernel's key
    describes everything its generated code depends on, walked afresh for each kernel (a
    function two kernels call is in both keys), so it finds the kernel's binary by itself."""
    from ..lang.annotations import type_key
    parts = []
    try:
        for k in kernels:
            seen = _Seen()
            parts.append((k.key, k.cpp, [repr(type_key(t)) for t in k.arg_types.values()],
                          k.backward_enabled(), _code_fp(k.func, k.src, seen)))
            if functions is not None:
                functions.extend(seen.functions)
    except _Opaque:
        return None
    tail = repr((options, build_key, version))
    module = hashlib.sha256(repr(parts).encode() + tail.encode()).hexdigest()
    return module, [hashlib.sha256(b"kernel" + repr(p).encode() + tail.encode()).hexdigest()
                    for p in parts]


def _path(key):
    return os.path.join(cache.cache_dir(), "index", key[:2], key + ".json")


def lookup(key):
    """The entry stored under ``key`` (a dict) or None."""
    try:
        with open(_path(key)) as f:
            entry = json.load(f)
        if isinstance(entry, dict):
            return entry
    except (OSError, ValueError):
        pass
    return None


def store(key, entry):
    """Store ``entry`` (a dict) under ``key``; the index is an optimisation: a read-only cache
    just means no warm shortcut."""
    cache.write_atomic(_path(key), json.dumps(entry))
