"""What every polynomial function space answers the same way, whatever its geometry."""


class PolynomialSpaceBase:
    """Shared answers of the grid, mesh and DG spaces: the value size of their ``dtype`` and
    being their own topology (node numbering lives on the space itself)."""

    @property
    def value_size(self):
        return getattr(self.dtype, "_length_", 1)

    @property
    def topology(self):
        return self
