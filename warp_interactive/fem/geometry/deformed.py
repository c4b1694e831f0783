"""Deformed geometries (``field.make_deformed_geometry()``): a base geometry whose points are
moved to the values of a vector-valued discrete field on it (or by them, ``relative=True``).

The deformed geometry has the base's cells, sides and topology. Its cell arg is the
deformation field's own evaluation struct (``elt``: the base cell arg, ``dofs``: the node
values), so the field's @wp.funcs read it directly; its side arg adds the deformed cell arg
(``cell``). With ``G`` the field's gradient by base positions, at a sample: position =
field value, deformation gradient = ``G F_base``, measure = base measure times ``|det G|``;
side normals follow Nanson's formula (``G^-T n_base``, normalized) and side measures scale by
``|det G| |G^-T n_base|``. ``G`` on a side comes from its inner cell (a continuous field's
tangential derivatives, all that these use, agree on both sides)."""

import functools
from typing import Any

from .. import _api as wp
from ..precision import follow_precision

from ..field import evaluation as ev
from ..field.structs import make_struct
from ..types import ElementKind
from .geometry import Geometry
from .lookup import CellLookupMixin, sampled_bounds_kernel


def relative_funcs(value, grad, base_position, relative, dim):
    """(position, G) at a sample: the deformation's ``value(arg, s)`` and its gradient by base
    positions ``grad(arg, s)``, plus the base position and identity where it is ``relative``."""
    REL = int(relative)

    @wp.func
    def position(arg: Any, s: Any):
        p = value(arg, s)
        if REL == 1:
            p += base_position(arg.elt, s)
        return p

    @wp.func
    def gradient(arg: Any, s: Any):
        g = grad(arg, s)
        if REL == 1:
            g += wp.identity(n=dim, dtype=float)
        return g

    return position, gradient


@functools.lru_cache(maxsize=None)
def _field_funcs(space_key, el_items, dtype, base_cls, relative, kind):
    """(position, G) at a sample of a cell (kind CELL) or side of the base geometry."""
    value, grad = ev.discrete_funcs(space_key, el_items, dtype, base_cls)
    base_position = base_cls.cell_position if kind == ElementKind.CELL else base_cls.side_position
    return relative_funcs(value, grad, base_position, relative, base_cls.dimension)


@follow_precision
def make_deformed_geometry(field, relative=True):
    """The geometry of ``field``'s base geometry deformed by ``field`` (a discrete field of
    vectors of the geometry's dimension)."""
    _check_field(field)
    cls = deformed_class(type(field.space.geometry), field.space, field.dtype, bool(relative))
    return cls(field, bool(relative))


def _check_field(field):
    base = field.space.geometry
    if getattr(field.dtype, "_length_", None) != base.dimension:
        raise ValueError("make_deformed_geometry: the field must hold vectors of the geometry's dimension "
                         f"({base.dimension}), not {field.dtype}")


def deformed_class(base_cls, space, dtype, relative):
    cell_el = tuple(sorted(space.element(ElementKind.CELL).items()))
    side_el = tuple(sorted(space.element(ElementKind.SIDE).items()))
    return _deformed_class(base_cls, space.space_key(), cell_el, side_el, dtype, relative)


@functools.lru_cache(maxsize=None)
def _deformed_class(base_cls, space_key, cell_el, side_el, dtype, relative):
    tag = f"{base_cls.__name__}_{'_'.join(str(k) for k in space_key)}_{'rel' if relative else 'abs'}"
    CellArg = make_struct(f"Deformed{tag}CellArg", {"elt": base_cls.CellArg, "dofs": wp.array(dtype=dtype),
                                                   "bvh": wp.uint64})
    SideArg = make_struct(f"Deformed{tag}SideArg", {"elt": base_cls.SideArg, "dofs": wp.array(dtype=dtype),
                                                   "cell": CellArg})
    cell_pos, cell_G = _field_funcs(space_key, cell_el, dtype, base_cls, relative, ElementKind.CELL)
    side_pos, side_G = _field_funcs(space_key, side_el, dtype, base_cls, relative, ElementKind.SIDE)
    return _make_class(base_cls, CellArg, SideArg, cell_pos, cell_G, side_pos, side_G, DeformedGeometry)


