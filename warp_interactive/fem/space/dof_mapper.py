"""Dof mappers: how a node's degrees of freedom become a function value.

A space made with ``dof_mapper=`` stores ``dof_dtype`` values at its nodes (``field.dof_values``)
and its fields take ``value_dtype`` values: a symmetric 2x2 tensor is 3 numbers at a node, a
skew 3x3 tensor 3. Integrals count one test/trial component per dof (``DOF_SIZE``), so a
stress space's mass matrix has 3x3 blocks, not 4x4. Both maps are linear and orthonormal for
the half Frobenius product ``(a : b) / 2`` of tensors: ``value_to_dof(dof_to_value(d)) == d``."""

import functools
import math
from enum import Enum
from typing import Any

from .. import _api as wp

_SQRT_2 = math.sqrt(2.0)
_SQRT_3 = math.sqrt(3.0)


def _canonical(dtype):
    return wp.float32 if dtype is float else dtype


def _scalar(dtype):
    return getattr(dtype, "_wp_scalar_type_", dtype)


def _shape(dtype):
    return getattr(dtype, "_shape_", None) if getattr(dtype, "_kind_", None) == "matrix" else None


class DofMapper:
    """A map between the ``dof_dtype`` values stored at nodes and a field's ``value_dtype``
    values (``dof_to_value`` / ``value_to_dof``: ``@wp.func``s)."""

    value_dtype = None
    dof_dtype = None
    DOF_SIZE = 1

    def _key(self):
        return (type(self).__name__, self.value_dtype)

    def __eq__(self, other):
        return isinstance(other, DofMapper) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        return f"{getattr(self.value_dtype, '__name__', self.value_dtype)}_{self.DOF_SIZE}"


class IdentityMapper(DofMapper):
    """Node values are the field's values."""

    def __init__(self, dtype):
        dtype = _canonical(dtype)
        self.value_dtype = self.dof_dtype = dtype
        self.DOF_SIZE = getattr(dtype, "_length_", 1)
        self.dof_to_value = self.value_to_dof = _identity


@wp.func
def _identity(x: Any):
    return x


class SymmetricTensorMapper(DofMapper):
    """Symmetric 2x2 (3 dofs) or 3x3 (6 dofs) tensors.

    ``Mapping.VOIGT``: the diagonal entries times sqrt(1/2), then the off-diagonal ones
    ((1,2), (0,2), (0,1) in 3-D). ``Mapping.DB16``: the trace part first, then the deviatoric
    diagonal, then the off-diagonal entries (Daviet and Bertails-Descoubes 2016), which keeps
    normal and tangential parts apart."""

    class Mapping(Enum):
        VOIGT = 0
        DB16 = 1

    def __init__(self, dtype, mapping=Mapping.VOIGT):
        shape = _shape(dtype)
        if shape not in ((2, 2), (3, 3)):
            raise ValueError(f"Unsupported value dtype: {dtype}")
        self.value_dtype = dtype
        self.mapping = mapping
        n = shape[0]
        self.DOF_SIZE = 3 if n == 2 else 6
        self.dof_dtype = wp.types.vector(self.DOF_SIZE, _scalar(dtype))
        self.dof_to_value, self.value_to_dof = _symmetric_funcs(dtype, self.dof_dtype, n,
                                                                mapping == SymmetricTensorMapper.Mapping.VOIGT)

    def _key(self):
        return super()._key() + (self.mapping,)

    def __str__(self):
        return f"{self.mapping}_{self.DOF_SIZE}"


class SkewSymmetricTensorMapper(DofMapper):
    """Skew-symmetric 2x2 (1 dof: the (1,0) entry) or 3x3 (3 dofs: the axial vector, so
    ``dof_to_value(w) * x == cross(w, x)``) tensors."""

    def __init__(self, dtype):
        shape = _shape(dtype)
        if shape not in ((2, 2), (3, 3)):
            raise ValueError(f"Unsupported value dtype: {dtype}")
        self.value_dtype = dtype
        n = shape[0]
        self.DOF_SIZE = 1 if n == 2 else 3
        self.dof_dtype = _scalar(dtype) if n == 2 else wp.types.vector(3, _scalar(dtype))
        self.dof_to_value, self.value_to_dof = _skew_funcs(dtype, self.dof_dtype, n)

    def __str__(self):
        return f"{type(self).__name__}_{self.DOF_SIZE}"


