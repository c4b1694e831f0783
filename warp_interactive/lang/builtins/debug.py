"""wp.print, wp.breakpoint, wp.cast, ``assert`` (C++ of the last three in
native/include/warp_interactive/core/debugging.h)."""

import ast
from dataclasses import dataclass

from ...types import composite as comp
from ...types import scalars as sc
from .function import INTRINSICS
from .registry import Overload, add_builtin, type_name
from ..ir import PyValue

add_builtin("breakpoint", {}, value_type=None, group="Utility", differentiable=False, replay="",
            template=lambda ts, ret: "<0>",
            doc="Stop in a debugger: on the CPU, raises SIGTRAP when a debugger (gdb, lldb...) is "
                "attached to the process, else prints one line and goes on; CUDA kernels refuse it "
                "at build time. Skipped in the adjoint's forward replay.")


def _print(tr, obj, node, kwargs):
    """``wp.print(value)``: the builtin spelling of ``print(value)`` in kernels."""
    if kwargs:
        raise tr.scope.error("wp.print() takes no keyword arguments")
    tr.emit_print(node)


def _byte_size(t):
    if sc.is_scalar(t):
        return t.size
    if comp.is_composite(t):
        n = 1
        for d in (t._shape_ if t._shape_ else (t._length_,)):
            n *= d
        return n * t._wp_scalar_type_.size
    return None


def _cast(tr, obj, node, kwargs):
    """``wp.cast(a, dtype)``: the bits of ``a`` reinterpreted as ``dtype`` (same size)."""
    dnode = kwargs.get("dtype", node.args[1] if len(node.args) > 1 else None)
    if len(node.args) < 1 or dnode is None or len(node.args) > 2:
        raise tr.scope.error("wp.cast(a, dtype) takes a value and a type")
    a = tr.eval_var(node.args[0])
    d = tr.eval(dnode)
    to = d.obj if isinstance(d, PyValue) else None
    to = sc.canonical_scalar(to) if to is not None and not comp.is_composite(to) else to
    size_to, size_from = (_byte_size(to) if to is not None else None), _byte_size(a.type)
    if size_to is None:
        raise tr.scope.error(f"wp.cast(): dtype must be a scalar, vector, matrix, quaternion or "
                             f"transform type, got {getattr(d, 'obj', d)!r}", dnode)
    if size_from is None or size_to != size_from:
        raise tr.scope.error(f"wp.cast(): cannot reinterpret {type_name(a.type)} ({size_from} bytes) "
                             f"as {type_name(to)} ({size_to} bytes): the sizes must match")
    ov = Overload(name="cast", input_types={"a": a.type}, value_func=None, cpp="bit_cast",
                  differentiable=False)
    return tr.emit_call(ov, to, [a], template=f"<{to._cpp}>")


@dataclass
class AssertOverload(Overload):
    """``assert cond`` in a kernel or function: ``text`` is the statement's source."""
    text: str = ""


def kernel_assert(tr, node, source):
    """``assert cond[, msg]``, warp-lang's rule: the condition is evaluated, and it is checked only
    in debug mode (release builds compile the check out, codegen/body.py). A failed check is
    recorded with the statement's text and raised after the launch (the thread stops there),
    rather than aborting the process as warp-lang's C assert does."""
    cond = tr.to_var(tr.eval(node.test), node.test)
    if cond.type is not sc.bool_ and not sc.is_scalar(cond.type):
        raise tr.scope.error(f"assert needs a boolean or scalar condition, got {type_name(cond.type)}", node.test)
    text = (ast.get_source_segment(source, node) if source else None) or "assert"
    ov = AssertOverload(name="assert", input_types={"cond": cond.type}, value_func=None, cpp="kernel_assert",
                        differentiable=False, replay="", text=" ".join(text.split()))
    tr.emit_call(ov, None, [cond])


INTRINSICS.update(print=_print, cast=_cast)
