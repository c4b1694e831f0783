"""Tile types: a dtype and a static shape (warp-lang's ``Tile[dtype, shape]``).

A tile type is known entirely at build time; kernels hold tiles as values (C++
``wp::tile_t<T, D0, D1, D2, D3>``, the shape padded with ones to four dimensions). Types are
cached by (dtype, shape), so two requests for the same tile type give the same object and
compare with ``is``, like the composite types.
"""

MAX_TILE_DIMS = 4
STORAGE_MODES = ("register", "shared")

_cache = {}


def atomic_add_scalar(t):
    """Whether values of ``t`` (a scalar, or a composite of that scalar) take part in atomic adds
    and field-wise sums: warp-lang's ``wp.atomic_add`` types. bool and 8/16-bit integers do not
    (CUDA has no atomicAdd for them)."""
    from . import composite as comp
    from . import scalars as sc
    s = t._wp_scalar_type_ if comp.is_composite(t) else sc.canonical_scalar(t)
    return s in (sc.int32, sc.int64, sc.uint32, sc.uint64, sc.float16, sc.bfloat16, sc.float32, sc.float64)


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


def tile_subscript(params):
    """``wp.tile[dtype, M, N]`` or ``wp.tile[dtype, (M, N)]`` in annotations: the tile type."""
    if not isinstance(params, tuple) or len(params) < 2:
        raise TypeError("wp.tile[dtype, *shape] needs a dtype and a shape (e.g. wp.tile[float, 16, 8]); "
                        "a tile of unspecified shape (wp.tile[dtype]) is not supported")
    from .scalars import canonical_scalar
    dtype, rest = params[0], params[1:]
    if len(rest) == 1 and isinstance(rest[0], tuple):
        rest = rest[0]
    shape = tuple(getattr(d, "value", d) for d in rest)   # wp.constant(16) -> 16
    for i, d in enumerate(shape):
        if not isinstance(d, int) or isinstance(d, bool) or d <= 0:
            raise TypeError(f"wp.tile[...]: dimension {i} must be a positive int, got {d!r}")
    return tile_type(canonical_scalar(dtype) or dtype, shape)


class TileStack:
    """The type of ``wp.tile_stack(capacity, dtype)``: a value of its thread (block width one)."""

    def __init__(self, dtype, capacity):
        self.dtype, self.capacity = dtype, capacity
        self._cpp = f"wp::tile_stack_t<{dtype._cpp}, {capacity}>"
        dname = getattr(dtype, "__name__", repr(dtype))
        self.__name__ = f"tile_stack(capacity={capacity}, dtype={dname})"

    def __repr__(self):
        return self.__name__


_stacks = {}


def tile_stack_type(dtype, capacity):
    """The stack type of ``capacity`` elements of ``dtype`` (cached: same request, same object)."""
    from . import composite as comp
    from .scalars import canonical_scalar, is_scalar
    struct = getattr(dtype, "_wp_struct_", None) is not None
    dtype = dtype if comp.is_composite(dtype) or struct else canonical_scalar(dtype)
    capacity = getattr(capacity, "value", capacity)
    if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity <= 0:
        raise ValueError(f"tile_stack: capacity must be a positive int, got {capacity!r}")
    if not (struct or is_scalar(dtype) or comp.is_composite(dtype)):
        raise TypeError("tile_stack: dtype must be a scalar, vector, matrix or @wp.struct type")
    key = (dtype, capacity)
    t = _stacks.get(key)
    if t is None:
        t = _stacks[key] = TileStack(dtype, capacity)
    return t
