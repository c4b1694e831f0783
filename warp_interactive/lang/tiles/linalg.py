"""Tile builtins, part 3: tile_matmul, Cholesky factorisation and solves, diag_add, prefix scans,
sort. See builtins_tile.py for the conventions."""

from ...types import scalars as sc
from ...types.tile import tile_type
from .. import ir
from ..builtins.function import INTRINSICS
from .core import _REQUIRED, bind, emit, f64_const, rebind, static, tile_var
from ...errors import CodegenTypeError
from .ops import struct_note
from ..builtins.registry import Overload, type_name

_FLOATS = (sc.float16, sc.float32, sc.float64)


def _float_matrix(tr, t, name, what):
    if t.type.dtype not in _FLOATS:
        raise tr.scope.error(f"wp.{name}(): {what} must be a tile of float16/32/64, got {type_name(t.type)}")
    if t.type.ndim != 2:
        raise tr.scope.error(f"wp.{name}(): {what} must be a 2-d tile, got shape {t.type.shape}")


def tile_matmul(tr, obj, node, kwargs):
    """``tile_matmul(a, b)`` returns ``a @ b`` (in a's dtype); ``tile_matmul(a, b, out, alpha=1.0,
    beta=1.0)`` sets ``out = alpha * a @ b + beta * out`` (in out's dtype; with ``beta == 0`` out is
    not read). a, b and out may each be float16/32/64, as in warp-lang."""
    args = bind(tr, node, kwargs, [("a", _REQUIRED), ("b", _REQUIRED), ("out", None), ("alpha", None),
                                   ("beta", None), ("precision", None)], "tile_matmul")
    a, b = tile_var(tr, args, "a", "tile_matmul"), tile_var(tr, args, "b", "tile_matmul")
    _float_matrix(tr, a, "tile_matmul", "a")
    _float_matrix(tr, b, "tile_matmul", "b")
    (m, k), (k2, n) = a.type.shape, b.type.shape
    if k != k2:
        raise tr.scope.error(f"wp.tile_matmul(): mismatched shapes: {type_name(a.type)} @ "
                             f"{type_name(b.type)} (a's columns must equal b's rows)")
    alpha = _scalar_const(tr, args, "alpha", 1.0)
    out = tile_var(tr, args, "out", "tile_matmul") if "out" in args else None
    _check_precision(tr, args, [t.type.dtype for t in (a, b, out) if t is not None])
    if out is None:
        ret = tile_type(a.type.dtype, (m, n))
        return emit(tr, "tile_matmul", ret, [a, b, alpha], f"<{a.type.dtype._cpp}, {m}, {n}, {k}>")
    _float_matrix(tr, out, "tile_matmul", "out")
    if out.type.shape != (m, n):
        raise tr.scope.error(f"wp.tile_matmul(): out must be a tile of shape {(m, n)}, got "
                             f"{type_name(out.type)}", args["out"])
    beta = _scalar_const(tr, args, "beta", 1.0)
    new = emit(tr, "tile_matmul_acc", out.type, [a, b, out, alpha, beta], f"<{out.type.dtype._cpp}, {m}, {n}, {k}>")
    rebind(tr, args["out"], new, "tile_matmul", "out")
    return None


def _check_precision(tr, args, dtypes):
    """``precision="default"`` or ``"tf32"`` (float32 tiles only), as warp-lang checks it. On the CPU
    warp-lang computes tf32 requests in float32; so does every target here (no tensor cores)."""
    precision = static(tr, args, "precision", "default", what='"default" or "tf32"')
    if precision not in ("default", "tf32"):
        raise tr.scope.error(f'wp.tile_matmul(): precision must be "default" or "tf32", got {precision!r}',
                             args.get("precision"))
    if precision == "tf32" and any(d is not sc.float32 for d in dtypes):
        raise tr.scope.error('wp.tile_matmul(): precision="tf32" needs float32 tiles for a, b and out, got '
                             + ", ".join(type_name(d) for d in dtypes), args.get("precision"))


def _scalar_const(tr, args, key, default):
    """alpha/beta as float64 (compile-time numbers or float values of the kernel)."""
    if key not in args:
        return f64_const(tr, default)
    v = tr.eval(args[key])
    if hasattr(v, "obj") and isinstance(v.obj, (int, float)):
        return f64_const(tr, v.obj)
    v = tr.to_var(v, args[key])
    if not sc.is_float(v.type):
        raise tr.scope.error(f"wp.tile_matmul(): {key} must be a float, got {type_name(v.type)}", args[key])
    if v.type is sc.float64:
        return v
    return emit(tr, "cast", sc.float64, [v], "<wp::float64>", name="float64")


# --- Cholesky and triangular solves -----------------------------------------------------------------
def _square(tr, t, name):
    _float_matrix(tr, t, name, "the matrix")
    if t.type.shape[0] != t.type.shape[1]:
        raise tr.scope.error(f"wp.{name}(): the matrix must be square, got shape {t.type.shape}")


def _rhs(tr, l, y, name):
    n = l.type.shape[0]
    if y.type.dtype is not l.type.dtype or y.type.ndim > 2 or y.type.shape[0] != n:
        raise tr.scope.error(f"wp.{name}(): the right-hand side must be a tile of {type_name(l.type.dtype)} "
                             f"with shape ({n},) or ({n}, M), got {type_name(y.type)}")


def _fill_mode(tr, args, name):
    """``fill_mode="lower"|"upper"`` (a compile-time string): True for upper."""
    mode = static(tr, args, "fill_mode", "lower", what='the compile-time string "lower" or "upper"')
    if mode not in ("lower", "upper"):
        raise tr.scope.error(f'wp.{name}(): fill_mode must be "lower" or "upper", got {mode!r}',
                             args.get("fill_mode"))
    return "true" if mode == "upper" else "false"


