"""The builtin registry: one record per builtin, one entry per overload; and the records of the
builtins the translator handles itself (``intrinsics``: signature, doc, group).

Type checking and code generation both look builtins up here; nothing about a particular
builtin lives in the translator. An overload's input types are concrete types or generic
patterns (``Float``, ``Vector``...); its ``value_func`` computes the return type from the
argument types (and may reject them with ``TypeMismatch``).
"""

from dataclasses import dataclass, field

from ...types import composite as comp
from ...types import scalars as sc
from ...types.array import array
from ...types.indexedarray import is_indexed
from ...types.fixedarray import fixedarray
from ...errors import TypeMismatch


# --- generic type patterns -----------------------------------------------------------------
class Pattern:
    """A set of types an overload argument accepts; ``share`` = takes part in the same-scalar rule."""

    def __init__(self, name, test, share=True):
        self.name, self.test, self.share = name, test, share

    def __repr__(self):
        return self.name


Any = Pattern("Any", lambda t: True, share=False)
Scalar = Pattern("Scalar", lambda t: sc.is_scalar(t) and t is not sc.bool_)
Float = Pattern("Float", sc.is_float)
Int = Pattern("Int", sc.is_int)
Index = Pattern("Int", sc.is_int, share=False)  # an index: any integer, exempt from same-scalar
Vector = Pattern("Vector", comp.is_vector)
Matrix = Pattern("Matrix", comp.is_matrix)
Quaternion = Pattern("Quaternion", lambda t: comp.is_composite(t) and t._kind_ == "quaternion")
Transformation = Pattern("Transformation", lambda t: comp.is_composite(t) and t._kind_ == "transform")
Composite = Pattern("Composite", comp.is_composite)
Array = Pattern("Array", lambda t: isinstance(t, array), share=False)
Bool = Pattern("bool", lambda t: t is sc.bool_, share=False)


def scalar_of(t):
    if sc.is_scalar(t):
        return t
    if comp.is_composite(t):
        return t._wp_scalar_type_
    return None


def element_scalar_of(t):
    """The scalar type of a value, or of an array's elements."""
    return scalar_of(t.dtype) if isinstance(t, array) else scalar_of(t)


def type_name(t):
    if isinstance(t, fixedarray):
        return f"fixedarray(dtype={type_name(t.dtype)}, shape={t.fixed_shape})"
    if isinstance(t, array):
        kind = "indexedarray" if is_indexed(t) else "array"
        return f"{kind}(dtype={type_name(t.dtype)}, ndim={t.ndim})"
    if isinstance(t, tuple):
        return "(" + ", ".join(type_name(x) for x in t) + ")"
    return getattr(t, "__name__", repr(t))


# --- records -----------------------------------------------------------------------------------
@dataclass
class Overload:
    name: str
    input_types: dict            # arg name -> concrete type or Pattern
    value_func: object           # callable(arg_types) -> return type (None = void)
    cpp: str                     # C++ function name (without namespace)
    differentiable: bool = True
    doc: str = ""
    group: str = "Other"
    variadic: bool = False       # accepts any number of trailing args of the last pattern
    same_scalar: bool = True     # all sharing args must have one scalar type
    template: object = None      # callable(arg_types, ret) -> C++ template args string, or None
    native_adjoint: str = None   # the adjoint's C++ name when it is not adj_<cpp>
    hidden: bool = False         # internal (not listed in the function reference)
    context: bool = False        # receives the thread's launch context first (tid)
    replay: str = None           # C++ name in the adjoint's forward replay ("" = skip)
    export: bool = True          # False: no Python-scope wp.<name> callable
    writes: tuple = ()           # out-parameters: positions of arguments the call assigns to; C++
                                 # gets every argument, then result&, then one ref per write
    array_access: dict = None    # array argument position -> "read" or "write": what the call
                                 # does to each array it takes (analysis/access.py, effects.py);
                                 # None: unknown, counted as both

    def array_kinds(self, i):
        """What the call does to its argument ``i`` if declared: ("read",) or ("write",); else None."""
        kind = (self.array_access or {}).get(i)
        return (kind,) if kind else None

    def adj_cpp(self):
        return self.native_adjoint or f"adj_{self.cpp}"

    def signature(self):
        args = ", ".join(f"{k}: {type_name(v)}" for k, v in self.input_types.items())
        return f"{self.name}({args}{', ...' if self.variadic else ''})"

    def patterns(self, n):
        """The input type or pattern of each of ``n`` arguments; TypeMismatch if n does not fit."""
        pats = list(self.input_types.values())
        if self.variadic:
            if n < len(pats) - 1:
                raise TypeMismatch("too few arguments")
            return pats[:-1] + [pats[-1]] * (n - len(pats) + 1)
        if n != len(pats):
            raise TypeMismatch(f"takes {len(pats)} arguments, got {n}")
        return pats

    def match(self, arg_types):
        """The return type if ``arg_types`` fit this overload; raises TypeMismatch if not."""
        pats = self.patterns(len(arg_types))
        for i, (t, p) in enumerate(zip(arg_types, pats)):
            if not _fits(t, p):
                raise TypeMismatch(f"argument {i + 1} must be {type_name(p)}, got {type_name(t)}")
        if self.same_scalar:
            _check_same_scalar(arg_types, pats)
        return self.value_func(list(arg_types)) if self.value_func else None


