"""``fem.Nanogrid``: the active voxels of a ``wp.Volume`` as hexahedral cells.

Cell ``c`` is the voxel at row ``c`` of ``volume.get_voxels()`` (its index for
``wp.volume_lookup_index``); voxel ``ijk`` spans index space ``[ijk - 0.5, ijk + 0.5]`` and its
element coordinates run from 0 to 1 along the three index axes. Vertices, edges and faces are
the voxels of index volumes built from them, numbered as those volumes number their voxels,
as warp-lang numbers them:

- vertex ``ijk`` is the corner ``ijk - 0.5`` of voxel ``ijk``: the volume of the 8 corners of
  every cell;
- a face normal to ``axis`` is stored at the ijk of the cell on its + side, an edge along
  ``axis`` at the ijk of its lower end, both with bit 20 of the ``axis`` coordinate flipped
  (set for coordinates >= 0, cleared for negative ones) so faces/edges of different axes are
  different voxels of one volume.

A side's inner cell is the cell on its - side where there is one (the + cell otherwise), its
outer cell the + cell where there is one. Its (u, v) coordinates run along index axes
``axis + 1 + f`` and ``axis + 2 - f`` (mod 3), ``f`` = 1 where the side has no - cell: so a
side's normal ``u x v`` points out of its inner cell."""

from typing import Any

import numpy as np

from .. import _api as wp

from .geometry import Geometry
from .grid_lookup import voxel_lookup_funcs

AXIS_FLAG = 1 << 20
_AXIS_FLAG = wp.constant(AXIS_FLAG)


@wp.struct
class NanogridCellArg:
    cell_grid: wp.uint64
    cell_ijk: wp.array(dtype=wp.vec3i)
    inverse_transform: wp.mat33
    transform: wp.mat33
    cell_volume: float
    # the index volumes of the topology (vertex, edge, face); 0 where not built
    vertex_grid: wp.uint64
    edge_grid: wp.uint64
    face_grid: wp.uint64
    vertex_count: int
    edge_count: int
    face_count: int


@wp.struct
class NanogridSideArg:
    cell: NanogridCellArg
    face_ijk: wp.array(dtype=wp.vec3i)
    # axis | (no - cell) << 2 | (no + cell) << 3
    face_flags: wp.array(dtype=int)
    face_areas: wp.vec3


@wp.func
def add_axis_flag(ijk: wp.vec3i, axis: int):
    c = ijk[axis]
    ijk[axis] = wp.where(c < 0, c & (~_AXIS_FLAG), c | _AXIS_FLAG)
    return ijk


@wp.func
def _face_axis(flags: int):
    return flags & 3


@wp.func
def _face_flip(flags: int):
    return (flags >> 2) & 1


@wp.func
def _face_no_plus(flags: int):
    return (flags >> 3) & 1


@wp.func
def _side_to_cell_coords(axis: int, flip: int, along: float, side_coords: wp.vec3):
    c = wp.vec3(0.0)
    c[axis] = along
    c[(axis + 1 + flip) % 3] = side_coords[0]
    c[(axis + 2 - flip) % 3] = side_coords[1]
    return c


@wp.func
def _cell_to_side_coords(axis: int, flip: int, c: wp.vec3):
    return wp.vec3(c[(axis + 1 + flip) % 3], c[(axis + 2 - flip) % 3], 0.0)


@wp.func
def _ijk_f(ijk: wp.vec3i):
    return wp.vec3(float(ijk[0]), float(ijk[1]), float(ijk[2]))


@wp.func
def nanogrid_cell_position(arg: NanogridCellArg, s: Any):
    uvw = _ijk_f(arg.cell_ijk[s.element_index]) + s.element_coords - wp.vec3(0.5)
    return wp.volume_index_to_world(arg.cell_grid, uvw)


@wp.func
def nanogrid_cell_deformation_gradient(arg: NanogridCellArg, s: Any):
    return arg.transform


@wp.func
def nanogrid_cell_inverse_deformation_gradient(arg: NanogridCellArg, s: Any):
    return arg.inverse_transform


