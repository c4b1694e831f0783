"""``wp.geometry.IsoSurfaceBase``: the interface shared by the dense-grid isosurface extractors."""

from abc import ABC, abstractmethod

import warp_interactive as wp


def validate_field(field) -> None:
    """A field must be a 3D float32 array with at least one cell (two nodes) along each axis."""
    if getattr(field, "ndim", None) != 3:
        raise ValueError(f"The field must be a 3D array, got {getattr(field, 'ndim', type(field))} dimensions.")
    if field.dtype != wp.float32:
        raise TypeError(f"The field must hold wp.float32 values, got {getattr(field.dtype, '__name__', field.dtype)}.")
    if min(field.shape) < 2:
        raise ValueError(f"The field must have at least 2 nodes on each axis to span a cell, got shape {field.shape}.")


def grid_frame(shape, lower, upper):
    """(lower, delta): the position of node (0, 0, 0) and the spacing along each axis. Without
    bounds the nodes sit at integer coordinates (node (i, j, k) at (i, j, k))."""
    # wp.vec3(bound), as warp-lang: a sequence of three, or one number for all three axes
    lower = wp.vec3(0.0, 0.0, 0.0) if lower is None else wp.vec3(lower)
    if upper is None:
        upper = wp.vec3(*(float(n - 1) for n in shape))
    upper = wp.vec3(upper)
    delta = wp.vec3(*((upper[d] - lower[d]) / (shape[d] - 1) for d in range(3)))
    return lower, delta


class IsoSurfaceBase(ABC):
    """A dense-grid isosurface extractor over ``nx * ny * nz`` nodes, the grid's node (0, 0, 0)
    at ``lower`` and node (nx-1, ny-1, nz-1) at ``upper`` (default: integer coordinates).
    ``surface(field, threshold)`` fills ``verts`` (wp.vec3) and ``indices`` (wp.int32, flat)."""

    def __init__(self, nx: int, ny: int, nz: int, lower=None, upper=None):
        self.nx, self.ny, self.nz = nx, ny, nz
        self.lower = lower
        self.upper = upper
        self.verts = None
        self.indices = None

    def resize(self, nx: int, ny: int, nz: int) -> None:
        """Change the grid's node counts (the next ``surface`` call expects that shape)."""
        self.nx, self.ny, self.nz = nx, ny, nz

    def _check_field_shape(self, field) -> None:
        if tuple(field.shape) != (self.nx, self.ny, self.nz):
            raise ValueError(
                f"Field shape {tuple(field.shape)} does not match context grid dimensions "
                f"{(self.nx, self.ny, self.nz)}.")

    @abstractmethod
    def surface(self, field, threshold: float) -> None:
        """Extract the ``threshold`` level set of ``field`` into ``verts`` and ``indices``."""

    @classmethod
    @abstractmethod
    def extract(cls, field, threshold: float = 0.0, *, lower=None, upper=None):
        """(verts, indices) of the ``threshold`` level set of ``field``, without an instance."""
