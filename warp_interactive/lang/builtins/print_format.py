"""The printf formats of ``print(value)`` / ``wp.print(value)`` in kernels, as the reference
prints: scalars with ``%g`` (floats) or as integers, booleans as True/False, a vector's
components each followed by a space, a matrix one such line per row, a quaternion's four
components, a transform as ``(p) (q)``; other values (structs, arrays) as a placeholder line.
In the reverse pass the same statement prints the adjoint, prefixed ``adj: `` (vectors without
the trailing space; a matrix's later rows indented under the first).
The arguments that match these formats are expanded by codegen (body.py, ``_printf_args``)."""

import re

from ...types import composite as comp
from ...types import scalars as sc
from ...types.tile import is_tile

_INT_SPEC = {"int": {8: "%lld"}, "uint": {8: "%llu"}}
NOT_PRINTABLE = "<type without print implementation>"
ADJ_PREFIX = "adj: "


def scalar_format(t):
    if t is sc.bool_:
        return "%s"
    if sc.is_float(t):
        return "%g"
    return _INT_SPEC.get(t._kind, {}).get(t.size, "%d" if t._kind == "int" else "%u")


def tile_format(t, storage="register"):
    """A tile of scalars as warp-lang prints it: NumPy-like nested brackets, rows of a 2-d block
    on their own lines, then `` = tile(shape=(3,4), storage=register)``."""
    s = scalar_format(t.dtype)

    def values(level):
        dims = t.shape[level:]
        if len(dims) == 1:
            return "[" + " ".join([s] * dims[0]) + "]"
        sep = "\n" + " " * (level + 1) if len(dims) == 2 else "\n\n" + " " * (level + 1)
        return "[" + sep.join([values(level + 1)] * dims[0]) + "]"
    shape = ",".join(str(d) for d in t.shape)
    return f"{values(0)} = tile(shape=({shape}), storage={storage})\n"


def value_format(t, adjoint=False):
    """The printf format of one value of type ``t`` (forward, or the adjoint's line)."""
    if sc.is_scalar(t):
        return scalar_format(t)
    if is_tile(t) and sc.is_scalar(t.dtype):
        return tile_format(t)
    if not comp.is_composite(t):
        return NOT_PRINTABLE
    s = scalar_format(t._wp_scalar_type_)
    kind = t._kind_
    if kind == "quaternion":
        return " ".join([s] * 4)
    if kind == "transform":
        return f"({' '.join([s] * 3)}) ({' '.join([s] * 4)})"
    if kind == "matrix":
        rows, cols = t._shape_
        if adjoint:
            return ("\n" + " " * len(ADJ_PREFIX)).join([" ".join([s] * cols)] * rows)
        return f"{s} " * cols + "\n" + (f"{s} " * cols + "\n") * (rows - 1)
    return " ".join([s] * t._length_) if adjoint else f"{s} " * t._length_


def line_format(parts):
    """One printf format for a print statement's parts (format strings of values, or literal
    text already escaped): joined by spaces, ended by a newline; a part that ends a line or with
    a space (a matrix, a vector) needs no separator after it."""
    out = ""
    for p in parts:
        if out and not out.endswith((" ", "\n")):
            out += " "
        out += p
    return out if out.endswith("\n") else out + "\n"


MAX_PRINTF_ARGS = 32   # CUDA's device printf takes at most 32 arguments after the format
_CONVERSION = re.compile(r"%%|%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z)?[diouxXeEfFgGcsp]")


def split_format(fmt, limit=MAX_PRINTF_ARGS):
    """``fmt`` cut into pieces of at most ``limit`` conversions each, as (piece, number of
    arguments it takes): print() of large values (a 6x6 matrix has 36 components) becomes several
    printf calls."""
    pieces, start, count = [], 0, 0
    for m in _CONVERSION.finditer(fmt):
        if m.group() == "%%":
            continue
        if count == limit:
            pieces.append((fmt[start:m.start()], count))
            start, count = m.start(), 0
        count += 1
    pieces.append((fmt[start:], count))
    return pieces
