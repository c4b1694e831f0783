"""Operators with a tile operand (``a + b``, ``a * 2.0``, ``t * wp.vec3(...)``, ``-a``, ``a[i, j]``):
``call_builtin`` of an operator lands here when any operand is a tile.

warp-lang 1.19's rules, checked against it:
- ``+``/``-`` between tiles need the same shape and dtype; a tile and a value of its scalar type
  broadcast the value (an addition here: warp-lang refuses ``tile + 1.0``).
- ``*``/``/`` apply the element operator with the other operand broadcast: ``tile<float> * vec3``
  is a ``tile<vec3>``, ``vec3 / tile<float>``, ``tile<mat22> * tile<float>``... At least one of
  the two element types must be a scalar (else TypeError), and scalar types must agree.
"""

from ...errors import CodegenTypeError, CodegenValueError, TypeMismatch
from ...types import composite as comp
from ...types import scalars as sc
from ...types.tile import is_tile, tile_type
from ..builtins.function import BuiltinFunction, tile_ops
from .core import emit, extract, is_struct, value_var_of
from .ops import callable_ref
from ..builtins.registry import type_name

_ELEMENTWISE = {"add": "tile_add", "sub": "tile_sub", "mul": "tile_mul", "div": "tile_div"}
_VERB = {"mul": "multiply", "div": "divide"}


def operator(tr, op, args):
    """The tile form of builtin operator ``op`` on ``args`` (at least one a tile)."""
    _check_struct_operator(tr, op, args)
    if op in ("neg", "pos") and len(args) == 1:
        return args[0] if op == "pos" else emit(tr, "tile_neg", args[0].type, args)
    if op == "extract":
        return extract(tr, args[0], args[1:])
    if len(args) == 2 and op in _BITWISE and all(is_tile(a.type) for a in args):
        return _bitwise(tr, op, *args)
    if len(args) != 2 or op not in _ELEMENTWISE:
        raise tr.scope.error(f"operator '{op}' is not defined for tiles "
                             f"({', '.join(type_name(a.type) for a in args)})")
    a, b = args
    if is_tile(a.type) and is_tile(b.type):
        return _tile_tile(tr, op, a, b)
    tile_v, value = (a, b) if is_tile(a.type) else (b, a)
    fast = _same_scalar_value(tile_v.type.dtype, value)
    if op in _VERB and (not fast or (op == "div" and tile_v is b and not sc.is_scalar(b.type.dtype))):
        return _broadcast_map(tr, op, a, b)
    if op not in _VERB and not sc.is_scalar(tile_v.type.dtype):
        raise tr.scope.error(f"operator '{op}' between {_operand_name(a.type)} and "
                             f"{_operand_name(b.type)} is not defined: a value adds to a tile of "
                             f"scalars only (use a tile of the same dtype)", kind=CodegenTypeError)
    value = value_var_of(tr, value, tile_v.type.dtype)
    if op == "mul":
        if tile_v is a:
            return emit(tr, "tile_mul_scalar", a.type, [a, value])
        return emit(tr, "tile_scalar_mul", b.type, [value, b])
    if op == "div" and tile_v is a:
        return emit(tr, "tile_div_scalar", a.type, [a, value])
    # tile + scalar, scalar - tile, scalar / tile: the scalar as a full tile
    full = emit(tr, "tile_full", tile_v.type, [value], f"<{tile_v.type._cpp}>")
    pair = [a, full] if tile_v is a else [full, b]
    return emit(tr, _ELEMENTWISE[op], tile_v.type, pair)


_BITWISE = ("bit_and", "bit_or", "bit_xor")


def _bitwise(tr, op, a, b):
    """``a & b``, ``a | b``, ``a ^ b`` (and ``&=``...) between tiles of one shape and integer dtype
    (scalars, vectors or matrices of them), element by element, as in warp-lang."""
    ta, tb = a.type, b.type
    scalar = ta.dtype._wp_scalar_type_ if comp.is_composite(ta.dtype) else ta.dtype
    if ta.shape != tb.shape or type_name(ta.dtype) != type_name(tb.dtype) or not sc.is_int(scalar):
        raise tr.scope.error(f"operator '{op}' needs two tiles of the same shape and integer dtype, got "
                             f"{_tile_name(ta)} and {_tile_name(tb)}", kind=CodegenTypeError)
    return emit(tr, f"tile_{op}", ta, [a, b], differentiable=False)


