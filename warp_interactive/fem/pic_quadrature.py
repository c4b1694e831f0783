"""``fem.PicQuadrature``: particles as quadrature points (particle-in-cell, material point methods).

Particles are binned by cell: ``cell_particle_offsets`` (one more entry than cells) delimits
each cell's run in ``cell_particle_indices`` (particle indices, ascending within a cell, as
warp-lang's stable sort leaves them) and in the runs of their coordinates and weights. A
particle's weight is the fraction of the cell it stands for (its measure over the cell's
measure at the particle; without measures, one over the cell's particle count), so that
``weight * fem.measure`` is its measure. The point index of a particle is its own index."""

import functools
from typing import Any

import numpy as np

from . import _api as wp
from .precision import is_float64

from .quadrature import Quadrature
from .types import make_free_sample


@functools.lru_cache(maxsize=None)
def _locate_kernel(geometry_cls, pos_type):
    lookup = geometry_cls.cell_lookup

    @wp.kernel
    def locate(arg: geometry_cls.CellArg, positions: wp.array(dtype=pos_type),
               cells: wp.array(dtype=int), coords: wp.array(dtype=wp.vec3)):
        p = wp.tid()
        s = lookup(arg, positions[p])
        cells[p] = s.element_index
        coords[p] = s.element_coords
    return locate


