"""``wp.grad(f)``: the gradient of a @wp.func or a builtin, called in forward kernel code.

``wp.grad(f)(x, y)`` runs f's adjoint with an output adjoint of one and gives the adjoint of
each argument (one value, or a tuple for several), as the reference: the derivatives of a
scalar function of its inputs, computed in the kernel's forward pass.
"""

from dataclasses import dataclass

from ...types import scalars as sc
from ...errors import TypeMismatch
from .. import ir
from ..builtins.registry import resolve, type_name


class GradOf:
    """What ``wp.grad(f)`` is: called in kernels (and @wp.func), it gives f's input gradients."""

    def __init__(self, func):
        if not (getattr(func, "_wp_function_", False) or hasattr(func, "key")):
            raise TypeError(f"wp.grad() takes a @wp.func or a kernel builtin, got {func!r}")
        self.func = func
        self.__name__ = f"grad({getattr(func, 'key', func)})"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"wp.{self.__name__}(...) is computed in kernels and @wp.func "
                           "functions only")

    def __repr__(self):
        return f"<wp.{self.__name__}>"


def grad(func):
    """``wp.grad(f)``: a function giving ``f``'s gradients with respect to its arguments."""
    return GradOf(func)


@dataclass(eq=False)
class GradCall:
    """The ``func`` of an ``ir.Call`` computing ``target``'s input gradients (codegen writes
    the adjoint call); nothing flows back through it."""
    target: object            # a registry Overload or a user FuncOverload
    ret_type: object
    template: str = ""
    cpp: str = "grad_of"
    differentiable: bool = False
    context: bool = False


def translate(tr, obj, node, kwargs):
    """A call ``wp.grad(f)(args)`` in a kernel (``tr`` the Translator)."""
    if kwargs:
        raise tr.scope.error(f"wp.{obj.__name__}() takes no keyword arguments")
    f = obj.func
    args = tr.args_of(node)
    if getattr(f, "_wp_function_", False):
        try:
            target, args = f.resolve_overload(args, tr.retype_literal)
        except TypeMismatch as e:
            raise tr.scope.error(str(e)) from None
        tr.calls.append(target)
        tr.grad_calls.append(target)
        rets, template = target.return_types(), ""
    else:
        try:
            target, ret = resolve(f.key, [a.type for a in args])
        except TypeMismatch as e:
            found = tr._resolve_with_literals(f.key, args)
            if found is None:
                raise tr.scope.error(str(e)) from None
            target, ret, args = found
        if not target.differentiable or target.context or target.writes:
            raise tr.scope.error(f"wp.grad(): wp.{f.key} has no gradient to call")
        rets = [ret] if ret is not None else []
        template = target.template([a.type for a in args], ret) if target.template else ""
    if len(rets) != 1 or not sc.is_float(rets[0]):
        got = ", ".join(type_name(t) for t in rets) or "nothing"
        raise tr.scope.error(f"wp.grad() needs a function returning one floating-point scalar; "
                             f"{getattr(f, 'key', f)} returns {got}")
    outs = [tr.scope.new_var(a.type) for a in args]
    call = GradCall(target=target, ret_type=rets[0], template=template)
    tr.scope.emit(ir.Call(out=outs if len(outs) != 1 else outs[0], func=call, args=args))
    return tuple(outs) if len(outs) != 1 else outs[0]

