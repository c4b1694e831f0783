"""Python-scope arithmetic on arrays (``a + b``, ``2.0 * a``, ``a %= 3``, ``-a``), as warp-lang's
arrays have it: each operator maps the kernel builtin of the same name over the elements (NumPy
broadcasting between arrays; a number or warp value applies to every element), in a kernel
launched on the arrays' device and recorded on an active tape. The kernels live in the runtime
(runtime/array_ops.py), reached through ``hooks.array_op``."""

from .. import hooks

_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow")
_BUILTIN = {"truediv": "div"}


def _forward(op):
    return lambda self, other: hooks.array_op(_BUILTIN.get(op, op), (self, other))


def _reflected(op):
    return lambda self, other: hooks.array_op(_BUILTIN.get(op, op), (other, self))


def _in_place(op):
    def method(self, other):
        hooks.array_op(_BUILTIN.get(op, op), (self, other), out=self)
        return self
    return method


class ArrayArithmetic:
    """The operators of ``wp.array``."""

    def __neg__(self):
        return hooks.array_op("neg", (self,))

    def __pos__(self):
        return hooks.array_op("pos", (self,))


for _op in _BINARY:
    setattr(ArrayArithmetic, f"__{_op}__", _forward(_op))
    setattr(ArrayArithmetic, f"__r{_op}__", _reflected(_op))
    setattr(ArrayArithmetic, f"__i{_op}__", _in_place(_op))