def _fits(t, p):
    if isinstance(p, Pattern):
        return p.test(t)
    if isinstance(p, array):
        return isinstance(t, array) and t.dtype == p.dtype and t.ndim == p.ndim and \
            is_indexed(t) == is_indexed(p)
    return t is p


def _check_same_scalar(arg_types, pats):
    seen = None
    for t, p in zip(arg_types, pats):
        if isinstance(p, Pattern) and not p.share:
            continue
        s = scalar_of(t)
        if s is None:
            continue
        if seen is not None and s is not seen:
            raise TypeMismatch(
                f"mixed scalar types {type_name(seen)} and {type_name(s)} (no implicit conversion; "
                f"cast explicitly, e.g. {type_name(seen)}(x))")
        seen = s


@dataclass
class Builtin:
    name: str
    overloads: list = field(default_factory=list)


registry = {}


def add_builtin(name, input_types=None, value_type=None, value_func=None, cpp=None, **kw):
    """Declare one overload of builtin ``name``.

    ``value_type`` is a fixed return type; ``value_func(arg_types)`` computes it instead.
    """
    if value_func is None:
        value_func = (lambda ts, vt=value_type: vt)
    ov = Overload(name=name, input_types=dict(input_types or {}), value_func=value_func,
                  cpp=cpp or name, **kw)
    registry.setdefault(name, Builtin(name)).overloads.append(ov)
    return ov


@dataclass
class Intrinsic:
    """A builtin whose calls the translator handles itself (compile-time keyword arguments, any
    number of components, tile results): its signature and doc for the reference and the
    ``wp.`` namespace. Its handler is the entry of the same name in ``function.INTRINSICS``,
    which the translation and tile modules fill; the declarations are in special.py."""
    name: str
    signature: str
    doc: str
    group: str
    differentiable: bool = False


intrinsics = {}


def declare_intrinsic(name, signature, doc, group, differentiable=False):
    if name in intrinsics:
        raise ValueError(f"intrinsic {name!r} declared twice")
    intrinsics[name] = rec = Intrinsic(name, signature, doc, group, differentiable)
    return rec


def resolve(name, arg_types):
    """(overload, return type) for a call of builtin ``name``; TypeMismatch lists the options."""
    b = registry.get(name)
    if b is None:
        raise TypeMismatch(f"unknown builtin {name!r}")
    reasons, fitting, near = [], [], []
    for ov in b.overloads:
        try:
            return ov, ov.match(arg_types)
        except TypeMismatch as e:
            reasons.append(f"  {ov.signature()}: {e}")
            if _takes(ov, len(arg_types)):
                fitting.append(str(e))
                if _kinds_fit(ov, arg_types):
                    near.append(str(e))
    got = ", ".join(type_name(t) for t in arg_types)
    # warp-lang's wording first ("Couldn't find function overload for 'f'": its tests match it)
    if len(fitting) == 1:   # one overload takes this many arguments: its reason is the answer
        detail = f": {fitting[0]}"
    elif len(near) == 1:    # one overload takes these kinds of argument (scalars, vectors...) and
        detail = f": {near[0]}"   # failed on a finer rule: the others are beside the point
    else:
        detail = "; candidates:\n" + "\n".join(reasons)
    err = TypeMismatch(f"Couldn't find function overload for '{name}' that accepts ({got}){detail}")
    err.detail = detail
    raise err


def _kinds_fit(ov, arg_types):
    return all(_fits(t, p) for t, p in zip(arg_types, ov.patterns(len(arg_types))))


def _takes(ov, n):
    try:
        ov.patterns(n)
        return True
    except TypeMismatch:
        return False


# --- common return-type rules --------------------------------------------------------------------
def same_as(i):
    return lambda ts: ts[i]


def scalar_type_of(i):
    return lambda ts: scalar_of(ts[i])


def first_composite(ts):
    for t in ts:
        if comp.is_composite(t):
            return t
    return ts[0]