@functools.lru_cache(maxsize=None)
def _fraction_kernel(geometry_cls):
    """Each run entry's weight: its particle's measure over the cell's measure at the particle
    (or the given share ``inv_count`` without measures), times its given fraction. A kernel,
    so that a recording tape carries gradients to the measures."""
    measure = geometry_cls.cell_measure

    @wp.kernel
    def fractions(arg: geometry_cls.CellArg, order: wp.array(dtype=int), per: int, cells: wp.array(dtype=int),
                  coords: wp.array(dtype=wp.vec3), measures: wp.array(dtype=float),
                  inv_count: wp.array(dtype=float), given: wp.array(dtype=float), out: wp.array(dtype=float)):
        k = wp.tid()
        flat = order[k]
        f = inv_count[k]
        if measures.shape[0] > 0:
            f = measures[flat // per] / measure(arg, make_free_sample(cells[k], coords[flat]))
        if given.shape[0] > 0:
            f = f * given[flat]
        out[k] = f
    return fractions


@wp.kernel
def _gather_coords(src: wp.array(dtype=wp.vec3), order: wp.array(dtype=int), out: wp.array(dtype=wp.vec3)):
    k = wp.tid()
    out[k] = src[order[k]]


def _run_funcs(by_domain):
    """count/coords/weight/index reading the run of the domain's element ``element`` or of
    the geometry's element ``elt``."""
    D = int(by_domain)

    @wp.func
    def count(arg: Any, element: int, elt: int):
        r = wp.where(D == 1, element, elt)
        return arg.cell_particle_offsets[r + 1] - arg.cell_particle_offsets[r]

    @wp.func
    def coords(arg: Any, element: int, elt: int, q: int):
        return arg.cell_particle_coords[arg.cell_particle_offsets[wp.where(D == 1, element, elt)] + q]

    @wp.func
    def weight(arg: Any, element: int, elt: int, q: int):
        return arg.cell_particle_fraction[arg.cell_particle_offsets[wp.where(D == 1, element, elt)] + q]

    @wp.func
    def index(arg: Any, element: int, elt: int, q: int):
        return arg.cell_particle_indices[arg.cell_particle_offsets[wp.where(D == 1, element, elt)] + q]
    return count, coords, weight, index


_RUN_FUNCS = {d: _run_funcs(d) for d in (False, True)}


@wp.struct
class PicQuadratureArg:
    cell_particle_offsets: wp.array(dtype=int)
    cell_particle_indices: wp.array(dtype=int)
    cell_particle_fraction: wp.array(dtype=float)
    cell_particle_coords: wp.array(dtype=wp.vec3)


def _host(a):
    return a.numpy() if hasattr(a, "numpy") else np.asarray(a)


def _as_device(a, dtype, device):
    """``a`` as an array on ``device`` (warp arrays as they are, so gradients reach them)."""
    if isinstance(a, wp.array):
        return a if str(a.device) == str(device) else a.to(device)
    return wp.array(np.asarray(a, dtype=np.float32), dtype=dtype, device=device)


class PicQuadrature(Quadrature):
    """Particles as quadrature points of ``domain`` (cells). ``positions``: world positions
    (located by the geometry's cell lookup), or ``(cell_indices, coords)``, or, for particles
    spanning several cells, 2-D ``(cell_indices, coords, fractions)``. ``measures``: each
    particle's area/volume (default: the cell's measure shared by its particles).
    ``use_domain_element_indices``: the cell indices given (or found) count the domain's
    elements instead of the geometry's cells."""

    Arg = PicQuadratureArg

    def __init__(self, domain, positions, measures=None, env_indices=None, requires_grad=False, max_dist=0.0,
                 use_domain_element_indices=False, temporary_store=None):
        super().__init__(domain)
        if env_indices is not None:
            raise NotImplementedError("fem.PicQuadrature: environment indices (multiple environments) are "
                                      "not supported yet")
        if is_float64(domain):      # its particle arrays are float32
            raise NotImplementedError("fem.PicQuadrature: float64 geometries are not supported yet")
        self._use_domain_element_indices = use_domain_element_indices
        self._requires_grad = requires_grad
        self.point_count, self.point_coords, self.point_weight, self.point_index = \
            _RUN_FUNCS[use_domain_element_indices]
        self._device = getattr(positions, "device", None) or getattr(positions[0], "device", None)
        cells, coords, fractions = self._cells_and_coords(positions)
        self._bin(cells, coords, fractions, measures)

    @property
    def name(self):
        scope = "domain" if self._use_domain_element_indices else "geometry"
        return f"PicQuadrature_{self.domain.name}_{scope}"

    def _cells_and_coords(self, positions):
        if isinstance(positions, wp.array):
            geo = self.domain.geometry
            if getattr(type(geo), "cell_lookup", None) is None:
                raise RuntimeError(f"The PicQuadrature's underlying domain of type '{geo.name}' does not "
                                   "support global element lookups")
            n = positions.shape[0]
            cells = wp.empty(n, dtype=int, device=positions.device)
            coords = wp.empty(n, dtype=wp.vec3, device=positions.device, requires_grad=self._requires_grad)
            wp.launch(_locate_kernel(type(geo), positions.dtype), dim=n, device=positions.device,
                      inputs=[geo.cell_arg_value(positions.device), positions, cells, coords])
            self.cell_indices, self.particle_coords = cells, coords
            host_cells = cells.numpy()
            if self._use_domain_element_indices:    # geometry cells -> the domain's elements
                to_domain = np.full(geo.cell_count(), -1, dtype=np.int64)
                to_domain[np.asarray(self.domain.host_element_indices())] = np.arange(self.domain.element_count())
                host_cells = np.where(host_cells >= 0, to_domain[np.maximum(host_cells, 0)], -1)
                self.cell_indices = wp.array(host_cells.astype(np.int32), dtype=int, device=positions.device)
            return host_cells, coords, None
        if len(positions) == 2:
            self.cell_indices, self.particle_coords = positions
            if self.cell_indices.shape != self.particle_coords.shape:
                raise ValueError("Cell index and coordinates arrays must have the same shape")
            return _host(self.cell_indices), self.particle_coords, None
        self.cell_indices, self.particle_coords, fractions = positions
        if self.cell_indices.shape != self.particle_coords.shape or self.cell_indices.shape != fractions.shape:
            raise ValueError("Cell index, coordinates and fraction arrays must have the same shape")
        return _host(self.cell_indices), self.particle_coords, fractions

    def _bin(self, cells, coords, fractions, measures):
        """Sorts the (particle, cell) entries by cell on the host, then gathers coordinates and
        computes weights with kernels (recorded on a tape: gradients reach positions, coordinates
        and measures)."""
        per = 1 if cells.ndim == 1 else cells.shape[1]
        flat = cells.reshape(-1).astype(np.int64)
        self._unique_point_count = cells.shape[0]
        n_cells = self.domain.element_count() if self._use_domain_element_indices else \
            self.domain.geometry_element_count()
        kept = np.nonzero(flat >= 0)[0]                           # particles outside every cell drop out
        order = kept[np.argsort(flat[kept], kind="stable")]       # by cell, particles in order within
        counts = np.bincount(flat[order], minlength=n_cells)
        in_cell = flat[order]
        if measures is not None and measures.shape != (self._unique_point_count,):
            raise ValueError("Measures should be an 1d array or length equal to particle count")
        geo_cells = in_cell
        if self._use_domain_element_indices:
            geo_cells = np.asarray(self.domain.host_element_indices(), dtype=np.int64)[in_cell]
        dev, grad, n = self._device, self._requires_grad, len(order)
        self._offsets_host, self._counts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32), counts
        self._cell_particle_offsets = wp.array(self._offsets_host, dtype=int, device=dev)
        self._cell_particle_indices = wp.array((order // per).astype(np.int32), dtype=int, device=dev)
        order_d = wp.array(order.astype(np.int32), dtype=int, device=dev)
        src = _as_device(coords, wp.vec3, dev)
        if src.ndim > 1:
            src = src.flatten()
        self._cell_particle_coords = wp.empty(n, dtype=wp.vec3, device=dev, requires_grad=grad)
        self._cell_particle_fraction = wp.empty(n, dtype=float, device=dev, requires_grad=grad)
        if n == 0:
            return
        wp.launch(_gather_coords, dim=n, inputs=[src, order_d, self._cell_particle_coords], device=dev)
        none = wp.empty(0, dtype=float, device=dev)
        given = none if fractions is None else _as_device(fractions, float, dev)
        inv = np.float32(1.0) / counts[in_cell].astype(np.float32)
        geo = self.domain.geometry
        wp.launch(_fraction_kernel(type(geo)), dim=n, device=dev,
                  inputs=[geo.cell_arg_value(dev), order_d, per, wp.array(geo_cells.astype(np.int32), dtype=int,
                                                                          device=dev),
                          src, none if measures is None else _as_device(measures, float, dev),
                          wp.array(inv, dtype=float, device=dev), given.flatten() if given.ndim > 1 else given,
                          self._cell_particle_fraction])

    def arg_value(self, device=None):
        device = wp.get_device(device)
        a = PicQuadratureArg()
        a.cell_particle_offsets = self._cell_particle_offsets.to(device)
        a.cell_particle_indices = self._cell_particle_indices.to(device)
        a.cell_particle_fraction = self._cell_particle_fraction.to(device)
        a.cell_particle_coords = self._cell_particle_coords.to(device)
        return a

    def total_point_count(self):
        """The number of particles."""
        return self._unique_point_count

    def evaluation_point_count(self):
        """The number of (particle, cell) pairs: particles spanning several cells count once per cell."""
        return int(self._offsets_host[-1])

    def active_cell_count(self):
        """The number of cells holding at least one particle."""
        return int(np.count_nonzero(self._counts))

    def max_points_per_element(self):
        return int(self._counts.max()) if len(self._counts) else 0

    @property
    def cell_particle_offsets(self):
        return self._cell_particle_offsets

    @property
    def cell_particle_indices(self):
        return self._cell_particle_indices

    def fill_element_mask(self, mask):
        """Sets ``mask`` (one int per geometry element) to 1 where an element holds particles, 0
        elsewhere."""
        m = (self._counts > 0).astype(np.int32)
        if self._use_domain_element_indices:
            full = np.zeros(self.domain.geometry_element_count(), dtype=np.int32)
            full[np.asarray(self.domain.host_element_indices())] = m
            m = full
        mask.assign(np.concatenate([m, np.zeros(max(0, mask.shape[0] - len(m)), dtype=np.int32)])[:mask.shape[0]])
