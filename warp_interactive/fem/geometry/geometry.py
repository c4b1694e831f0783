"""What every geometry offers the domains, spaces and fields built on it.

A geometry is a Python object holding its arrays plus the ``@wp.func``s that compute, for a
sample in one of its cells or sides, positions, deformation gradients, measures and normals,
and the cells on either side of a side. Its ``CellArg``/``SideArg`` structs carry what those
functions read; domains pass them to integrands."""


class Geometry:
    dimension = None
    cell_dimension = None

    def cell_count(self):
        raise NotImplementedError

    def side_count(self):
        raise NotImplementedError

    def boundary_side_count(self):
        return len(self.boundary_side_indices())

    def __str__(self):
        return self.name