@wp.func
def nanogrid_cell_measure(arg: NanogridCellArg, s: Any):
    return arg.cell_volume


@wp.func
def nanogrid_cell_normal(arg: NanogridCellArg, s: Any):
    return wp.vec3(0.0)


@wp.func
def _index_pos(arg: NanogridCellArg, pos: wp.vec3):
    # index-space position shifted so that voxel ijk spans [ijk, ijk + 1]
    return wp.volume_world_to_index(arg.cell_grid, pos) + wp.vec3(0.5)


@wp.func
def nanogrid_cell_coordinates(arg: NanogridCellArg, cell: int, pos: wp.vec3):
    return _index_pos(arg, pos) - _ijk_f(arg.cell_ijk[cell])


@wp.func
def _closest_local(arg: NanogridCellArg, cell: int, ijk: wp.vec3i, uvw: wp.vec3):
    rel = uvw - _ijk_f(arg.cell_ijk[cell])
    c = wp.vec3(wp.clamp(rel[0], 0.0, 1.0), wp.clamp(rel[1], 0.0, 1.0), wp.clamp(rel[2], 0.0, 1.0))
    return c, wp.length_sq(wp.volume_index_to_world_dir(arg.cell_grid, c - rel))


@wp.func
def nanogrid_cell_closest_point(arg: NanogridCellArg, cell: int, pos: wp.vec3):
    return _closest_local(arg, cell, arg.cell_ijk[cell], _index_pos(arg, pos))


@wp.func
def _find_voxel(arg: NanogridCellArg, ijk: wp.vec3i):
    return wp.volume_lookup_index(arg.cell_grid, ijk[0], ijk[1], ijk[2])


nanogrid_cell_lookup = voxel_lookup_funcs(NanogridCellArg, _index_pos, _find_voxel, _closest_local,
                                          nanogrid_cell_position)


@wp.func
def _face_tangents(arg: NanogridSideArg, side: int):
    flags = arg.face_flags[side]
    axis = _face_axis(flags)
    flip = _face_flip(flags)
    u = wp.vec3(0.0)
    v = wp.vec3(0.0)
    u[(axis + 1 + flip) % 3] = 1.0
    v[(axis + 2 - flip) % 3] = 1.0
    return wp.volume_index_to_world_dir(arg.cell.cell_grid, u), wp.volume_index_to_world_dir(arg.cell.cell_grid, v)


@wp.func
def nanogrid_side_position(arg: NanogridSideArg, s: Any):
    flags = arg.face_flags[s.element_index]
    uvw = _ijk_f(arg.face_ijk[s.element_index]) + _side_to_cell_coords(
        _face_axis(flags), _face_flip(flags), 0.0, s.element_coords)
    return wp.volume_index_to_world(arg.cell.cell_grid, uvw - wp.vec3(0.5))


@wp.func
def nanogrid_side_deformation_gradient(arg: NanogridSideArg, s: Any):
    u, v = _face_tangents(arg, s.element_index)
    return wp.matrix_from_cols(u, v)


@wp.func
def nanogrid_side_measure(arg: NanogridSideArg, s: Any):
    return arg.face_areas[_face_axis(arg.face_flags[s.element_index])]


@wp.func
def nanogrid_side_normal(arg: NanogridSideArg, s: Any):
    u, v = _face_tangents(arg, s.element_index)
    return wp.cross(u, v) / arg.face_areas[_face_axis(arg.face_flags[s.element_index])]


@wp.func
def nanogrid_side_inner_cell_index(arg: NanogridSideArg, side: int):
    ijk = arg.face_ijk[side]
    flags = arg.face_flags[side]
    axis = _face_axis(flags)
    ijk[axis] = ijk[axis] + _face_flip(flags) - 1
    return wp.volume_lookup_index(arg.cell.cell_grid, ijk[0], ijk[1], ijk[2])


