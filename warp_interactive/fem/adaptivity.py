"""Building ``AdaptiveNanogrid``s: ``adaptive_nanogrid_from_hierarchy`` (a list of volumes,
finest first) and ``adaptive_nanogrid_from_field`` (a coarse volume refined where a scalar
field asks), with warp-lang's optional grading (neighbouring cells at most one level apart).

The refinement field is sampled as warp-lang samples it (``samples_per_voxel`` random points
per cell from ``wp.rand_init`` seeded by the cell's level and coordinates), so both packages
refine the same cells; the bookkeeping between rounds is done on the host."""

import numpy as np

from . import _api as wp
from .domain import Cells
from .geometry.adaptive_nanogrid import AdaptiveNanogrid, CellFinder
from .integrand import integrand
from .operator import OPERATORS as _OPERATORS
from .types import NULL_ELEMENT_INDEX, Domain, Field, Sample

lookup = _OPERATORS["lookup"]
_CHILDREN = np.array([[(k >> 2) & 1, (k >> 1) & 1, k & 1] for k in range(8)], dtype=np.int64)


def _voxels(volume):
    return np.asarray(volume.get_voxels().numpy()).reshape(-1, 3).astype(np.int64)


def _volume_like(ijk, t, translation, device):
    """An index volume of ``ijk`` with the index-to-world map ``t`` (3x3), ``translation``."""
    if np.max(np.abs(t - np.diag(np.diag(t)))) > 1e-6 * np.max(np.abs(t)):
        raise NotImplementedError("fem adaptive grids: rotated volumes are not supported yet")
    pts = wp.array(np.ascontiguousarray(ijk, dtype=np.int32), dtype=wp.vec3i, device=device)
    return wp.Volume.allocate_by_voxels(pts, voxel_size=tuple(np.diag(t)), translation=tuple(translation),
                                        device=device)


def _grid_from(ijk, levels, t, translation, device):
    """(cell volume, levels in its voxel order) of cells ``ijk`` with ``levels``."""
    grid = _volume_like(ijk, t, translation, device)
    cells = _voxels(grid)
    finder = CellFinder(ijk, np.zeros(len(ijk), np.int64), 1)
    return grid, levels[finder.exact(cells)]


def adaptive_nanogrid_from_hierarchy(grids, grading=None, temporary_store=None):
    """An AdaptiveNanogrid from non-overlapping volumes, finest (level 0) first."""
    if not grids:
        raise ValueError("No grids to build from!")
    level_count = len(grids)
    per_level = [_voxels(g) << l for l, g in enumerate(grids)]
    ijk = np.unique(np.concatenate(per_level), axis=0)
    levels = np.full(len(ijk), -1, dtype=np.int64)
    for l in range(level_count):          # the finest level holding the voxel
        hit = (levels == -1) & (CellFinder(_voxels(grids[l]), np.zeros(1), 1).exact(ijk >> l) != -1)
        levels[hit] = l
    info, device = grids[0].get_grid_info(), grids[0].device
    ijk, levels = _grade(ijk, levels, level_count, grading)
    t = np.array(info.transform_matrix, dtype=np.float64).reshape(3, 3)
    grid, levels = _grid_from(ijk, levels, t, np.array(info.translation, dtype=np.float64), device)
    return AdaptiveNanogrid(grid, wp.array(levels.astype(np.uint8), dtype=wp.uint8, device=device), level_count)


def _grade(ijk, levels, level_count, grading):
    """Split cells until neighbours (sharing a face, or a vertex) differ by at most one level."""
    if not grading or grading == "none" or level_count <= 2:
        return ijk, levels
    if grading == "face":
        offsets = np.concatenate([np.eye(3, dtype=np.int64), -np.eye(3, dtype=np.int64)])
    else:
        offsets = np.stack(np.meshgrid(*[np.arange(-1, 2)] * 3, indexing="ij"), -1).reshape(-1, 3)
    for _ in range(level_count - 2):
        finder = CellFinder(ijk, levels, level_count)
        split = np.zeros(len(ijk), bool)
        for off in offsets:
            n = finder(ijk + off[None] * (1 << levels)[:, None])
            ok = n != -1
            coarse = levels[n[ok]] > levels[ok] + 1
            split[n[ok][coarse]] = True
        if not split.any():
            break
        kids = ijk[split][:, None, :] + _CHILDREN[None] * (1 << (levels[split] - 1))[:, None, None]
        ijk = np.concatenate([ijk[~split], kids.reshape(-1, 3)])
        levels = np.concatenate([levels[~split], np.repeat(levels[split] - 1, 8)])
    return ijk, levels


