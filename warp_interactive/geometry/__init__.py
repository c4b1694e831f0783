"""Geometry structures for kernel queries (``wp.Mesh``, ``wp.Bvh``, ``wp.HashGrid``, ``wp.Volume``)
and ``warp.geometry``'s algorithms: isosurface extraction (dense and sparse marching cubes) and swept
volumes, loaded on first use."""

from .bvh import Bvh
from .groups import is_cubql_available
from .hash_grid import HashGrid
from .mesh import Mesh
from .volume import Volume

# warp.geometry's algorithms are written on the public namespace; their modules load on first use
# so that `import warp_interactive` does not build their kernels' definitions.
_LAZY = {
    "IsoSurfaceBase": "iso_surface",
    "IsoSurfaceMarchingCubes": "marching_cubes",
    "IsoSurfaceNets": "surface_nets",
    "lipschitz_octree": "sparse_mc",
    "sparse_marching_cubes": "sparse_mc",
    "sparse_marching_cubes_from_cells": "sparse_mc",
    "tri_tri_adjacency": "adjacency",
    "find_triangle_neighbor_edge_index": "adjacency",
    "delaunay_edge_flip": "adjacency",
    "SweptVolumeSignMode": "swept_volume",
    "swept_volume_sdf": "swept_volume",
    "swept_volume_field": "swept_volume",
    "swept_volume_bounds": "swept_volume",
    "swept_volume_mesh": "swept_volume",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'warp_interactive.geometry' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
