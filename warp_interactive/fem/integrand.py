"""``@fem.integrand``: a Python function over samples, fields, a domain and values, translated
as a generic ``@wp.func``.

The function's ``fem.Sample``, ``fem.Field`` and ``fem.Domain`` parameters become generic
(``Any``): each integral calls it with the struct types of its actual sample, fields and
domain, and the translator makes one instance per combination (lang/definitions/func.py generics), in
which the operators resolve to those types' functions (operator.py). Integrals' kernels call
it through an ``IntegrandCall``, which spreads their ``fields``/``values`` structs over its
parameters by name (lang/translation/dispatch.py)."""

import inspect
import types as pytypes
from typing import Any

from . import _api as wp

from ..lang.translation import dispatch
from .types import Domain, Field, Sample, Sample_f64

_GENERIC_TAGS = (Sample, Sample_f64, Field, Domain)


class Integrand:
    """A function decorated with ``@fem.integrand``."""

    def __init__(self, func, kernel_options=None):
        self.func = func
        self.name = func.__name__
        self.module = func.__module__
        self.kernel_options = dict(kernel_options or {})
        self.argspec = inspect.getfullargspec(func)
        self.__doc__, self.__name__, self.__qualname__ = func.__doc__, func.__name__, func.__qualname__
        self.function = self._as_function()

    def _as_function(self):
        f = self.func
        clone = pytypes.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
        clone.__qualname__, clone.__module__, clone.__doc__ = f.__qualname__, f.__module__, f.__doc__
        clone.__kwdefaults__ = f.__kwdefaults__
        clone.__annotations__ = {k: (Any if v in _GENERIC_TAGS else v)
                                 for k, v in f.__annotations__.items() if k != "return"}
        return wp.func(clone)

    def params(self):
        """{name: annotation} of the function's parameters, in order."""
        ann = self.func.__annotations__
        return {name: ann.get(name) for name in self.argspec.args}

    # an integrand called from another integrand: its generic function
    def _wp_resolve_call_(self, types):
        return self.function

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)

    def __repr__(self):
        return f"fem.integrand({self.name})"


def integrand(func=None, kernel_options=None):
    """Decorator: ``@fem.integrand`` or ``@fem.integrand(kernel_options={...})``."""
    if func is None:
        return lambda f: Integrand(f, kernel_options)
    return Integrand(func, kernel_options)


class IntegrandCall:
    """What an integral kernel calls as ``call(s, domain_arg, fields, values[, test, trial])``:
    the integrand with each parameter taken from the sample, the domain, the member of
    ``fields`` / ``values`` of its name, or (kinds "test"/"trial") the test and trial
    functions the kernel evaluated at the quadrature point (field/at_point.py)."""

    __name__ = "integrand"

    def __init__(self, integrand, kinds):
        self.integrand = integrand
        sources = []
        for name, kind in kinds.items():
            sources.append({"sample": (0,), "domain": (1,), "field": (2, name), "value": (3, name),
                            "test": (4,), "trial": (5,)}[kind])
        self.call = dispatch.Call(integrand.function, tuple(sources))

    def _wp_resolve_call_(self, types):
        return self.call
