"""float64 geometries: the package's float32 code, re-bound to float64 names.

warp.fem is written once, at float32: module-level ``@wp.func``s, structs and Python classes
that name ``wp.vec2``, ``wp.mat33``, ``float``, ``Sample``... A float64 geometry (``Grid2D(...,
scalar_type=wp.float64)``, a mesh of ``vec2d``/``vec3d`` positions) is an instance of the
*float64 twin* of its class, and everything made from it (domains, spaces, fields,
quadratures, integrals) uses twins too. A twin is the same code (the same code objects, so the
same source text for the translator) bound to a copy of its module's namespace in which each
float32 type means its float64 counterpart and each function, struct, class and module of
warp.fem means its own twin. Nothing is generated as text; the float32 objects stay as they are.
Twin namespaces are filled on first use of each name; containers (tables) are copied with
their contents twinned, caches (``Cache``, ``functools.lru_cache``) start empty.

Literal constants need no mapping: the translator gives a float literal the type of what it
meets. Kernel code converts with ``wp.real(x)`` (float32, or float64 in twins), not
``float(x)``, which stays Python's ``float`` for host code. Twins live in modules of their own (the
original's name with ``_f64``), so their kernels and functions never overload the originals."""

import builtins
import functools
import sys
import types as _pytypes
from enum import Enum

from . import _api as wp
from . import types as _types
from ..lang.definitions import decorators as _decorators
from ..lang.definitions.kernel import Kernel as _Kernel

_PACKAGE = __name__.rsplit(".", 1)[0]      # warp_interactive.fem
_SUFFIX = "_f64"
_twins = {}                                 # id(original) -> (original, twin)
_globals = {}                               # id(module dict) -> twin dict


def _is_ours(obj):
    return _module_is_ours(getattr(obj, "__module__", None) or "")


class Cache(dict):
    """A module-level cache (made-once kernels, structs...): its twin starts empty, so that an
    entry made at one precision never serves the other."""


def twin_type(t):
    """The float64 counterpart of a kernel type (the type itself when it holds no float32)."""
    if t is wp.float32 or t is builtins.float:
        return wp.float64
    kind = getattr(t, "_kind_", None)
    if kind in ("vector", "matrix") and getattr(t, "_wp_scalar_type_", None) is wp.float32:
        if kind == "vector":
            return wp.types.vector(t._length_, wp.float64)
        return wp.types.matrix(t._shape_, wp.float64)
    if isinstance(t, wp.array) and t.shape is None and t.ptr is None and t.dtype is not None:
        d = twin_type(t.dtype)
        if d is not t.dtype:
            return type(t)(dtype=d, ndim=t.ndim)
    if t is _types.Sample:          # as an annotation: a sample of a float64 geometry
        return _types.Sample_f64
    if hasattr(t, "_wp_struct_"):
        return twin(t)
    return t


def _twin_annotations(fn):
    fn.__annotations__ = {k: twin_type(v) for k, v in getattr(fn, "__annotations__", {}).items()}
    return fn


def _func(f=None, *, module=None):
    """``wp.func`` in twin code: the annotations written there (``x: float``, evaluated by
    Python, not by the twin's names) mapped to float64 first; the defining scope is the
    caller's, so overloads join as they would (lang/definitions/decorators.py)."""
    caller = sys._getframe(1)

    def wrap(fn):
        return _decorators._define_func(_twin_annotations(fn), module, caller)
    return wrap(f) if f is not None else wrap


def _kernel(f=None, **kwargs):
    if f is None:
        return lambda fn: wp.kernel(_twin_annotations(fn), **kwargs)
    return wp.kernel(_twin_annotations(f), **kwargs)


def _struct(cls):
    cls.__annotations__ = {k: twin_type(v) for k, v in cls.__annotations__.items()}
    return wp.struct(cls)


_DECORATORS = {"func": _func, "kernel": _kernel, "struct": _struct}


class _WpNames(_pytypes.ModuleType):
    """``wp`` inside twins: the same names, float32 types replaced by float64 ones."""

    def __getattr__(self, name):
        if name in _DECORATORS:
            return _DECORATORS[name]
        v = getattr(wp, name)
        # the explicitly float32 spellings (``wp.vec3f``: a BVH's boxes) stay float32
        if name[-1:] != "f" and (isinstance(v, type) or getattr(v, "_kind_", None)):
            v = twin_type(v)
        return v


_wp_names = _WpNames(wp.__name__ + _SUFFIX)


def _pair(f32, f64):
    _twins[id(f32)] = (f32, f64)


# the sample tags integrands are annotated with, and make_free_sample (overloaded for both
# coordinate types), are the same objects at both precisions
for _shared in (_types.Sample, _types.Sample_f64, _types.make_free_sample):
    _pair(_shared, _shared)


