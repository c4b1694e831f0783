"""Zero-copy exchange with other array frameworks (NumPy protocols, PyTorch, JAX, Paddle,
CuPy/Numba, DLPack).

Nothing here imports a framework at import time: each converter imports its framework when
first called, so ``import warp_interactive`` stays fast and works without any of them.
"""


# DLPack's ctypes machinery loads on first use (these are wp.from_dlpack / wp.to_dlpack)
def from_dlpack(source, dtype=None):
    """A wp array sharing the memory of ``source`` (zero-copy): an object with ``__dlpack__``
    (a PyTorch tensor, JAX array, NumPy array, Paddle tensor...) or a DLPack capsule.
    ``dtype`` views the data as a vector/matrix type (its inner dimensions become elements)."""
    from .dlpack import from_dlpack as impl
    return impl(source, dtype)


def to_dlpack(a):
    """A DLPack capsule of wp array ``a`` (zero-copy), without stream synchronisation."""
    from .dlpack import to_dlpack as impl
    return impl(a)