def _check_struct_operator(tr, op, args):
    """Tiles of ``@wp.struct``s add, subtract and negate field by field (codegen/struct_ops.py);
    any other operator is warp-lang's TypeError."""
    structs = [a.type.dtype for a in args if is_tile(a.type) and is_struct(a.type.dtype)]
    if not structs or (op in ("add", "sub", "neg", "pos", "extract") and
                       all(is_tile(a.type) for a in args[:1 if op == "extract" else None])):
        return
    what = "bitwise inplace operators (&=, |=, ^=) are" if op in _BITWISE else f"operator '{op}' is"
    raise tr.scope.error(f"{what} not defined for tiles of the Warp struct {structs[0].__name__}: struct "
                         f"tiles add, subtract and negate field by field", kind=CodegenTypeError)


def _same_scalar_value(dtype, v):
    """Whether ``v`` is a value of the tile element's scalar type (or a literal that becomes one):
    the fast paths (tile_mul_scalar...) take it; anything else maps the element operator."""
    scalar = dtype._wp_scalar_type_ if comp.is_composite(dtype) else dtype
    return v.literal or type_name(v.type) == type_name(scalar)


def _tile_name(t):
    return f"tile<{type_name(t.dtype)}>"


def _operand_name(t):
    return _tile_name(t) if is_tile(t) else type_name(t)


def _tile_tile(tr, op, a, b):
    ta, tb = a.type, b.type
    if ta.shape != tb.shape:
        if len(ta.shape) != len(tb.shape):
            raise tr.scope.error(f"tile shapes must have the same number of dimensions for '{op}', "
                                 f"got {len(ta.shape)} and {len(tb.shape)} ({ta.shape} and {tb.shape}); "
                                 f"use wp.tile_broadcast()", kind=CodegenValueError)
        raise tr.scope.error(f"tile shapes differ for '{op}': {ta.shape} and {tb.shape}; use "
                             f"wp.tile_broadcast()", kind=CodegenValueError)
    if op in _VERB:
        if not (sc.is_scalar(ta.dtype) or sc.is_scalar(tb.dtype)):
            raise tr.scope.error(f"Cannot {_VERB[op]} {_tile_name(ta)} by {_tile_name(tb)}: at least "
                                 f"one element type must be scalar", kind=CodegenTypeError)
        if type_name(ta.dtype) != type_name(tb.dtype):
            return _broadcast_map(tr, op, a, b)
    elif type_name(ta.dtype) != type_name(tb.dtype):
        raise tr.scope.error(f"tile dtypes differ for '{op}': {_tile_name(ta)} and {_tile_name(tb)}; "
                             f"both tiles must have the same dtype", kind=CodegenTypeError)
    return emit(tr, _ELEMENTWISE[op], ta, [a, b])


def _scalar_of(t):
    return t._wp_scalar_type_ if comp.is_composite(t) else t


def _broadcast_map(tr, op, a, b):
    """``a op b`` element by element (one of them may be a value broadcast to every element), as
    tile_map(wp.mul / wp.div, ...) with the element operator's result type."""
    ea = a.type.dtype if is_tile(a.type) else a.type
    eb = b.type.dtype if is_tile(b.type) else b.type
    left, right = _operand_name(a.type), _operand_name(b.type)
    if not (sc.is_scalar(ea) or sc.is_scalar(eb)):
        raise tr.scope.error(f"Cannot {_VERB[op]} {left} by {right}: at least one operand must be a "
                             f"scalar type", kind=CodegenTypeError)
    if a.literal or b.literal:      # a literal takes the scalar type of the other side
        if a.literal:
            a = tr.retype_literal(a, _scalar_of(eb)) or a
            ea = a.type
        else:
            b = tr.retype_literal(b, _scalar_of(ea)) or b
            eb = b.type
    if type_name(_scalar_of(ea)) != type_name(_scalar_of(eb)):
        raise tr.scope.error(f"Cannot {_VERB[op]} {left} by {right}: the scalar types differ "
                             f"({type_name(_scalar_of(ea))} and {type_name(_scalar_of(eb))})",
                             kind=CodegenTypeError)
    try:
        f, ret = callable_ref(tr, BuiltinFunction(op), [ea, eb], op)
    except TypeMismatch as e:
        raise tr.scope.error(f"Cannot {_VERB[op]} {left} by {right}: {e}", kind=CodegenTypeError) from None
    shape = a.type.shape if is_tile(a.type) else b.type.shape
    out = tile_type(ret, shape)
    return emit(tr, "tile_map", out, [f, a, b], f"<{out._cpp}>")


tile_ops.fill(operator=operator)
