from .geometry import Geometry
from .grid2d import Grid2D
from .grid3d import Grid3D
from .trimesh2d import Trimesh2D

__all__ = ["Geometry", "Grid2D", "Grid3D", "Trimesh2D"]
