"""What every polynomial function space answers the same way, whatever its geometry."""


class FunctionSpace:
    """What every function space is (``fem.FunctionSpace``): node values of ``dtype`` on a
    geometry, evaluated through shape functions. The spaces of this package derive from it."""


class PolynomialSpaceBase(FunctionSpace):
    """Shared answers of the grid, mesh and DG spaces: the value size of their ``dtype`` and
    being their own topology (node numbering lives on the space itself)."""

    dof_mapper = None

    @property
    def value_size(self):
        """Components per node: the dofs of a node (a dof mapper's DOF_SIZE, or the value's)."""
        if self.dof_mapper is not None:
            return self.dof_mapper.DOF_SIZE
        return getattr(self.dtype, "_length_", 1)

    @property
    def dof_dtype(self):
        """The type of the node values (``field.dof_values``)."""
        return self.dtype if self.dof_mapper is None else self.dof_mapper.dof_dtype

    @property
    def topology(self):
        return self

    def rebuild(self):
        """Refresh the node numbering after the geometry's topology was rebuilt in place
        (``Nanogrid.rebuild``): node counts and indices are read from the geometry on every
        use, so there is nothing to recompute."""
        return None