def tile_cholesky(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("A", _REQUIRED), ("fill_mode", None)], obj.key)
    a = tile_var(tr, args, "A", obj.key)
    _square(tr, a, obj.key)
    upper = _fill_mode(tr, args, obj.key)
    n = a.type.shape[0]
    # differentiable as in warp-lang (the in-place form is not: its input is gone)
    out = emit(tr, "tile_cholesky", a.type, [a], f"<{a.type.dtype._cpp}, {n}, {upper}>",
               differentiable=not obj.key.endswith("_inplace"))
    if obj.key.endswith("_inplace"):
        rebind(tr, args["A"], out, obj.key, "A")
        return None
    return out


def _solver(cpp):
    def handler(tr, obj, node, kwargs):
        name = obj.key
        has_mode = cpp == "tile_cholesky_solve"
        params = [("L", _REQUIRED), ("y", _REQUIRED)] + ([("fill_mode", None)] if has_mode else [])
        args = bind(tr, node, kwargs, params, name)
        lt, y = tile_var(tr, args, "L", name), tile_var(tr, args, "y", name)
        _square(tr, lt, name)
        _rhs(tr, lt, y, name)
        mode = f", {_fill_mode(tr, args, name)}" if has_mode else ""
        out = emit(tr, cpp, y.type, [lt, y], f"<{lt.type.dtype._cpp}, {lt.type.shape[0]}{mode}>",
                   differentiable=not name.endswith("_inplace"))
        if name.endswith("_inplace"):
            rebind(tr, args["y"], out, name, "the right-hand side")
            return None
        return out
    return handler


def tile_diag_add(tr, obj, node, kwargs):
    args = bind(tr, node, kwargs, [("a", _REQUIRED), ("d", _REQUIRED)], "tile_diag_add")
    a, d = tile_var(tr, args, "a", "tile_diag_add"), tile_var(tr, args, "d", "tile_diag_add")
    _square(tr, a, "tile_diag_add")
    n = a.type.shape[0]
    if d.type is not tile_type(a.type.dtype, (n,)):
        raise tr.scope.error(f"wp.tile_diag_add(): d must be a tile of shape ({n},) and dtype "
                             f"{type_name(a.type.dtype)}, got {type_name(d.type)}")
    return emit(tr, "tile_diag_add", a.type, [a, d], f"<{a.type.dtype._cpp}, {n}>")


# --- scans and sort -------------------------------------------------------------------------------------
def _scan(cpp, differentiable):
    def handler(tr, obj, node, kwargs):
        args = bind(tr, node, kwargs, [("a", _REQUIRED)], cpp)
        t = tile_var(tr, args, "a", cpp)
        if not sc.is_scalar(t.type.dtype) or t.type.dtype is sc.bool_:
            raise tr.scope.error(f"wp.{cpp}(): needs a tile of numbers, got {type_name(t.type)}"
                                 f"{struct_note(t.type.dtype)}", kind=CodegenTypeError)
        return emit(tr, cpp, t.type, [t], differentiable=differentiable and sc.is_float(t.type.dtype))
    return handler


def tile_sort(tr, obj, node, kwargs):
    """Sorts ``keys`` ascending (stable) and moves ``values`` with them; both names are rebound."""
    args = bind(tr, node, kwargs, [("keys", _REQUIRED), ("values", _REQUIRED)], "tile_sort")
    keys, values = tile_var(tr, args, "keys", "tile_sort"), tile_var(tr, args, "values", "tile_sort")
    if keys.type.ndim != 1 or values.type.shape != keys.type.shape:
        raise tr.scope.error(f"wp.tile_sort(): keys and values must be 1-d tiles of one length, got "
                             f"{keys.type.shape} and {values.type.shape}")
    if not sc.is_scalar(keys.type.dtype):
        raise tr.scope.error(f"wp.tile_sort(): keys must be scalars, got {type_name(keys.type.dtype)}")
    outs = [tr.scope.new_var(keys.type), tr.scope.new_var(values.type)]
    ov = Overload(name="tile_sort", input_types={"keys": keys.type, "values": values.type},
                  value_func=None, cpp="tile_sort", differentiable=False)
    tr.scope.emit(ir.Call(out=outs, func=ov, args=[keys, values]))
    rebind(tr, args["keys"], outs[0], "tile_sort", "keys")
    rebind(tr, args["values"], outs[1], "tile_sort", "values")


HANDLERS = {
    "tile_matmul": tile_matmul,
    "tile_cholesky": tile_cholesky,
    "tile_cholesky_inplace": tile_cholesky,
    "tile_cholesky_solve": _solver("tile_cholesky_solve"),
    "tile_cholesky_solve_inplace": _solver("tile_cholesky_solve"),
    "tile_lower_solve": _solver("tile_lower_solve"),
    "tile_lower_solve_inplace": _solver("tile_lower_solve"),
    "tile_upper_solve": _solver("tile_upper_solve"),
    "tile_upper_solve_inplace": _solver("tile_upper_solve"),
    "tile_diag_add": tile_diag_add,
    "tile_scan_inclusive": _scan("tile_scan_inclusive", True),
    "tile_scan_exclusive": _scan("tile_scan_exclusive", True),
    "tile_scan_max_inclusive": _scan("tile_scan_max_inclusive", False),
    "tile_scan_min_inclusive": _scan("tile_scan_min_inclusive", False),
    "tile_sort": tile_sort,
}
INTRINSICS.update(HANDLERS)