def twin(obj):
    """The float64 twin of a warp.fem object (function, ``@wp.func``, struct, class, module,
    container of those); anything else is returned as it is."""
    if obj is wp:
        return _wp_names
    if obj is builtins.float:
        return wp.float64
    if isinstance(obj, (int, float, str, bytes, bool, type(None))):
        return obj
    hit = _twins.get(id(obj))
    if hit is not None and hit[0] is obj:
        return hit[1]
    return _make_twin(obj)


def _remember(obj, t):
    _twins[id(obj)] = (obj, t)
    return t


def _make_twin(obj):
    if hasattr(obj, "__wrapped_precision__"):
        return twin(obj.__wrapped_precision__)
    if isinstance(obj, Cache):
        return _remember(obj, Cache())
    if isinstance(obj, tuple):
        return tuple(twin(x) for x in obj)
    if isinstance(obj, list):
        return [twin(x) for x in obj]
    if isinstance(obj, dict):
        return {twin(k): twin(v) for k, v in obj.items()}
    if hasattr(obj, "_wp_struct_") and isinstance(obj, type):
        return _twin_struct(obj) if _is_ours(obj) else obj
    if getattr(obj, "_wp_function_", False) and hasattr(obj, "overloads"):
        return _twin_wp_func(obj) if _module_is_ours(obj.module_name) else obj
    if isinstance(obj, _pytypes.FunctionType):
        return _twin_function(obj) if _is_ours(obj) else obj
    if isinstance(obj, _Kernel) and _is_ours(obj.func):    # a module-level kernel
        return _remember(obj, _kernel(twin(obj.func), enable_backward=obj.options.get("enable_backward")))
    if isinstance(obj, functools._lru_cache_wrapper) and _is_ours(obj.__wrapped__):
        return _remember(obj, functools.lru_cache(maxsize=None)(twin(obj.__wrapped__)))
    if isinstance(obj, functools.partial) and _is_ours(obj.func):
        return _remember(obj, functools.partial(twin(obj.func), *twin(obj.args), **twin(obj.keywords)))
    if isinstance(obj, _pytypes.ModuleType):
        return _twin_module(obj) if _module_is_ours(obj.__name__) else obj
    if isinstance(obj, (staticmethod, classmethod)):
        return type(obj)(twin(obj.__func__))
    if isinstance(obj, property):
        return property(twin(obj.fget), twin(obj.fset), twin(obj.fdel), obj.__doc__)
    if isinstance(obj, functools.cached_property):
        p = functools.cached_property(twin(obj.func))
        p.attrname = obj.attrname
        return p
    if isinstance(obj, type):
        if issubclass(obj, (Enum, BaseException)) or not _is_ours(obj) or obj in _shared_classes():
            return obj
        return twin_type(obj) if getattr(obj, "_kind_", None) else _twin_class(obj)
    if getattr(obj, "_kind_", None) in ("vector", "matrix") and not isinstance(obj, type):
        tt = twin_type(type(obj))        # a constant vector (a closure's table of nodes)
        return tt(*[float(x) for x in obj]) if tt is not type(obj) and obj._kind_ == "vector" else obj
    return obj


@functools.lru_cache(maxsize=None)
def _shared_classes():
    """Classes whose objects users make outside any geometry (integrands, argument tags): the
    same at both precisions."""
    from .integrand import Integrand, IntegrandCall
    return (Integrand, IntegrandCall, _types.Field, _types.Domain)


def _module_is_ours(name):
    return (name == _PACKAGE or name.startswith(_PACKAGE + ".")) and not name.endswith(_SUFFIX) \
        and name != __name__


def twin_globals(g):
    """The twin of a module namespace (made once; filled lazily, so cycles resolve)."""
    t = _globals.get(id(g))
    if t is not None:
        return t
    t = _globals[id(g)] = _TwinNamespace(g)
    t["__name__"] = g.get("__name__", "") + _SUFFIX
    for k in ("__file__", "__loader__", "__spec__", "__package__"):
        if k in g:
            dict.__setitem__(t, k, g[k])
    b = g.get("__builtins__", builtins)
    b = dict(vars(b) if isinstance(b, _pytypes.ModuleType) else b)
    b["__import__"] = _twin_import
    dict.__setitem__(t, "__builtins__", b)
    return t


def _twin_import(name, globals=None, locals=None, fromlist=(), level=0):
    """``import`` inside twin code: warp.fem's modules come back as their twins."""
    return twin(builtins.__import__(name, globals, locals, fromlist, level))


class _TwinNamespace(dict):
    """A module namespace whose names are twinned on first use (``globals()`` of twin code)."""

    def __init__(self, original):
        super().__init__()
        self._original = original

    def __missing__(self, key):
        v = twin(self._original[key])
        dict.__setitem__(self, key, v)
        return v

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key):
        return dict.__contains__(self, key) or key in self._original

    def __iter__(self):
        return iter(set(self._original) | set(dict.keys(self)))

    def keys(self):
        return list(iter(self))

    # iterating does not twin: names are twinned when looked up (a scan such as "is
    # wp.static among the globals" must not twin the whole package)
    def items(self):
        return [(k, dict.__getitem__(self, k) if dict.__contains__(self, k) else self._original[k]) for k in self]

    def values(self):
        return [v for _, v in self.items()]


