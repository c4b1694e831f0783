"""Tile types: a dtype and a static shape (warp-lang's ``Tile[dtype, shape]``).

A tile type is known entirely at build time; kernels hold tiles as values (C++
``wp::tile_t<T, D0, D1, D2, D3>``, the shape padded with ones to four dimensions). Types are
cached by (dtype, shape), so two requests for the same tile type give the same object and
compare with ``is``, like the composite types.
"""

MAX_TILE_DIMS = 4
STORAGE_MODES = ("register", "shared")

_cache = {}


class Tile:
    """The type of a tile value in a kernel; instances are types, not values."""

    def __init__(self, dtype, shape):
        self.dtype = dtype
        self.shape = tuple(shape)
        self.ndim = len(self.shape)
        self.size = 1
        for d in self.shape:
            self.size *= d
        dims = self.shape + (1,) * (MAX_TILE_DIMS - self.ndim)
        self._cpp = f"wp::tile_t<{dtype._cpp}, {', '.join(str(d) for d in dims)}>"
        dname = getattr(dtype, "__name__", repr(dtype))
        self.__name__ = f"tile(dtype={dname}, shape={self.shape})"

    def __repr__(self):
        return self.__name__

    @property
    def padded_shape(self):
        return self.shape + (1,) * (MAX_TILE_DIMS - self.ndim)

    def row_major_strides(self):
        """Element strides of the (unpadded) shape, row-major."""
        out, s = [], 1
        for d in reversed(self.shape):
            out.append(s)
            s *= d
        return tuple(reversed(out))


def tile_type(dtype, shape):
    """The tile type of ``dtype`` elements and ``shape`` (a tuple of positive ints)."""
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    if not 1 <= len(shape) <= MAX_TILE_DIMS:
        raise ValueError(f"a tile has 1 to {MAX_TILE_DIMS} dimensions, got shape {shape}")
    if any(not isinstance(d, int) or isinstance(d, bool) or d <= 0 for d in shape):
        raise ValueError(f"a tile shape holds positive integers, got {shape}")
    key = (dtype, shape)
    t = _cache.get(key)
    if t is None:
        t = _cache[key] = Tile(dtype, shape)
    return t


def is_tile(t):
    return isinstance(t, Tile)
