"""``@wp.kernel``, ``@wp.func`` and the objects they make."""

import inspect

from ...types import scalars as sc
from ...types.fixedarray import as_array_param
from ...errors import CodegenError, TypeMismatch
from ..annotations import _hash, annotations_of, canonical_type, is_concrete, ref_param_names, type_key  # noqa: F401
from ..builtins.registry import type_name
from .source import source_of


# C++ name -> the definitions that use it, keyed by what their bodies read (definition_key).
# The same name and text can translate differently: two modules' globals, two closures of one
# factory (`def make(s): @wp.func ...`). One C++ name for both would run one body for both
# (a unit holding both must run each), so a definition reading other values gets a numbered name; one reading the same
# values shares the name (identical sources hash alike). Redefining a function in the same place
# (a re-run cell) with the same values keeps its name, and so its cached binaries.
_definitions = {}


def _identity_token(py_func):
    """Which globals dict and closure objects ``py_func`` was defined with (is it a redefinition
    of an earlier function, or another closure of one factory: decorators._same_closure)."""
    cells = []
    for cell in py_func.__closure__ or ():
        try:
            cells.append(id(cell.cell_contents))
        except ValueError:         # an empty cell (a name assigned after the def)
            cells.append(id(cell))
    return id(py_func.__globals__), tuple(cells)


def _unique_cpp(base, py_func):
    from .definition_key import definition_key
    tokens = _definitions.setdefault(base, [])
    token = definition_key(py_func)
    if token not in tokens:
        tokens.append(token)
    n = tokens.index(token)
    return base if n == 0 else f"{base}_v{n}"


class FuncOverload:
    """One concrete signature of a @wp.func: translated on demand, cached."""

    def __init__(self, function, arg_types, src, py_func):
        self.function = function
        self.arg_types = arg_types
        self.src, self.py_func = src, py_func
        self.name = function.key
        self._base = f"{function.key}_{_hash(src.text, [type_key(t) for t in arg_types.values()])}"
        self._cpp = None
        self._ir = None
        self.differentiable = True
        self.block_width = 1          # lanes per block it is translated for (lang/translation/block_funcs.py)
        self.block_variants = {}      # width -> this overload translated for that block width
        self.ref_params = ref_param_names(py_func)   # wp.ref[T] parameters (lang/tiles/refs.py)

    @property
    def cpp(self):
        """The C++ name: numbered on first use (at translation), by the values the body reads
        then, which are the values its translation bakes in."""
        if self._cpp is None:
            self._cpp = _unique_cpp(self._base, self.py_func)
        return self._cpp

    def forget_ir(self):
        """Translate again on next use (a function this one calls was redefined)."""
        self._ir = None
        self.block_variants = {}

    @property
    def ir(self):
        if self._ir is None and getattr(self.function, "native", None) is not None:
            if self.ref_params:
                raise TypeError(f"@wp.func_native {self.name}: wp.ref[T] parameters are not supported "
                                "in native snippets; use wp.address_of() in the caller")
            from .func_native import native_ir      # @wp.func_native: the snippet is the body
            self._ir = native_ir(self)
        if self._ir is None:
            from ..translation.checks import RecursiveFunction
            from ..translation.translator import Translator
            if getattr(self, "_translating", False):
                raise RecursiveFunction(self.name)
            self._translating = True
            try:
                tr = Translator(self.src, self.py_func.__globals__, self.function.max_unroll())
                tr.block_width = self.block_width
                tr.ref_params = self.ref_params
                self._ir = tr.translate(self.cpp, self.arg_types, is_kernel=False)
            finally:
                self._translating = False
        return self._ir

    def return_types(self):
        return self.ir.return_types

    @property
    def custom_grad(self):
        """The @wp.func_grad helper for these argument types, or None."""
        return self.function.custom_helper("grad", self)

    @property
    def custom_replay(self):
        """The @wp.func_replay helper for these argument types, or None."""
        return self.function.custom_helper("replay", self)

    def signature(self):
        return f"{self.name}({', '.join(f'{k}: {type_name(v)}' for k, v in self.arg_types.items())})"