def _make_class(base_cls, CellArg, SideArg, cell_pos, cell_G, side_pos, side_G, parent):
    """The deformed geometry class whose points are at ``cell_pos``/``side_pos`` with position
    gradients (by base positions) ``cell_G``/``side_G``."""
    if base_cls.cell_dimension < base_cls.dimension:      # a surface in 3-D
        funcs = _surface_cell_funcs(base_cls, CellArg, cell_pos, cell_G)
        funcs.update(_side_funcs(base_cls, SideArg, side_pos, side_G))
        funcs.update(_surface_side_funcs(base_cls, SideArg, side_G))
    else:
        funcs = _cell_funcs(base_cls, CellArg, cell_pos, cell_G)
        funcs.update(_side_funcs(base_cls, SideArg, side_pos, side_G))
    attrs = dict(funcs, CellArg=CellArg, SideArg=SideArg, dimension=base_cls.dimension,
                 cell_dimension=base_cls.cell_dimension, reference_cell_shape=base_cls.reference_cell_shape,
                 reference_side_shape=base_cls.reference_side_shape, base_class=base_cls)
    return type(f"Deformed{base_cls.__name__}", (parent,), attrs)


def _cell_funcs(base_cls, CellArg, position, G):
    base_F, base_inv_F = base_cls.cell_deformation_gradient, base_cls.cell_inverse_deformation_gradient
    base_measure, base_normal = base_cls.cell_measure, base_cls.cell_normal

    @wp.func
    def cell_position(arg: CellArg, s: Any):
        return position(arg, s)

    @wp.func
    def cell_deformation_gradient(arg: CellArg, s: Any):
        return G(arg, s) * base_F(arg.elt, s)

    @wp.func
    def cell_inverse_deformation_gradient(arg: CellArg, s: Any):
        return base_inv_F(arg.elt, s) * wp.inverse(G(arg, s))

    @wp.func
    def cell_measure(arg: CellArg, s: Any):
        return base_measure(arg.elt, s) * wp.abs(wp.determinant(G(arg, s)))

    @wp.func
    def cell_normal(arg: CellArg, s: Any):
        return base_normal(arg.elt, s)

    return dict(cell_position=cell_position, cell_deformation_gradient=cell_deformation_gradient,
                cell_inverse_deformation_gradient=cell_inverse_deformation_gradient, cell_measure=cell_measure,
                cell_normal=cell_normal)


def _side_funcs(base_cls, SideArg, position, G):
    base_F, base_measure, base_normal = base_cls.side_deformation_gradient, base_cls.side_measure, base_cls.side_normal
    inner, outer = base_cls.side_inner_cell_index, base_cls.side_outer_cell_index
    inner_coords, outer_coords = base_cls.side_inner_cell_coords, base_cls.side_outer_cell_coords

    @wp.func
    def side_position(arg: SideArg, s: Any):
        return position(arg, s)

    @wp.func
    def side_deformation_gradient(arg: SideArg, s: Any):
        return G(arg, s) * base_F(arg.elt, s)

    @wp.func
    def side_normal(arg: SideArg, s: Any):
        return wp.normalize(wp.transpose(wp.inverse(G(arg, s))) * base_normal(arg.elt, s))

    @wp.func
    def side_measure(arg: SideArg, s: Any):
        g = G(arg, s)
        nanson = wp.transpose(wp.inverse(g)) * base_normal(arg.elt, s)
        return base_measure(arg.elt, s) * wp.abs(wp.determinant(g)) * wp.length(nanson)

    @wp.func
    def side_inner_cell_index(arg: SideArg, side: int):
        return inner(arg.elt, side)

    @wp.func
    def side_outer_cell_index(arg: SideArg, side: int):
        return outer(arg.elt, side)

    @wp.func
    def side_inner_cell_coords(arg: SideArg, side: int, coords: wp.vec3):
        return inner_coords(arg.elt, side, coords)

    @wp.func
    def side_outer_cell_coords(arg: SideArg, side: int, coords: wp.vec3):
        return outer_coords(arg.elt, side, coords)

    return dict(side_position=side_position, side_deformation_gradient=side_deformation_gradient,
                side_normal=side_normal, side_measure=side_measure, side_inner_cell_index=side_inner_cell_index,
                side_outer_cell_index=side_outer_cell_index, side_inner_cell_coords=side_inner_cell_coords,
                side_outer_cell_coords=side_outer_cell_coords)


