"""``fem.AdaptiveNanogrid``: a Nanogrid whose cells have levels (a cell of level ``l`` spans
``2^l`` voxels per axis of its ``cell_grid``, from its voxel ``ijk``, a multiple of ``2^l``).

Numbering as warp-lang's: cells in ``cell_grid.get_voxels()`` order; vertices by the index
volume of every cell's corners; sides by the index volume of every cell's faces (at the voxel
of the face's lowest corner, bit 20 of the normal axis flipped as in ``nanogrid``) plus, where
two cells of different levels meet, the faces of the finer level covering the coarse face: a
side is the face of the finer of its two cells. Space topologies (edge and face nodes) use
"stacked" volumes, whose voxels are the faces and edges of each level at that level's
coordinates, the level written in bit 19 of the coordinates (bit ``a`` of the level in axis
``a``)."""

from typing import Any

import numpy as np

from .. import _api as wp

from .grid_lookup import voxel_lookup_funcs
from .nanogrid import Nanogrid, _index_volume, flag_axis, unflag

LEVEL_BIT = 19


@wp.struct
class AdaptiveNanogridCellArg:
    cell_grid: wp.uint64
    cell_ijk: wp.array(dtype=wp.vec3i)
    cell_level: wp.array(dtype=int)
    level_count: int
    inverse_transform: wp.mat33
    transform: wp.mat33
    cell_volume: float
    # the index volumes of the topology (vertex, stacked edge, stacked face); 0 where not built
    vertex_grid: wp.uint64
    edge_grid: wp.uint64
    face_grid: wp.uint64
    vertex_count: int
    edge_count: int
    face_count: int


@wp.struct
class AdaptiveNanogridSideArg:
    cell: AdaptiveNanogridCellArg
    face_ijk: wp.array(dtype=wp.vec3i)
    face_cell_indices: wp.array(dtype=wp.vec2i)
    # axis | (no - cell) << 2 | (no + cell) << 3 | level << 4
    face_flags: wp.array(dtype=int)
    face_areas: wp.vec3


@wp.func
def find_cell(arg: AdaptiveNanogridCellArg, ijk: wp.vec3i):
    """The cell holding voxel ijk: the first level whose aligned voxel is a cell of that level
    or coarser."""
    for l in range(arg.level_count):
        mask = ~((1 << l) - 1)
        c = wp.volume_lookup_index(arg.cell_grid, ijk[0] & mask, ijk[1] & mask, ijk[2] & mask)
        if c != -1:
            if arg.cell_level[c] >= l:
                return c
    return -1


@wp.func
def _scale(arg: AdaptiveNanogridCellArg, cell: int):
    return float(1 << arg.cell_level[cell])


@wp.func
def _ijk_f(ijk: wp.vec3i):
    return wp.vec3(float(ijk[0]), float(ijk[1]), float(ijk[2]))


@wp.func
def adaptive_cell_position(arg: AdaptiveNanogridCellArg, s: Any):
    e = s.element_index
    uvw = _ijk_f(arg.cell_ijk[e]) + s.element_coords * _scale(arg, e) - wp.vec3(0.5)
    return wp.volume_index_to_world(arg.cell_grid, uvw)


@wp.func
def adaptive_cell_deformation_gradient(arg: AdaptiveNanogridCellArg, s: Any):
    return arg.transform * _scale(arg, s.element_index)


@wp.func
def adaptive_cell_inverse_deformation_gradient(arg: AdaptiveNanogridCellArg, s: Any):
    return arg.inverse_transform / _scale(arg, s.element_index)


@wp.func
def adaptive_cell_measure(arg: AdaptiveNanogridCellArg, s: Any):
    h = _scale(arg, s.element_index)
    return arg.cell_volume * h * h * h


@wp.func
def adaptive_cell_normal(arg: AdaptiveNanogridCellArg, s: Any):
    return wp.vec3(0.0)


@wp.func
def _index_pos(arg: AdaptiveNanogridCellArg, pos: wp.vec3):
    return wp.volume_world_to_index(arg.cell_grid, pos) + wp.vec3(0.5)


@wp.func
def adaptive_cell_coordinates(arg: AdaptiveNanogridCellArg, cell: int, pos: wp.vec3):
    return (_index_pos(arg, pos) - _ijk_f(arg.cell_ijk[cell])) / _scale(arg, cell)


@wp.func
def _closest_local(arg: AdaptiveNanogridCellArg, cell: int, ijk: wp.vec3i, uvw: wp.vec3):
    h = _scale(arg, cell)
    rel = uvw - _ijk_f(arg.cell_ijk[cell])
    r = rel / h
    c = wp.vec3(wp.clamp(r[0], 0.0, 1.0), wp.clamp(r[1], 0.0, 1.0), wp.clamp(r[2], 0.0, 1.0))
    return c, wp.length_sq(wp.volume_index_to_world_dir(arg.cell_grid, c * h - rel))