class Function:
    """A user function callable from kernels (``@wp.func``); overloads by argument types."""

    _wp_function_ = True

    def __init__(self, func, module_name):
        self.func = func
        self.key = func.__name__
        self.module_name = module_name
        self.src = source_of(func)
        self.overloads = []
        self.generics = []        # generic definitions (an Any or unannotated parameter): (py, src)
        self.generic_instances = {}
        self.custom = {}          # ("grad"|"replay", arg type keys or None) -> Python function
        self._helpers = {}        # (kind, overload cpp) -> translated helper
        self.__doc__ = func.__doc__
        self.__name__ = func.__name__
        self.add_overload(func, self.src)

    def add_overload(self, func, src):
        from ..translation import static
        src.statics = static.pre_resolve(src, func.__globals__)
        types = annotations_of(func, src, "func")
        if all(is_concrete(t) for t in types.values()):
            key = [type_key(t) for t in types.values()]
            self.overloads = [o for o in self.overloads if [type_key(t) for t in o.arg_types.values()] != key]
            self.overloads.append(FuncOverload(self, types, src, func))
        else:    # one generic definition per parameter list (`f(x: Any)`, `f(x: Any, y: Any)`)
            key = _generic_key(annotations_of(func, src, "func"))
            self.generics = [g for g in self.generics
                             if _generic_key(annotations_of(g[0], g[1], "func")) != key]
            self.generics.append((func, src))
        self.generic_instances.clear()

    def save(self):
        """What ``load`` puts back: the definitions, overloads and version (a notebook cell
        that fails restores the functions it was about to replace, state.restore)."""
        return (self.func, list(self.overloads), dict(self.generic_instances),
                list(self.generics), getattr(self, "version", 0))

    def load(self, saved):
        func, overloads, generic, generics, version = saved
        self.func, self.overloads, self.generic_instances, self.version = func, overloads, generic, version
        self.generics = generics

    def set_custom(self, kind, py_func):
        """Register a @wp.func_grad / @wp.func_replay function: for the overload whose parameter
        types its annotations give, or for every overload when they are left out."""
        src = source_of(py_func)
        types = list(annotations_of(py_func, src, "func").values())
        key = None
        if types and all(t is not None and is_concrete(t) for t in types):
            key = tuple(type_key(t) for t in types)   # a grad's key ends with its adj_ret types
        self.custom[(kind, key)] = py_func
        self._helpers.clear()

    def custom_helper(self, kind, ov):
        keys = tuple(type_key(t) for t in ov.arg_types.values())
        py_func = None
        for (k, key), f in self.custom.items():
            if k == kind and (key is None or key[:len(keys)] == keys):
                py_func = f
        if py_func is None:
            return None
        cache_key = (kind, ov.cpp)
        if cache_key not in self._helpers:
            from . import custom_grad
            make = custom_grad.make_grad if kind == "grad" else custom_grad.make_replay
            self._helpers[cache_key] = make(ov, py_func)
        return self._helpers[cache_key]

    def max_unroll(self):
        from ...config import config
        return config.max_unroll

    @property
    def module(self):
        """The module this function is defined in (``f.module``, as the reference)."""
        from ...state import state
        return state.module(self.module_name)

    @property
    def __signature__(self):
        """``inspect.signature(f)`` of a @wp.func: the decorated function's."""
        return inspect.signature(self.func)

    def __call__(self, *args, **kwargs):
        """In Python scope a @wp.func runs as Python: the overload whose annotations the
        arguments' types fit (Python int -> int32, float -> float32, as the reference), else
        the generic definition; a RuntimeError when none fits."""
        cands = [(ov.py_func, ov.arg_types) for ov in self.overloads]
        cands += [(py, annotations_of(py, src, "func")) for py, src in self.generics]
        for py_func, anns in cands:
            if _python_args_fit(py_func, anns, args, kwargs):
                return py_func(*args, **kwargs)
        raise RuntimeError(f"Error calling function '{self.key}', no overload found for "
                           f"arguments {args}")

    def resolve_overload(self, args, retype_literal, kwargs=None, default_var=None):
        """(overload, its full argument list) for a call with positional ``args`` and keyword
        ``kwargs`` (Vars); parameters left out take their Python defaults, made Vars by
        ``default_var(value)``."""
        kwargs = kwargs or {}
        bound = [(ov, _bind(ov.py_func, args, kwargs, default_var)) for ov in self.overloads]
        bound = [(ov, b) for ov, b in bound if b is not None]
        for ov, b in bound:
            if self._fits(ov, [a.type for a in b]):
                return ov, b
        for ov, b in bound:
            retyped = self._retype(ov, b, retype_literal)
            if retyped is not None:
                return ov, retyped
        for n, (py, _src) in enumerate(self.generics):
            b = _bind(py, args, kwargs, default_var)
            b = self._generic_args(n, b, retype_literal) if b is not None else None
            if b is not None:
                return self._instantiate([as_array_param(a.type) for a in b], n), b
        cands = ["  " + o.signature() for o in self.overloads]
        cands += [f"  {self.key}({self._generic_signature(n)})" for n in range(len(self.generics))]
        cands = "\n".join(cands)
        got = ", ".join([type_name(a.type) for a in args] +
                        [f"{k}={type_name(v.type)}" for k, v in kwargs.items()])
        raise TypeMismatch(f"no overload of {self.key}() accepts ({got}); candidates:\n{cands}")

    @staticmethod
    def _fits(ov, types):
        expected = list(ov.arg_types.values())
        return len(expected) == len(types) and all(type_key(a) == type_key(b) or
                                                   type_key(a) == type_key(as_array_param(b))
                                                   for a, b in zip(expected, types))

    def _retype(self, ov, args, retype_literal):
        expected = list(ov.arg_types.values())
        if len(expected) != len(args):
            return None
        out = []
        for a, t in zip(args, expected):
            if a.literal and type_key(a.type) != type_key(t):
                a = retype_literal(a, t) if sc.is_scalar(t) else None
            if a is None or type_key(t) not in (type_key(a.type), type_key(as_array_param(a.type))):
                return None
            out.append(a)
        return out

    def _generic_annotations(self, n):
        py, src = self.generics[n]
        return annotations_of(py, src, "func")

    def _generic_signature(self, n):
        from . import generics
        return ", ".join(f"{k}: {generics.describe(t) if t is not None else 'Any'}"
                         for k, t in self._generic_annotations(n).items())

    def _generic_args(self, n, args, retype_literal):
        """The arguments for generic definition ``n``, or None when one does not fit its
        annotation (a concretely annotated parameter takes a literal retyped to its type)."""
        from . import generics
        anns = list(self._generic_annotations(n).values())
        if len(anns) != len(args):
            return None
        out = []
        for a, ann in zip(args, anns):
            if ann is not None and not generics.is_generic(ann) and a.literal and sc.is_scalar(ann):
                a = retype_literal(a, ann) or a
            if ann is not None and not generics.fits(ann, a.type):
                return None
            out.append(a)
        return out

    def _instantiate(self, types, n):
        """Generic definition ``n`` specialised for ``types`` (made once per type signature)."""
        key = tuple(type_key(t) for t in types)
        if n:                     # the first definition keeps its plain key
            key = (("generic", n),) + key
        ov = self.generic_instances.get(key)
        if ov is None:
            py, src = self.generics[n]
            names = [a.arg for a in src.tree.args.args]
            if len(names) != len(types):
                raise TypeMismatch(f"{self.key}() takes {len(names)} arguments, got {len(types)}")
            ov = FuncOverload(self, dict(zip(names, types)), src, py)
            self.generic_instances[key] = ov
        return ov

    def add_generic_overload(self, arg_types):
        """``wp.overload(func, types)``: the generic definition specialised for ``arg_types``
        (of several generic definitions, the one with that many parameters)."""
        from . import generics
        if not self.generics:
            raise TypeError(f"wp.overload({self.key}): {self.key} is not generic (no Any or "
                            "unannotated parameter)")
        counts = [len(self._generic_annotations(n)) for n in range(len(self.generics))]
        n = counts.index(len(arg_types)) if len(arg_types) in counts else len(counts) - 1
        anns = {k: (v if v is not None else generics.Any)
                for k, v in self._generic_annotations(n).items()}
        types = generics.check_overload(self.key, anns, arg_types, what="function")
        return self._instantiate(list(types.values()), n)


