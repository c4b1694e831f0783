from .geometry import Geometry
from .grid2d import Grid2D
from .grid3d import Grid3D

__all__ = ["Geometry", "Grid2D", "Grid3D"]
