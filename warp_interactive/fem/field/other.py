"""Fields not stored at nodes: a uniform value, and a function of position (``ImplicitField``)."""

import functools
import inspect
from typing import Any

from .. import _api as wp
from ..precision import Cache, FollowsPrecision
from .. import operator as op
from ...lang.definitions.generics import type_of_value
from ...lang.builtins.registry import type_name
from .spread import Spread as _Spread
from .structs import make_struct


def _zero_grad(dtype, dim):
    """A @wp.func giving the zero gradient of ``dtype`` values in ``dim`` dimensions."""
    length = dtype._length_ if getattr(dtype, "_kind_", None) == "vector" else None    # scalars: vector gradient
    G = wp.types.vector(dim, wp.float32) if length is None else wp.types.matrix(shape=(length, dim), dtype=wp.float32)

    @wp.func
    def zero_grad(f: Any, s: Any):
        return G(0.0)
    return zero_grad


@functools.lru_cache(maxsize=None)
def _uniform_funcs(dtype, dim):
    @wp.func
    def value(f: Any, s: Any):
        return f.value
    return value, _zero_grad(dtype, dim)


class UniformField(FollowsPrecision):
    """The same ``value`` everywhere on ``domain``."""

    def __init__(self, domain, value):
        self.domain = domain
        self.dtype = type_of_value(value) or type(value)
        self._value = value
        self.EvalArg = make_struct(f"UniformField_{getattr(self.dtype, '__name__', 'value')}", {"value": self.dtype})
        value_f, grad = _uniform_funcs(self.dtype, domain.geometry.dimension)
        ops = {"__call__": value_f, "inner": value_f, "outer": value_f, "average": value_f,
               "grad": grad, "grad_outer": grad, "scalar_type": wp.float32, "degree": 0}
        op.register(self.EvalArg, ops, "a uniform field")
        self.degree = 0

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, v):
        t = type_of_value(v) or type(v)
        if t != self.dtype:    # the kernels were made for the first value's type
            raise TypeError(f"UniformField value type must remain {type_name(self.dtype)}, got {type_name(t)}")
        self._value = v

    @property
    def geometry(self):
        return self.domain.geometry

    @property
    def name(self):
        return "uniform"

    def on(self, domain):
        return self

    def eval_arg_value(self, device=None):
        a = self.EvalArg()
        a.value = self._value
        return a


@functools.lru_cache(maxsize=None)
def _implicit_funcs(func, names, position):
    spread = _Spread(func, names)

    @wp.func
    def value(f: Any, s: Any):
        return spread(position(f.elt, s), f)
    return value


_implicit_numbers = Cache()      # (func, grad_func, div_func) -> its number in struct names


class ImplicitField(FollowsPrecision):
    """A field given by a ``@wp.func`` of the position (and of ``values``) on ``domain``; its
    gradient and divergence, where integrands ask for them, by ``grad_func`` and ``div_func``
    (taking the same arguments)."""

    def __init__(self, domain, func, values=None, grad_func=None, div_func=None, degree=0):
        if not hasattr(func, "key"):
            raise ValueError("Implicit field function must be a warp Function (decorated with `wp.func`)")
        self.domain = domain
        self.func = func
        self.grad_func = grad_func
        self.div_func = div_func
        self.values = dict(values or {})
        self.degree = degree
        self._make()

    def _make(self):
        fields = {"elt": self.domain.ElementArg}
        # a value's type: the functions' annotation of it where there is one (a volume id given
        # as a Python int is a uint64 there, not the int32 its value would suggest)
        ann = {}
        for f in (self.func, self.grad_func, self.div_func):
            if f is not None:
                ann.update(getattr(f.func, "__annotations__", {}))
        fields.update({k: ann[k] if k in ann and not isinstance(ann[k], str) else (type_of_value(v) or type(v))
                       for k, v in self.values.items()})
        # one struct type (and operator table) per combination of functions: numbered by their
        # identity, as functions of one name (from two modules, or two calls of a factory) differ
        funcs = (self.func, self.grad_func, self.div_func)
        key = "_".join(f.key for f in funcs if f is not None)
        tag = "".join("1" if f is not None else "0" for f in (self.grad_func, self.div_func))
        number = _implicit_numbers.setdefault(funcs, len(_implicit_numbers))
        self.EvalArg = make_struct(f"ImplicitField_{key}_{tag}_{number}", fields)
        names, position = self.arg_names(self.func), self.domain.element_position
        value = _implicit_funcs(self.func, names, position)
        ops = {"__call__": value, "inner": value, "outer": value, "average": value, "scalar_type": wp.float32,
               "degree": self.degree}
        if self.grad_func is not None:
            grad = _implicit_funcs(self.grad_func, self.arg_names(self.grad_func), position)
            ops.update(grad=grad, grad_outer=grad, grad_average=grad)
        if self.div_func is not None:
            div = _implicit_funcs(self.div_func, self.arg_names(self.div_func), position)
            ops.update(div=div, div_outer=div)
        op.register(self.EvalArg, ops, "an implicit field")

    def arg_names(self, func):
        """The values ``func`` takes after the position, in its parameters' order: values are
        passed by name, as warp-lang matches them (a dict's order is not the function's)."""
        params = list(inspect.signature(func.func).parameters)[1:]
        return tuple(n for n in params if n in self.values)

    @property
    def geometry(self):
        return self.domain.geometry

    @property
    def name(self):
        return f"implicit_{self.func.key}"

    def make_deformed_geometry(self, relative=True):
        """The field's geometry with its points moved to this field's values (or by them, with
        ``relative=True``); the field needs a ``grad_func`` (the position gradient)."""
        from ..geometry.implicit_deformed import ImplicitDeformedGeometry
        return ImplicitDeformedGeometry(self, relative)

    def on(self, domain):
        return self

    def eval_arg_value(self, device=None):
        a = self.EvalArg()
        a.elt = self.domain.element_arg_value(device)
        for k, v in self.values.items():
            setattr(a, k, v)
        return a
