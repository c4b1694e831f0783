from .adaptive_nanogrid import AdaptiveNanogrid
from .deformed import DeformedGeometry
from .geometry import Element, Geometry
from .grid2d import Grid2D
from .grid3d import Grid3D
from .hexmesh import Hexmesh
from .nanogrid import Nanogrid
from .quadmesh2d import Quadmesh2D
from .surface3d import Quadmesh3D, Trimesh3D
from .tetmesh import Tetmesh
from .trimesh2d import Trimesh2D

__all__ = ["AdaptiveNanogrid", "DeformedGeometry", "Element", "Geometry", "Grid2D", "Grid3D", "Hexmesh", "Nanogrid", "Quadmesh2D",
           "Quadmesh3D", "Tetmesh", "Trimesh2D",
           "Trimesh3D"]