@wp.func
def nanogrid_side_outer_cell_index(arg: NanogridSideArg, side: int):
    ijk = arg.face_ijk[side]
    flags = arg.face_flags[side]
    axis = _face_axis(flags)
    ijk[axis] = ijk[axis] - _face_no_plus(flags)
    return wp.volume_lookup_index(arg.cell.cell_grid, ijk[0], ijk[1], ijk[2])


@wp.func
def nanogrid_side_inner_cell_coords(arg: NanogridSideArg, side: int, side_coords: wp.vec3):
    flags = arg.face_flags[side]
    flip = _face_flip(flags)
    return _side_to_cell_coords(_face_axis(flags), flip, 1.0 - float(flip), side_coords)


@wp.func
def nanogrid_side_outer_cell_coords(arg: NanogridSideArg, side: int, side_coords: wp.vec3):
    flags = arg.face_flags[side]
    return _side_to_cell_coords(_face_axis(flags), _face_flip(flags), float(_face_no_plus(flags)), side_coords)


def _index_volume(points, voxel_size, device):
    """An index volume whose active voxels are ``points`` (int (n, 3)), and its voxels' ijk in
    index order."""
    pts = wp.array(np.ascontiguousarray(points, dtype=np.int32), dtype=wp.vec3i, device=device)
    vol = wp.Volume.allocate_by_voxels(pts, voxel_size=voxel_size, device=device)
    return vol, np.asarray(vol.get_voxels().numpy()).reshape(-1, 3).astype(np.int64)


def flag_axis(ijk, axis):
    """``ijk`` (int (n, 3)) with bit 20 of column ``axis`` flipped as the face/edge volumes
    store it (set for coordinates >= 0, cleared for negative ones)."""
    out = np.array(ijk, dtype=np.int64)
    c = out[:, axis]
    out[:, axis] = np.where(c < 0, c & ~AXIS_FLAG, c | AXIS_FLAG)
    return out


def unflag(ijk):
    """(axis, ijk without the flag) of flagged rows."""
    ijk = np.asarray(ijk, dtype=np.int64)
    flagged = np.where(ijk < 0, (ijk & AXIS_FLAG) == 0, (ijk & AXIS_FLAG) != 0)
    axis = np.argmax(flagged, axis=1)
    out = ijk.copy()
    rows = np.arange(len(ijk))
    c = out[rows, axis]
    out[rows, axis] = np.where(c < 0, c | AXIS_FLAG, c & ~AXIS_FLAG)
    return axis, out


def _lookup_table(ijk):
    """A host map voxel -> row of ``ijk``."""
    return {tuple(r): i for i, r in enumerate(np.asarray(ijk).tolist())}


