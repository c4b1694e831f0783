"""Temporaries and dynamic kernels (``fem.cache``)."""

from . import _api as wp


class TemporaryStore:
    """A pool of temporaries; arrays here are plainly allocated (no pooling yet)."""

    def clear(self):
        pass


class Temporary:
    def __init__(self, array):
        self.array = array

    def release(self):
        self.array = None

    def detach(self):
        return self.array


def borrow_temporary(temporary_store=None, shape=0, dtype=float, pinned=False, requires_grad=False, device=None):
    return Temporary(wp.empty(shape, dtype=dtype, pinned=pinned, requires_grad=requires_grad, device=device))


def borrow_temporary_like(array, temporary_store=None):
    return Temporary(wp.empty_like(array))


_default_store = None


def set_default_temporary_store(store):
    global _default_store
    _default_store = store


def dynamic_kernel(suffix, kernel_options=None, allow_overloads=False):
    """A kernel made by a factory, in a module of its own per ``suffix`` and definition."""
    def wrap(func):
        return wp.kernel(func, module="unique", **({"enable_backward": kernel_options.get("enable_backward")}
                                                   if kernel_options and "enable_backward" in kernel_options else {}))
    return wrap