@functools.lru_cache(maxsize=None)
def _symmetric_funcs(M, V, n, voigt):
    return (_sym2_voigt if voigt else _sym2_db16)(M, V) if n == 2 else (_sym3_voigt if voigt else _sym3_db16)(M, V)


def _sym2_voigt(M, V):
    S = _scalar(M)

    @wp.func
    def dof_to_value(d: Any):
        r2 = S(_SQRT_2)
        return M(r2 * d[0], d[2], d[2], r2 * d[1])

    @wp.func
    def value_to_dof(v: Any):
        h = S(0.5)
        r = S(1.0 / _SQRT_2)
        return V(r * v[0, 0], r * v[1, 1], h * (v[0, 1] + v[1, 0]))
    return dof_to_value, value_to_dof


def _sym2_db16(M, V):
    S = _scalar(M)

    @wp.func
    def dof_to_value(d: Any):
        return M(d[0] + d[1], d[2], d[2], d[0] - d[1])

    @wp.func
    def value_to_dof(v: Any):
        h = S(0.5)
        return V(h * (v[0, 0] + v[1, 1]), h * (v[0, 0] - v[1, 1]), h * (v[0, 1] + v[1, 0]))
    return dof_to_value, value_to_dof


def _sym3_voigt(M, V):
    S = _scalar(M)

    @wp.func
    def dof_to_value(d: Any):
        r2 = S(_SQRT_2)
        return M(r2 * d[0], d[5], d[4], d[5], r2 * d[1], d[3], d[4], d[3], r2 * d[2])

    @wp.func
    def value_to_dof(v: Any):
        h = S(0.5)
        r = S(1.0 / _SQRT_2)
        return V(r * v[0, 0], r * v[1, 1], r * v[2, 2],
                 h * (v[2, 1] + v[1, 2]), h * (v[0, 2] + v[2, 0]), h * (v[1, 0] + v[0, 1]))
    return dof_to_value, value_to_dof


def _sym3_db16(M, V):
    """d0: trace / sqrt(6); d1: (xx - yy) / 2; d2: sqrt(3) / 2 (zz - trace / 3); off-diagonals."""
    S = _scalar(M)

    @wp.func
    def dof_to_value(d: Any):
        a = d[0] * S(_SQRT_2 / _SQRT_3)
        b = d[1]
        c = d[2] * S(1.0 / _SQRT_3)
        return M(a + b - c, d[5], d[4], d[5], a - b - c, d[3], d[4], d[3], a + S(2.0) * c)

    @wp.func
    def value_to_dof(v: Any):
        h = S(0.5)
        tr = v[0, 0] + v[1, 1] + v[2, 2]
        return V(tr * S(1.0 / (_SQRT_2 * _SQRT_3)), h * (v[0, 0] - v[1, 1]),
                 h * (v[2, 2] - tr / S(3.0)) * S(_SQRT_3),
                 h * (v[2, 1] + v[1, 2]), h * (v[0, 2] + v[2, 0]), h * (v[1, 0] + v[0, 1]))
    return dof_to_value, value_to_dof


@functools.lru_cache(maxsize=None)
def _skew_funcs(M, V, n):
    S = _scalar(M)
    if n == 2:
        @wp.func
        def dof_to_value(d: Any):
            return M(S(0.0), -d, d, S(0.0))

        @wp.func
        def value_to_dof(v: Any):
            return S(0.5) * (v[1, 0] - v[0, 1])
        return dof_to_value, value_to_dof

    @wp.func
    def dof_to_value(d: Any):
        z = S(0.0)
        return M(z, -d[2], d[1], d[2], z, -d[0], -d[1], d[0], z)

    @wp.func
    def value_to_dof(v: Any):
        h = S(0.5)
        return V(h * (v[2, 1] - v[1, 2]), h * (v[0, 2] - v[2, 0]), h * (v[1, 0] - v[0, 1]))
    return dof_to_value, value_to_dof