@wp.func
def adaptive_cell_closest_point(arg: AdaptiveNanogridCellArg, cell: int, pos: wp.vec3):
    return _closest_local(arg, cell, arg.cell_ijk[cell], _index_pos(arg, pos))


adaptive_cell_lookup = voxel_lookup_funcs(AdaptiveNanogridCellArg, _index_pos, find_cell, _closest_local,
                                          adaptive_cell_position)


@wp.func
def _side_to_cell_coords(axis: int, flip: int, along: float, side_coords: wp.vec3):
    c = wp.vec3(0.0)
    c[axis] = along
    c[(axis + 1 + flip) % 3] = side_coords[0]
    c[(axis + 2 - flip) % 3] = side_coords[1]
    return c


@wp.func
def _face_scale(flags: int):
    return float(1 << (flags >> 4))


@wp.func
def _tangents(arg: AdaptiveNanogridSideArg, side: int):
    flags = arg.face_flags[side]
    axis = flags & 3
    flip = (flags >> 2) & 1
    u = wp.vec3(0.0)
    v = wp.vec3(0.0)
    u[(axis + 1 + flip) % 3] = 1.0
    v[(axis + 2 - flip) % 3] = 1.0
    return wp.volume_index_to_world_dir(arg.cell.cell_grid, u), wp.volume_index_to_world_dir(arg.cell.cell_grid, v)


@wp.func
def adaptive_side_position(arg: AdaptiveNanogridSideArg, s: Any):
    flags = arg.face_flags[s.element_index]
    uvw = _ijk_f(arg.face_ijk[s.element_index]) + _face_scale(flags) * _side_to_cell_coords(
        flags & 3, (flags >> 2) & 1, 0.0, s.element_coords)
    return wp.volume_index_to_world(arg.cell.cell_grid, uvw - wp.vec3(0.5))


@wp.func
def adaptive_side_deformation_gradient(arg: AdaptiveNanogridSideArg, s: Any):
    u, v = _tangents(arg, s.element_index)
    return wp.matrix_from_cols(u, v) * _face_scale(arg.face_flags[s.element_index])


@wp.func
def adaptive_side_measure(arg: AdaptiveNanogridSideArg, s: Any):
    flags = arg.face_flags[s.element_index]
    h = _face_scale(flags)
    return arg.face_areas[flags & 3] * h * h


@wp.func
def adaptive_side_normal(arg: AdaptiveNanogridSideArg, s: Any):
    u, v = _tangents(arg, s.element_index)
    return wp.cross(u, v) / arg.face_areas[arg.face_flags[s.element_index] & 3]


@wp.func
def adaptive_side_inner_cell_index(arg: AdaptiveNanogridSideArg, side: int):
    return arg.face_cell_indices[side][0]


@wp.func
def adaptive_side_outer_cell_index(arg: AdaptiveNanogridSideArg, side: int):
    return arg.face_cell_indices[side][1]


@wp.func
def _to_cell_coords(arg: AdaptiveNanogridSideArg, side: int, cell: int, offset: int, along: float,
                    side_coords: wp.vec3):
    # the side's point in the same-level cell beside it (shifted by -offset levels along the
    # axis), then in the actual, possibly coarser, cell
    flags = arg.face_flags[side]
    axis = flags & 3
    level = flags >> 4
    c = _side_to_cell_coords(axis, (flags >> 2) & 1, along, side_coords)
    ijk = arg.face_ijk[side]
    ijk[axis] = ijk[axis] - (offset << level)
    cell_ijk = arg.cell.cell_ijk[cell]
    return (_ijk_f(ijk - cell_ijk) + c * float(1 << level)) / float(1 << arg.cell.cell_level[cell])


@wp.func
def adaptive_side_inner_cell_coords(arg: AdaptiveNanogridSideArg, side: int, side_coords: wp.vec3):
    inner_off = (arg.face_flags[side] >> 2) & 1
    return _to_cell_coords(arg, side, arg.face_cell_indices[side][0], 1 - inner_off, 1.0 - float(inner_off),
                           side_coords)


@wp.func
def adaptive_side_outer_cell_coords(arg: AdaptiveNanogridSideArg, side: int, side_coords: wp.vec3):
    outer_off = (arg.face_flags[side] >> 3) & 1
    return _to_cell_coords(arg, side, arg.face_cell_indices[side][1], outer_off, float(outer_off), side_coords)