@integrand
def _cell_refinement(s: Sample, domain: Domain, field: Field, sample_count: int, level_count: int,
                     coarse_grid: wp.uint64, cell_ijk: wp.array(dtype=wp.vec3i), cell_level: wp.array(dtype=int),
                     out: wp.array(dtype=int)):
    """How many levels cell ``s.qp_index`` is to be split by (-1: carve it out): the finest
    level the field asks for at random points of the cell (field value v -> level
    floor(v * level_count), negative values carve)."""
    cell = s.qp_index
    ijk = cell_ijk[cell]
    cur_level = cell_level[cell]
    rng = wp.rand_init((cur_level << 24) ^ (ijk[0] << 12) ^ (ijk[1] << 6) ^ ijk[2])
    min_level = level_count
    scale = 1.0 / float(1 << (level_count - 1 - cur_level))
    uvw = wp.vec3(float(ijk[0]), float(ijk[1]), float(ijk[2])) * scale + wp.vec3(0.5 * (scale - 1.0))
    for _ in range(sample_count):
        pos = wp.volume_index_to_world(coarse_grid, uvw + wp.sample_unit_cube(rng) * scale)
        fs = lookup(domain, pos)
        if fs.element_index != NULL_ELEMENT_INDEX:
            sampled = wp.min(level_count - 1, int(wp.floor(field(fs) * float(level_count))))
            if sampled >= 0:
                min_level = wp.min(sampled, min_level)
    out[cell] = wp.where(min_level < level_count, cur_level - wp.clamp(min_level, 0, cur_level), -1)


def adaptive_nanogrid_from_field(coarse_grid, level_count, refinement_field, samples_per_voxel=64, grading=None,
                                 temporary_store=None):
    """An AdaptiveNanogrid refining ``coarse_grid``'s voxels (level ``level_count - 1``) where
    ``refinement_field`` is small (0: finest level, 1: coarsest; negative: no cell)."""
    from .interpolate import interpolate
    device = coarse_grid.device
    ijk = _voxels(coarse_grid)                 # in units of the current level's cells
    levels = np.full(len(ijk), level_count - 1, dtype=np.int64)
    domain = Cells(refinement_field.geometry)
    for _ in range(level_count):
        out = wp.empty(len(ijk), dtype=int, device=device)
        interpolate(_cell_refinement, at=domain, dim=len(ijk), fields={"field": refinement_field},
                    values={"sample_count": samples_per_voxel, "level_count": level_count,
                            "coarse_grid": coarse_grid.id,
                            "cell_ijk": wp.array(ijk.astype(np.int32), dtype=wp.vec3i, device=device),
                            "cell_level": wp.array(levels.astype(np.int32), dtype=int, device=device),
                            "out": out})
        refine = np.minimum(out.numpy().astype(np.int64), 1)
        keep, split = refine == 0, refine > 0     # (-1: carved out)
        kids = (2 * ijk[split])[:, None, :] + _CHILDREN[None]
        ijk = np.concatenate([ijk[keep], kids.reshape(-1, 3)])
        levels = np.concatenate([levels[keep], np.repeat(levels[split] - 1, 8)])
    ijk = ijk << levels[:, None]             # from each cell's level units to finest voxels
    info = coarse_grid.get_grid_info()
    fine_scale = 1.0 / (1 << (level_count - 1))
    t = np.array(info.transform_matrix, dtype=np.float64).reshape(3, 3) * fine_scale
    tr = np.array(info.translation, dtype=np.float64) + (fine_scale - 1.0) * 0.5 * np.array(coarse_grid.get_voxel_size())
    ijk, levels = _grade(ijk, levels, level_count, grading)
    grid, levels = _grid_from(ijk, levels, t, tr, device)
    return AdaptiveNanogrid(grid, wp.array(levels.astype(np.uint8), dtype=wp.uint8, device=device), level_count)
