"""Row and column access of a matrix value in Python scope (``m.get_row(r)``, ``m.set_col(c, v)``),
the reference's methods of its matrix types."""

import numbers

import numpy as np


def _index(i, n, what):
    if not isinstance(i, (int, np.integer)) or isinstance(i, bool) or i < -n or i >= n:
        raise IndexError(f"Invalid {what} index")
    return int(i) + n if i < 0 else int(i)


def _values(m, v, n):
    """``v`` as ``n`` values for one row or column: a scalar fills it, a sequence gives each."""
    if isinstance(v, (numbers.Number, np.generic)):
        return v
    try:
        values = list(v)
    except TypeError:
        raise TypeError(f"Expected to assign a slice from a sequence of values but got "
                        f"`{type(v).__name__}` instead") from None
    if len(values) != n:
        raise ValueError(f"{type(m).__name__}: expected {n} values for a row/column, got {len(values)}")
    return values


class MatrixMethods:
    """Mixed into every matrix type (types/composite.py) before ``Composite``."""

    __slots__ = ()

    def get_row(self, r):
        """Row ``r`` (negative counts from the end) as a new vector."""
        return self[_index(r, self._shape_[0], "row")]

    def get_col(self, c):
        """Column ``c`` (negative counts from the end) as a new vector."""
        return self[:, _index(c, self._shape_[1], "column")]

    def set_row(self, r, v):
        """Set row ``r`` in place to a scalar (every element) or one value per column."""
        r = _index(r, self._shape_[0], "row")
        self[r] = _values(self, v, self._shape_[1])

    def set_col(self, c, v):
        """Set column ``c`` in place to a scalar (every element) or one value per row."""
        c = _index(c, self._shape_[1], "column")
        self[:, c] = _values(self, v, self._shape_[0])
