"""``spread(x, f)``: a ``@wp.func`` called with a position and the named members of a struct,
as implicit fields call their functions with their values."""

from ...lang.translation import dispatch


class Spread:
    """``spread(x, f)``: ``func(x, f.<value>...)`` with the implicit field's values."""

    __name__ = "implicit_field_function"

    def __init__(self, func, names):
        self.call = dispatch.Call(func, ((0,),) + tuple((1, n) for n in names))

    def _wp_resolve_call_(self, types):
        return self.call