def _surface_cell_funcs(base_cls, CellArg, position, G):
    """A deformed surface's cells: ``F = G F_base`` is 3 x 2 (``G``, the field's gradient along
    the surface, has rank 2: no determinant), so measures scale by the ratio of the areas its
    columns span, the normal is their cross product and the inverse is the pseudo-inverse."""
    from .surface3d import _columns_cross, _pseudo_inverse
    base_F, base_measure = base_cls.cell_deformation_gradient, base_cls.cell_measure

    @wp.func
    def cell_position(arg: CellArg, s: Any):
        return position(arg, s)

    @wp.func
    def cell_deformation_gradient(arg: CellArg, s: Any):
        return G(arg, s) * base_F(arg.elt, s)

    @wp.func
    def cell_inverse_deformation_gradient(arg: CellArg, s: Any):
        return _pseudo_inverse(G(arg, s) * base_F(arg.elt, s))

    @wp.func
    def cell_measure(arg: CellArg, s: Any):
        Fb = base_F(arg.elt, s)
        ratio = wp.length(_columns_cross(G(arg, s) * Fb)) / wp.length(_columns_cross(Fb))
        return base_measure(arg.elt, s) * ratio

    @wp.func
    def cell_normal(arg: CellArg, s: Any):
        return wp.normalize(_columns_cross(G(arg, s) * base_F(arg.elt, s)))

    return dict(cell_position=cell_position, cell_deformation_gradient=cell_deformation_gradient,
                cell_inverse_deformation_gradient=cell_inverse_deformation_gradient, cell_measure=cell_measure,
                cell_normal=cell_normal)


def _surface_side_funcs(base_cls, SideArg, G):
    """A deformed surface's sides (edges): lengths scale as ``G`` stretches their tangent; no
    side normals (as the base surface)."""
    base_F, base_measure = base_cls.side_deformation_gradient, base_cls.side_measure

    @wp.func
    def side_measure(arg: SideArg, s: Any):
        t = base_F(arg.elt, s)
        return base_measure(arg.elt, s) * wp.length(G(arg, s) * t) / wp.length(t)

    return dict(side_normal=None, side_measure=side_measure)


class DeformedGeometry(CellLookupMixin, Geometry):
    """A base geometry with its points moved by a discrete field (``make_deformed_geometry``;
    ``DeformedGeometry(field, relative=True, build_bvh=False)`` as in warp-lang)."""

    def __new__(cls, field, relative=True, build_bvh=False):
        if cls is DeformedGeometry:     # the class made for this field's base, space and type
            _check_field(field)
            cls = deformed_class(type(field.space.geometry), field.space, field.dtype, bool(relative))
        return super().__new__(cls, field, relative, build_bvh)

    def __init__(self, field, relative=True, build_bvh=False):
        self.base = self._base_geometry(field)
        self.field = field
        self.relative = bool(relative)
        self.scalar_type = self.base.scalar_type
        if build_bvh:
            self.build_bvh()

    @staticmethod
    def _base_geometry(field):
        return field.space.geometry

    def _set_field(self, arg, device):
        """Write the deformation's own data into a cell or side arg."""
        arg.dofs = self.field.dof_values

    def _bvh_device(self):
        return self.field.dof_values.device

    def _cell_bounds(self):
        device = self._bvh_device()
        lowers = wp.empty(self.cell_count(), dtype=wp.vec3, device=device)
        uppers = wp.empty(self.cell_count(), dtype=wp.vec3, device=device)
        wp.launch(sampled_bounds_kernel(type(self)), dim=self.cell_count(),
                  inputs=[self.cell_arg_value(device), lowers, uppers], device=device)
        return lowers.numpy(), uppers.numpy()

    @property
    def name(self):
        return f"{self.base.name}_{self.field.name}_{'rel' if self.relative else 'abs'}"

    def cell_count(self):
        return self.base.cell_count()

    def side_count(self):
        return self.base.side_count()

    def vertex_count(self):
        return self.base.vertex_count()

    def boundary_side_indices(self):
        return self.base.boundary_side_indices()

    def cell_arg_value(self, device=None):
        a = self.CellArg()
        a.elt = self.base.cell_arg_value(device)
        self._set_field(a, device)
        a.bvh = self.bvh_id(device)
        return a

    def side_arg_value(self, device=None):
        a = self.SideArg()
        a.elt = self.base.side_arg_value(device)
        self._set_field(a, device)
        a.cell = self.cell_arg_value(device)
        return a