def encode_axis_and_level(ijk, axis, level):
    """Stacked-volume coordinates (see the module doc) of (n, 3) ``ijk`` with per-row ``level``."""
    out = np.array(ijk, dtype=np.int64)
    level = np.broadcast_to(np.asarray(level, dtype=np.int64), (len(out),))
    for ax in range(3):
        flag = ((level >> ax) & 1) << LEVEL_BIT
        c = out[:, ax]
        out[:, ax] = np.where(c < 0, c & ~flag, c | flag)
    return flag_axis(out, axis)


class CellFinder:
    """Host ``find_cell``: voxel ijk -> the cell holding it (-1 where none)."""

    def __init__(self, cells, levels, level_count):
        self.keys = self._key(cells)
        self.order = np.argsort(self.keys)
        self.sorted = self.keys[self.order]
        self.levels, self.level_count = levels, level_count

    @staticmethod
    def _key(ijk):
        u = np.asarray(ijk, dtype=np.int64) + (1 << 20)
        return (u[:, 0] << 42) | (u[:, 1] << 21) | u[:, 2]

    def exact(self, ijk):
        k = self._key(ijk)
        pos = np.clip(np.searchsorted(self.sorted, k), 0, len(self.sorted) - 1)
        return np.where(self.sorted[pos] == k, self.order[pos], -1)

    def __call__(self, ijk):
        ijk = np.asarray(ijk, dtype=np.int64)
        out = np.full(len(ijk), -1, dtype=np.int64)
        for l in range(self.level_count):
            todo = out == -1
            c = self.exact(ijk[todo] & ~((1 << l) - 1))
            ok = c != -1
            ok[ok] = self.levels[c[ok]] >= l
            idx = np.flatnonzero(todo)[ok]
            out[idx] = c[ok]
        return out


