"""The tile builtins (warp-lang's tile model) and how tiles are passed to functions."""
# every tile module, so that importing the package fills INTRINSICS and tile_ops
# (lang/builtins/function.py); index after ops (its tile_view handler replaces ops')
from . import core, refs, ops, linalg, arith, index, arange, more  # noqa: F401,E402
