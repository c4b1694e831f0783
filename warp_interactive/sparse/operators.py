"""The arithmetic operators of ``BsrMatrix`` and of the scaled expression ``s * A``:
``A @ x`` (``bsr_mv``), ``A @ B`` (``bsr_mm``), ``A + B``, ``A - B``, ``s * A``, ``A / s``,
``-A``, ``A.T`` and the in-place forms. Attached here because the operations import matrix.py."""

import warp_interactive as wp

from .matrix import BsrMatrix, BsrScaled
from .ops import bsr_axpy, bsr_copy, bsr_scale, eval_expression
from .products import bsr_mm, bsr_mv
from .structure import bsr_transposed


def _matmul(self, y):
    return bsr_mv(self, y) if isinstance(y, wp.array) else bsr_mm(self, y)


def _rmatmul(self, x):
    return bsr_mv(self, x, transpose=True) if isinstance(x, wp.array) else bsr_mm(x, self)


_COMMON = {
    "__add__": lambda self, y: bsr_axpy(y, bsr_copy(self)),
    "__radd__": lambda self, x: bsr_axpy(x, bsr_copy(self)),
    "__sub__": lambda self, y: bsr_axpy(y, bsr_copy(self), alpha=-1.0),
    "__rsub__": lambda self, x: bsr_axpy(x, bsr_copy(self), beta=-1.0),
    "__mul__": lambda self, s: BsrScaled(*_scaled(self, s)),
    "__rmul__": lambda self, s: BsrScaled(*_scaled(self, s)),
    "__truediv__": lambda self, s: BsrScaled(*_scaled(self, 1.0 / s)),
    "__neg__": lambda self: BsrScaled(*_scaled(self, -1.0)),
    "__matmul__": _matmul,
    "__rmatmul__": _rmatmul,
}


def _transpose(self):
    """A transposed copy (of a scaled expression: the scaled transposed copy)."""
    if isinstance(self, BsrScaled):
        return BsrScaled(bsr_transposed(self.mat), self.scale)
    return bsr_transposed(self)


def _scaled(A, s):
    if isinstance(A, BsrScaled):
        return A.mat, A.scale * s
    return A, s


def _install():
    for name, fn in _COMMON.items():
        setattr(BsrMatrix, name, fn)
        setattr(BsrScaled, name, fn)
    BsrMatrix.__iadd__ = lambda self, y: bsr_axpy(y, self)
    BsrMatrix.__isub__ = lambda self, y: bsr_axpy(y, self, alpha=-1.0)
    BsrMatrix.__imul__ = lambda self, s: bsr_scale(self, s)
    BsrMatrix.__imatmul__ = lambda self, y: bsr_mm(self, y, self)
    BsrScaled.eval = eval_expression
    for cls in (BsrMatrix, BsrScaled):
        cls.transpose = _transpose
        cls.T = property(_transpose)


_install()