class AdaptiveNanogrid(Nanogrid):
    """Cells of several levels: ``cell_grid``'s voxels with their ``cell_level`` (0 finest,
    ``level_count - 1`` coarsest). Build one with ``adaptive_nanogrid_from_hierarchy`` or
    ``adaptive_nanogrid_from_field``."""

    CellArg = AdaptiveNanogridCellArg
    SideArg = AdaptiveNanogridSideArg

    def __init__(self, cell_grid, cell_level, level_count, temporary_store=None, scalar_type=wp.float32,
                 cell_env=None, env_offsets=None):
        if level_count > 8:
            raise ValueError("Too many refinement levels, max 8 supported")
        if scalar_type != wp.float32:
            raise NotImplementedError("fem.AdaptiveNanogrid: only float32 geometries are supported so far")
        if cell_env is not None or env_offsets is not None:
            raise NotImplementedError("fem.AdaptiveNanogrid: multiple environments are not supported yet")
        self.level_count = int(level_count)
        self.scalar_type = scalar_type
        self._cell_grid = cell_grid
        self._device = cell_grid.device
        self._voxel_size = cell_grid.get_voxel_size()
        cells = np.asarray(cell_grid.get_voxels().numpy()).reshape(-1, 3).astype(np.int64)
        if len(cells) == 0:
            raise ValueError("Adaptive Nanogrid requires at least one active cell")
        levels = np.asarray(cell_level.numpy() if hasattr(cell_level, "numpy") else cell_level).astype(np.int64)
        if len(levels) != len(cells):
            raise ValueError(f"fem.AdaptiveNanogrid: {len(levels)} levels for {len(cells)} cells")
        self._cells, self._levels = cells, levels
        self.cell_ijk = wp.array(cells.astype(np.int32), dtype=wp.vec3i, device=self._device)
        self._cell_level = wp.array(levels.astype(np.int32), dtype=int, device=self._device)
        self._finder = CellFinder(cells, levels, self.level_count)
        corners = np.array([[(n >> 2) & 1, (n >> 1) & 1, n & 1] for n in range(8)])
        nodes = cells[:, None, :] + corners[None] * (1 << levels)[:, None, None]
        self._node_grid, self._nodes = _index_volume(nodes.reshape(-1, 3), self._voxel_size, self._device)
        self._face_grid = self._edge_grid = self._stacked_face_grid = None
        self._init_transform(cell_grid)

    @property
    def name(self):
        return f"AdaptiveNanogrid_{id(self)}"

    @property
    def cell_level(self):
        return self._cell_level

    def _ensure_faces(self):
        if self._face_grid is not None:
            return
        cells, levels, eye = self._cells, self._levels, np.eye(3, dtype=np.int64)
        own = np.concatenate([flag_axis(cells + eye[a] * d * (1 << levels)[:, None], a)
                              for d in (0, 1) for a in range(3)])
        own = np.unique(own, axis=0)
        axis, ijk = unflag(own)
        plus, minus = self._finder(ijk), self._finder(ijk - eye[axis])
        extra = [own]
        both = np.flatnonzero((plus != -1) & (minus != -1))
        lp, lm = levels[plus[both]], levels[minus[both]]
        for i, fine, base in zip(both[lp != lm], np.minimum(lp, lm)[lp != lm], np.maximum(lp, lm)[lp != lm]):
            d = base - fine
            a = axis[i]
            b = ijk[i] & ~((1 << base) - 1)
            f = np.arange(1 << (2 * d))
            sub = np.repeat(b[None], len(f), axis=0)
            sub[:, (a + 1) % 3] += (f & ((1 << d) - 1)) << fine
            sub[:, (a + 2) % 3] += (f >> d) << fine
            extra.append(flag_axis(sub, a))
        self._face_grid, flagged = _index_volume(np.concatenate(extra), self._voxel_size, self._device)
        axis, ijk = unflag(flagged)
        plus, minus = self._finder(ijk), self._finder(ijk - eye[axis])
        inner = np.where(minus == -1, plus, minus)
        outer = np.where(plus == -1, minus, plus)
        level = np.minimum(levels[inner], levels[outer])
        flags = axis | (minus == -1).astype(np.int64) << 2 | (plus == -1).astype(np.int64) << 3 | level << 4
        self._face_ijk = ijk
        self._face_ijk_arr = wp.array(ijk.astype(np.int32), dtype=wp.vec3i, device=self._device)
        self._face_flags = wp.array(flags.astype(np.int32), dtype=int, device=self._device)
        self._face_cells = wp.array(np.stack([inner, outer], 1).astype(np.int32), dtype=wp.vec2i,
                                    device=self._device)
        self._boundary_sides = np.flatnonzero((plus == -1) | (minus == -1)).astype(np.int32)

    def _ensure_stacked_faces(self):
        if self._stacked_face_grid is not None:
            return
        coarse = self._cells >> self._levels[:, None]
        eye = np.eye(3, dtype=np.int64)
        faces = [encode_axis_and_level(coarse + eye[a] * d, a, self._levels) for d in (0, 1) for a in range(3)]
        self._stacked_face_grid, self._stacked_faces = _index_volume(np.concatenate(faces), self._voxel_size,
                                                                     self._device)

    def _ensure_edges(self):
        if self._edge_grid is not None:
            return
        coarse, edges = self._cells >> self._levels[:, None], []
        for a in range(3):
            for b in (0, 1):
                for c in (0, 1):
                    off = np.zeros(3, dtype=np.int64)
                    off[(a + 1) % 3], off[(a + 2) % 3] = b, c
                    edges.append(encode_axis_and_level(coarse + off, a, self._levels))
        self._edge_grid, self._edges = _index_volume(np.concatenate(edges), self._voxel_size, self._device)

    def stacked_face_count(self):
        self._ensure_stacked_faces()
        return len(self._stacked_faces)

    def stacked_edge_count(self):
        return self.edge_count()

    def topology_face_count(self):
        return self.stacked_face_count()

    def cell_levels(self):
        return self._levels

    def cell_arg_value(self, device=None):
        a = self._fill_cell_arg(AdaptiveNanogridCellArg())
        a.cell_level = self._cell_level
        a.level_count = self.level_count
        return a

    def _face_grid_and_count(self):
        if self._stacked_face_grid is None:
            return 0, 0
        return self._stacked_face_grid.id, len(self._stacked_faces)

    def side_arg_value(self, device=None):
        a = self._fill_side_arg(AdaptiveNanogridSideArg(), device)
        a.face_cell_indices = self._face_cells
        return a

    @property
    def cell_coordinates(self):
        return adaptive_cell_coordinates

    @property
    def cell_closest_point(self):
        return adaptive_cell_closest_point

    cell_lookup = adaptive_cell_lookup
    cell_position = adaptive_cell_position
    cell_deformation_gradient = adaptive_cell_deformation_gradient
    cell_inverse_deformation_gradient = adaptive_cell_inverse_deformation_gradient
    cell_measure = adaptive_cell_measure
    cell_normal = adaptive_cell_normal
    side_position = adaptive_side_position
    side_normal = adaptive_side_normal
    side_measure = adaptive_side_measure
    side_deformation_gradient = adaptive_side_deformation_gradient
    side_inner_cell_index = adaptive_side_inner_cell_index
    side_outer_cell_index = adaptive_side_outer_cell_index
    side_inner_cell_coords = adaptive_side_inner_cell_coords
    side_outer_cell_coords = adaptive_side_outer_cell_coords
