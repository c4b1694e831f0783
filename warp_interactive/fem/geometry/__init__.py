from .geometry import Element, Geometry
from .grid2d import Grid2D
from .grid3d import Grid3D
from .quadmesh2d import Quadmesh2D
from .tetmesh import Tetmesh
from .trimesh2d import Trimesh2D

__all__ = ["Element", "Geometry", "Grid2D", "Grid3D", "Quadmesh2D", "Tetmesh", "Trimesh2D"]