def _twin_function(f):
    g = twin_globals(f.__globals__)
    names = f.__code__.co_freevars
    # cells made empty first and filled after the twin is remembered: a closure may refer back
    # to the function (or its factory's other functions)
    cells = tuple(c if name == "__class__" else _pytypes.CellType() for name, c in zip(names, f.__closure__ or ()))
    t = _pytypes.FunctionType(f.__code__, g, f.__name__, None, cells or None)
    _remember(f, t)
    t.__defaults__ = twin(f.__defaults__)
    for name, c, tc in zip(names, f.__closure__ or (), cells):
        if name != "__class__":
            try:
                tc.cell_contents = twin(c.cell_contents)
            except ValueError:       # not yet assigned
                pass
    t.__kwdefaults__ = twin(f.__kwdefaults__) if f.__kwdefaults__ else f.__kwdefaults__
    t.__annotations__ = {k: twin_type(v) for k, v in f.__annotations__.items()}
    t.__qualname__, t.__doc__ = f.__qualname__, f.__doc__
    t.__dict__.update({k: v for k, v in f.__dict__.items() if k != "__wrapped__"})
    t.__module__ = g["__name__"]
    return t


def _twin_wp_func(fn):
    py_funcs = [o.py_func for o in fn.overloads] + [g[0] for g in fn.generics]
    # each twin overload joins the first, as a definition in a scope where the name is bound
    result = None
    for pf in py_funcs:
        scope = _pytypes.SimpleNamespace(f_locals={pf.__name__: result} if result is not None else {})
        result = _decorators._define_func(twin(pf), None, scope)
        if id(fn) not in _twins:
            _remember(fn, result)
    for (kind, key), f in fn.custom.items():
        result.custom[(kind, key)] = twin(f)
    return result


def _twin_struct(cls):
    st = cls._wp_struct_
    ann = {k: twin_type(t) for k, t in st.fields.items()}
    if all(ann[k] is t for k, t in st.fields.items()):
        return _remember(cls, cls)
    body = {"__annotations__": ann, "__module__": cls.__module__ + _SUFFIX, "__doc__": cls.__doc__,
            "__qualname__": cls.__qualname__}
    return _remember(cls, wp.struct(type(cls.__name__, (), body)))


_CLASS_SKIP = {"__dict__", "__weakref__", "__module__", "__qualname__", "__doc__"}


def _twin_class(cls):
    """A subclass of ``cls`` whose members (its own and its bases') are their twins."""
    members = {}
    for base in reversed(cls.__mro__[:-1]):
        if _is_ours(base):
            members.update({k: v for k, v in vars(base).items() if k not in _CLASS_SKIP})
    # bases: the class, then its bases' twins (a twin Trimesh3D is a twin Trimesh2D too)
    bases = (cls,) + tuple(twin(b) for b in cls.__bases__ if _is_ours(b) and twin(b) is not b)
    t = type(cls.__name__, bases, {"__module__": cls.__module__ + _SUFFIX, "__qualname__": cls.__qualname__,
                                   "__doc__": cls.__doc__, "_wp_float64_twin_": True})
    _remember(cls, t)
    for k, v in members.items():
        setattr(t, k, twin(v))
    t._wp_float64_twin_ = True
    return t


def _twin_module(mod):
    m = _pytypes.ModuleType(mod.__name__ + _SUFFIX)
    _remember(mod, m)
    g = twin_globals(vars(mod))
    m.__getattr__ = lambda name: g[name] if name in g else _missing(mod, name)
    return m


def _missing(mod, name):
    raise AttributeError(f"module {mod.__name__!r} has no attribute {name!r}")


def is_float64(obj):
    """Whether ``obj`` (a geometry, domain, space, field...) belongs to the float64 world."""
    return bool(getattr(type(obj), "_wp_float64_twin_", False))


def follow_precision(func):
    """Decorator of warp.fem's entry points: called with float64 objects, the twin runs."""
    @functools.wraps(func)
    def entry(*args, **kwargs):
        if _any_float64(list(args) + list(kwargs.values())):
            return twin(func)(*args, **kwargs)
        return func(*args, **kwargs)
    entry.__wrapped_precision__ = func
    return entry


def _any_float64(values):
    for v in values:
        if is_float64(v) or (isinstance(v, (list, tuple)) and any(is_float64(x) for x in v)) or \
                (isinstance(v, dict) and any(is_float64(x) for x in v.values())):
            return True
    return False


class FollowsPrecision:
    """Base of warp.fem's classes: made from float64 objects, an instance of the twin class."""

    def __new__(cls, *args, **kwargs):
        if not getattr(cls, "_wp_float64_twin_", False) and cls._wants_float64(args, kwargs):
            cls = twin(cls)
        return object.__new__(cls)

    @classmethod
    def _wants_float64(cls, args, kwargs):
        return _any_float64(list(args) + list(kwargs.values()))