def _generic_key(annotations):
    """Which generic definition a new one replaces: the one with the same parameter types."""
    from .generics import describe
    return tuple(describe(t) if t is not None else "Any" for t in annotations.values())


def _bind(py_func, args, kwargs, default_var):
    """The arguments of a call of ``py_func`` in parameter order, defaults filled in (as
    ``default_var(value)``); None when the call does not fit its parameters."""
    if not kwargs and len(args) == py_func.__code__.co_argcount:
        return list(args)     # the common case, without inspect
    try:
        bound = inspect.signature(py_func).bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    values = list(bound.arguments.values())
    if default_var is None:
        return values if len(values) == len(args) else None
    given = {id(a) for a in args} | {id(v) for v in kwargs.values()}
    return [v if id(v) in given else default_var(v) for v in values]


def _python_args_fit(py_func, anns, args, kwargs):
    """Whether Python values ``args``/``kwargs`` fit ``py_func``'s parameters and their
    annotations ``anns`` (a value whose kernel type cannot be told fits any annotation)."""
    from . import generics
    try:
        bound = inspect.signature(py_func).bind(*args, **kwargs)
    except TypeError:
        return False
    for name, value in bound.arguments.items():
        ann, t = anns.get(name), generics.type_of_value(value)
        if ann is not None and t is not None and not generics.fits(ann, t):
            return False
    return True
