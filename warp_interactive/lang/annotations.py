"""What a parameter annotation means: its canonical type, whether it is concrete, its key.
(Apart from func.py so that the build checks, lang/checks.py, use them without importing it.)"""

from ..types import composite as comp
from ..types import scalars as sc
from ..types.array import array


def canonical_type(t):
    """Normalise an annotation: Python scalars -> wp scalars, ``array`` annotations as is."""
    t = sc.canonical_scalar(t)
    if t is array:
        return array(dtype=sc.float32)
    return t


def type_key(t):
    if isinstance(t, array):
        return ("array", type_key(t.dtype), t.ndim)
    if hasattr(t, "_wp_struct_"):
        return ("struct", t._wp_struct_.cpp_name)
    return getattr(t, "_cpp", None) or getattr(t, "__name__", repr(t))


def is_concrete(t):
    if isinstance(t, array):     # wp.array(dtype=Any) is generic (lang/generics.py)
        return is_concrete(t.dtype)
    return sc.is_scalar(t) or comp.is_composite(t) or hasattr(t, "_wp_struct_")
