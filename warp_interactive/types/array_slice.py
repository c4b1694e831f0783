"""The type of ``start:stop:step`` inside an array subscript in a kernel (``a[i:j]``,
``a[:, k]``): a run-time value (``wp::slice_t`` in native/include/warp_interactive/core/core.h)
that the ``view`` builtin turns into a strided view of the array's memory."""

# An omitted bound: what it means depends on the sign of a step that may be known only at run
# time (core.h's WPI_SLICE_BEGIN / WPI_SLICE_END: keep in sync).
SLICE_BEGIN = 2**31 - 1
SLICE_END = -2**31


class slice_t:
    """Never instantiated: the class itself is the type of a slice value in kernel IR."""

    _cpp = "wp::slice_t"
    __slots__ = ()


def is_slice(t):
    return t is slice_t
