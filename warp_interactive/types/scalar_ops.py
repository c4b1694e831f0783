"""Python-scope arithmetic on warp scalars (``wp.float16(2) * wp.float16(3)``, ``-wp.uint8(1)``).

The results are the kernels' (native/include/warp_interactive/core/scalar.h), computed here with
NumPy in the scalar's own type, so nothing is compiled: integers wrap to their width, ``/`` on
integers truncates and ``x / 0``, ``x % 0`` and ``x // 0`` are 0; ``%`` is the truncated
remainder (the sign of the left operand: C's ``%`` and ``fmod``); ``//`` floors (floats:
``floor(a / b)`` with ``a / b`` rounded first); float16 and bfloat16 compute in float32 and round
once, as their C++ operators do. ``**`` is defined for floats only, as in warp-lang.

As warp-lang returns them, a float32 result is a Python ``float`` and an int32 result a Python
``int``; every other type gives a value of that type (``wp.int8(2) + wp.int8(3)`` is
``int8(5)``). Two warp scalars of different types are refused (kernels refuse them too); a Python
or NumPy number adapts to the warp scalar's type (a float never becomes an integer).
"""

import math
import operator

import numpy as np

from ..errors import OperandTypeError
from . import scalars as sc


def _int_div(a, b):
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _int_mod(a, b):
    return 0 if b == 0 else a - b * _int_div(a, b)


def _int_floordiv(a, b):
    return 0 if b == 0 else a // b


def _float_floordiv(a, b):
    return np.floor(a / b)


def _fmod(a, b):
    """C's fmod (exact in any precision, so computed on doubles); NaN where it is NaN in C."""
    a, b = float(a), float(b)
    if b == 0.0 or math.isinf(a) or math.isnan(a) or math.isnan(b):
        return math.nan
    return math.fmod(a, b)


# op name -> (integer implementation on Python ints, float implementation on NumPy scalars);
# None: not defined for that kind
_BINARY = {
    "add": (operator.add, operator.add),
    "sub": (operator.sub, operator.sub),
    "mul": (operator.mul, operator.mul),
    "div": (_int_div, operator.truediv),
    "mod": (_int_mod, _fmod),
    "floordiv": (_int_floordiv, _float_floordiv),
    "pow": (None, operator.pow),   # NumPy's scalar power: the C library's powf/pow
}
_UNARY = {"neg": (operator.neg, operator.neg), "pos": (operator.pos, operator.pos)}


def _operand(t, x, op, a, b):
    """``x`` (the other operand) as a number of type ``t``, NotImplemented where another type's
    reflected operator may take it, or an OperandTypeError for mismatched numbers."""
    if isinstance(x, sc.Scalar):
        if type(x) is not t:
            raise _mismatch(op, a, b)
        return x.value
    if isinstance(x, (bool, np.bool_)):
        return NotImplemented
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        if t._kind != "float":
            raise _mismatch(op, a, b)
        return float(x)
    return NotImplemented


def _mismatch(op, a, b):
    return OperandTypeError(f"Couldn't find a function '{op}' compatible with the arguments "
                            f"'{_name(a)}, {_name(b)}'")


def _name(x):
    return type(x).__name__


def _compute(t, fns, values):
    """``fns``' implementation for type ``t`` applied to ``values``; the result as warp-lang
    gives it (see the module docstring)."""
    if t._kind in ("int", "uint"):
        fn = fns[0]
        r = t._ctype(fn(*[int(v) for v in values])).value   # wraps to the type's width
    else:
        fn = fns[1]
        work = np.float32 if t in (sc.float16, sc.bfloat16) else t._np_dtype.type
        rnd = _ROUND.get(t, lambda v: float(work(v)))
        with np.errstate(all="ignore"):
            args = [work(rnd(v)) for v in values]
            if fn is _float_floordiv:   # the quotient is a value of the type before the floor
                args = [work(rnd(args[0] / args[1])), work(1.0)]
            r = rnd(fn(*args))
    if t is sc.float32:
        return float(r)
    if t is sc.int32:
        return int(r)
    return t(r)


def _bf16(v):
    """``v`` rounded to bfloat16 (to nearest, ties to even), as a float."""
    return float(sc.bfloat16_bits_to_float32(sc.float32_to_bfloat16_bits(np.float32(v)))[()])


_ROUND = {sc.float16: lambda v: float(np.float16(v)), sc.bfloat16: _bf16}


def _binary(op, reflected=False):
    fns = _BINARY[op]

    def method(self, other):
        t = type(self)
        if t is sc.bool_ or fns[0 if t._kind != "float" else 1] is None:
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        x = _operand(t, other, op, a, b)
        if x is NotImplemented:
            return NotImplemented
        values = (x, self.value) if reflected else (self.value, x)
        return _compute(t, fns, values)
    return method


def _unary(op):
    fns = _UNARY[op]

    def method(self):
        if type(self) is sc.bool_:
            raise TypeError(f"bad operand type for unary {'-' if op == 'neg' else '+'}: 'bool'")
        return _compute(type(self), fns, (self.value,))
    return method


def _abs(self):
    t = type(self)
    if t is sc.bool_:
        raise TypeError("bad operand type for abs(): 'bool'")
    if t._kind == "float":
        return t(abs(float(self.value)))
    return t(t._ctype(abs(int(self.value))).value)


def _compare(fn):
    def method(self, other):
        if isinstance(other, sc.Scalar):
            other = other.value
        if not isinstance(other, (int, float, np.integer, np.floating, np.bool_)):
            return NotImplemented
        return fn(self.value, other)
    return method


_METHODS = {
    "__add__": _binary("add"), "__radd__": _binary("add", True),
    "__sub__": _binary("sub"), "__rsub__": _binary("sub", True),
    "__mul__": _binary("mul"), "__rmul__": _binary("mul", True),
    "__truediv__": _binary("div"), "__rtruediv__": _binary("div", True),
    "__floordiv__": _binary("floordiv"), "__rfloordiv__": _binary("floordiv", True),
    "__mod__": _binary("mod"), "__rmod__": _binary("mod", True),
    "__pow__": _binary("pow"), "__rpow__": _binary("pow", True),
    "__neg__": _unary("neg"), "__pos__": _unary("pos"), "__abs__": _abs,
    "__lt__": _compare(operator.lt), "__le__": _compare(operator.le),
    "__gt__": _compare(operator.gt), "__ge__": _compare(operator.ge),
}
for _name_, _method in _METHODS.items():
    setattr(sc.Scalar, _name_, _method)
