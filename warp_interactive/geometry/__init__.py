"""Geometry structures for kernel queries: ``wp.Mesh``, ``wp.Bvh``, ``wp.HashGrid``, ``wp.Volume``."""

from .bvh import Bvh
from .groups import is_cubql_available
from .hash_grid import HashGrid
from .mesh import Mesh
from .volume import Volume
