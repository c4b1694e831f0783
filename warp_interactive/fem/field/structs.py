"""Struct types made at run time (a field's arguments, an integrand's values), one per name and
field layout, so equal layouts share one type and its translated functions."""

from .. import _api as wp
from ..precision import Cache

from ...lang.annotations import type_key

_made = Cache()


def make_struct(name, fields):
    """The @wp.struct ``name`` with ``fields`` ({name: type}, in order); at least one field."""
    if not fields:
        fields = {"_unused": int}
    key = (name, tuple((k, repr(type_key(t))) for k, t in fields.items()))
    st = _made.get(key)
    if st is None:
        cls = type(name, (), {"__annotations__": dict(fields), "__module__": __name__})
        st = _made[key] = wp.struct(cls)
    return st
