"""``fem.make_restriction``: a discrete field restricted to the nodes of a domain's elements.
Interpolating into a restriction sets the values of those nodes only; the field's other node
values stay as they are."""

from ..precision import FollowsPrecision, follow_precision


class FieldRestriction(FollowsPrecision):
    """``field`` seen on ``domain``: as the ``dest`` of ``fem.interpolate``, the nodes of the
    domain's elements receive the integrand's values."""

    def __init__(self, field, domain):
        if field.geometry is not domain.geometry:
            raise ValueError("Incompatible field and domain geometries")
        self.field = field
        self.domain = domain
        self.space = field.space

    @property
    def dof_values(self):
        return self.field.dof_values

    def __repr__(self):
        return f"FieldRestriction({self.field.name} on {self.domain.name})"


@follow_precision
def make_restriction(field, space_restriction=None, domain=None, device=None):
    """The discrete ``field`` restricted to the elements of ``domain`` (its geometry's cells
    when left out)."""
    if space_restriction is not None:
        raise NotImplementedError("fem.make_restriction: space restrictions are not supported yet; give a domain")
    if domain is None:
        from ..domain import Cells
        domain = Cells(field.geometry)
    return FieldRestriction(field, domain)