class Nanogrid(Geometry):
    """The active voxels of ``grid`` (a ``wp.Volume``; an index volume from
    ``allocate_by_voxels`` is the usual one) as cells."""

    dimension = 3
    cell_dimension = 3
    reference_cell_shape = "cube"
    reference_side_shape = "square"
    CellArg = NanogridCellArg
    SideArg = NanogridSideArg

    @classmethod
    def _wants_float64(cls, args, kwargs):
        # float32 only so far: the float32 class is made, and its __init__ refuses float64
        return False

    def __init__(self, grid, temporary_store=None, scalar_type=wp.float32, cell_env=None, env_offsets=None,
                 rebuildable=False):
        if scalar_type != wp.float32:
            raise NotImplementedError("fem.Nanogrid: only float32 geometries are supported so far")
        if cell_env is not None or env_offsets is not None:
            raise NotImplementedError("fem.Nanogrid: multiple environments are not supported yet")
        if rebuildable and not grid.is_rebuildable:
            raise RuntimeError("Rebuildable Nanogrids require a rebuildable Volume")
        self.scalar_type = scalar_type
        self._rebuildable = rebuildable
        self._cell_grid = grid
        self._device = grid.device
        self._voxel_size = grid.get_voxel_size()
        self._build_topology()
        self._init_transform(grid)

    def _build_topology(self):
        """Cells, vertices (and the faces/edges already asked for) from the cell volume."""
        grid = self._cell_grid
        cells = np.asarray(grid.get_voxels().numpy()).reshape(-1, 3).astype(np.int64)
        if len(cells) == 0:
            raise ValueError("Nanogrid requires at least one active cell")
        self._cells = cells
        self.cell_ijk = wp.array(cells.astype(np.int32), dtype=wp.vec3i, device=self._device)
        corners = np.array([[(n >> 2) & 1, (n >> 1) & 1, n & 1] for n in range(8)])
        self._node_grid, self._nodes = _index_volume((cells[:, None, :] + corners[None]).reshape(-1, 3),
                                                     self._voxel_size, self._device)
        had_faces, had_edges = getattr(self, "_face_grid", None), getattr(self, "_edge_grid", None)
        self._face_grid = self._edge_grid = None
        self.__dict__.pop("_side_cells_host", None)      # fem.partition's cache of side cells
        if had_faces is not None:      # spaces of degree > 1 number nodes through these volumes
            self._ensure_faces()
        if had_edges is not None:
            self._ensure_edges()

    def rebuild(self, points, point_envs=None, *, status=None, point_mask=None):
        """Rebuild the cell volume from ``points`` (``wp.Volume.rebuild``) and this grid's
        topology from its voxels. Cell, vertex and side counts follow the new voxels (warp-lang
        keeps capacity-sized counts); spaces on the grid read its numbering afresh. Returns
        ``status``."""
        if not self._rebuildable:
            raise RuntimeError("Nanogrid was not constructed in rebuildable mode")
        if point_envs is not None:
            raise NotImplementedError("fem.Nanogrid: multiple environments are not supported yet")
        status = self._cell_grid.rebuild(points, status=status, point_mask=point_mask)
        self.rebuild_topology_from_cells()
        return status

    def rebuild_topology_from_cells(self):
        """Refresh the topology after the cell volume was rebuilt."""
        if not self._rebuildable:
            raise RuntimeError("Nanogrid was not constructed in rebuildable mode")
        self._build_topology()

    def _init_transform(self, grid):
        t = np.array(grid.get_grid_info().transform_matrix, dtype=np.float64).reshape(3, 3)
        self._transform = t
        self._inverse = np.linalg.inv(t)
        self._cell_volume = float(abs(np.linalg.det(t)))
        self._face_areas = [float(np.linalg.norm(np.cross(t[:, (a + 1) % 3], t[:, (a + 2) % 3]))) for a in range(3)]

    @property
    def name(self):
        return f"Nanogrid_{id(self)}"

    @property
    def cell_grid(self):
        return self._cell_grid

    @property
    def vertex_grid(self):
        return self._node_grid

    @property
    def face_grid(self):
        self._ensure_faces()
        return self._face_grid

    @property
    def edge_grid(self):
        self._ensure_edges()
        return self._edge_grid

    @property
    def transform(self):
        """The index-to-world matrix of the cell grid."""
        return self._cell_grid.get_grid_info().transform_matrix

    def cell_count(self):
        return len(self._cells)

    def vertex_count(self):
        return len(self._nodes)

    def side_count(self):
        self._ensure_faces()
        return len(self._face_ijk)

    def edge_count(self):
        self._ensure_edges()
        return len(self._edges)

    def topology_face_count(self):
        """The faces space topologies number face nodes by (the sides, on a Nanogrid)."""
        return self.side_count()

    def cell_levels(self):
        """Each cell's level (all 0 on a Nanogrid)."""
        return np.zeros(len(self._cells), dtype=np.int64)

    def boundary_side_indices(self):
        self._ensure_faces()
        return self._boundary_sides

    def vertex_positions(self):
        """The world positions of the vertices (corner ``ijk - 0.5`` of voxel ``ijk``)."""
        uvw = self._nodes.astype(np.float64) - 0.5
        tr = np.array(self._cell_grid.get_grid_info().translation, dtype=np.float64)
        return uvw @ self._transform.T + tr

    def _ensure_faces(self):
        if self._face_grid is not None:
            return
        cells = self._cells
        faces = [flag_axis(cells + np.eye(3, dtype=np.int64)[a] * d, a) for d in (0, 1) for a in range(3)]
        self._face_grid, flagged = _index_volume(np.concatenate(faces), self._voxel_size, self._device)
        axis, ijk = unflag(flagged)
        table = _lookup_table(cells)
        minus = ijk - np.eye(3, dtype=np.int64)[axis]
        has_plus = np.array([tuple(r) in table for r in ijk.tolist()])
        has_minus = np.array([tuple(r) in table for r in minus.tolist()])
        flags = axis | (~has_minus).astype(np.int64) << 2 | (~has_plus).astype(np.int64) << 3
        self._face_ijk = ijk
        self._face_ijk_arr = wp.array(ijk.astype(np.int32), dtype=wp.vec3i, device=self._device)
        self._face_flags = wp.array(flags.astype(np.int32), dtype=int, device=self._device)
        self._boundary_sides = np.flatnonzero(~(has_plus & has_minus)).astype(np.int32)

    def _ensure_edges(self):
        if self._edge_grid is not None:
            return
        cells, edges = self._cells, []
        for a in range(3):
            for b in (0, 1):
                for c in (0, 1):
                    off = np.zeros(3, dtype=np.int64)
                    off[(a + 1) % 3], off[(a + 2) % 3] = b, c
                    edges.append(flag_axis(cells + off, a))
        self._edge_grid, self._edges = _index_volume(np.concatenate(edges), self._voxel_size, self._device)

    def cell_arg_value(self, device=None):
        return self._fill_cell_arg(NanogridCellArg())

    def _fill_cell_arg(self, a):
        """The cell arg fields every voxel geometry has (AdaptiveNanogrid adds its levels)."""
        a.cell_grid = self._cell_grid.id
        a.cell_ijk = self.cell_ijk
        a.transform = wp.mat33(*self._transform.reshape(-1).tolist())
        a.inverse_transform = wp.mat33(*self._inverse.reshape(-1).tolist())
        a.cell_volume = self._cell_volume
        a.vertex_grid = self._node_grid.id
        a.vertex_count = self.vertex_count()
        a.edge_grid = 0 if self._edge_grid is None else self._edge_grid.id
        a.edge_count = 0 if self._edge_grid is None else len(self._edges)
        a.face_grid, a.face_count = self._face_grid_and_count()
        return a

    def _face_grid_and_count(self):
        if self._face_grid is None:
            return 0, 0
        return self._face_grid.id, len(self._face_ijk)

    def side_arg_value(self, device=None):
        return self._fill_side_arg(NanogridSideArg(), device)

    def _fill_side_arg(self, a, device):
        self._ensure_faces()
        a.cell = self.cell_arg_value(device)
        a.face_ijk = self._face_ijk_arr
        a.face_flags = self._face_flags
        a.face_areas = wp.vec3(*self._face_areas)
        return a

    def supports_cell_lookup(self, device=None):
        return True

    @property
    def cell_coordinates(self):
        return nanogrid_cell_coordinates

    @property
    def cell_closest_point(self):
        return nanogrid_cell_closest_point

    cell_lookup = nanogrid_cell_lookup
    cell_position = nanogrid_cell_position
    cell_deformation_gradient = nanogrid_cell_deformation_gradient
    cell_inverse_deformation_gradient = nanogrid_cell_inverse_deformation_gradient
    cell_measure = nanogrid_cell_measure
    cell_normal = nanogrid_cell_normal
    side_position = nanogrid_side_position
    side_normal = nanogrid_side_normal
    side_measure = nanogrid_side_measure
    side_deformation_gradient = nanogrid_side_deformation_gradient
    side_inner_cell_index = nanogrid_side_inner_cell_index
    side_outer_cell_index = nanogrid_side_outer_cell_index
    side_inner_cell_coords = nanogrid_side_inner_cell_coords
    side_outer_cell_coords = nanogrid_side_outer_cell_coords
