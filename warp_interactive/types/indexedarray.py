"""``wp.indexedarray``: an array seen through one index array per dimension (warp-lang's).

``wp.indexedarray(data, [i0, None, i2])`` is the elements ``data[i0[a], b, i2[c]]`` (NumPy's
``data[np.ix_(i0, range(n1), i2)]``) without a copy: kernels read, write and atomically update
``data`` through the indices (``wp::indexedarray_t``, native/include/warp_interactive/core/indexed.h),
and their adjoints reach ``data.grad`` at the indexed positions. ``array[idx_array, ...]`` makes
one too. With no data it is a kernel annotation (``wp.indexedarray(dtype=float, ndim=2)``,
``wp.indexedarray[float]``, ``wp.indexedarray2d[float]``).

It is never contiguous: Python-scope reads and writes (``numpy()``, ``fill_``, ``wp.copy``)
gather and scatter through NumPy fancy indexing on the host (a CUDA array's data make a round
trip). It subclasses ``wp.array`` so that kernel code treats it as an array (indexing, ``len``,
``shape``, atomics); its C type, argument descriptor and Python-scope operations are its own.
"""

import ctypes

import numpy as np

from .. import hooks
from ..state import state
from .. import hooks
from .array import array, clone as _clone_array, copy_count
from .arraydesc import IndexedArrayDesc, MAX_DIMS
from .dtypes import element_shape, np_dtype_of, scalar_of, type_repr
from .scalars import bfloat16, bfloat16_to_numpy, canonical_scalar, int32
from . import array_values

_capturing = state.capturing


def is_indexed(t):
    """Whether ``t`` (an array, or an array annotation) is an indexed array."""
    return isinstance(t, indexedarray)


def _check_index_array(idx, device):
    """warp-lang's rules (and messages) for an index array."""
    if not isinstance(idx, array) or is_indexed(idx):
        raise ValueError(f"Indices must be a Warp array, got {type(idx)}")
    if idx.ndim != 1:
        raise ValueError(f"Index array must be one-dimensional, got {idx.ndim}")
    if idx.dtype is not int32:
        raise ValueError(f"Index array must use int32, got dtype {type_repr(idx.dtype)}")
    if idx.device is not device:
        raise ValueError(f"Index array device ({idx.device} does not match data array device ({device}))")


class indexedarray(array):
    """Array providing indexed access to a subset of elements in a source ``wp.array``."""

    is_contiguous = False
    _is_indexed = True

    def __init__(self, data=None, indices=None, dtype=None, ndim=None):
        dtype = canonical_scalar(dtype) if dtype is not None else None
        self.data = data
        self.indices = [None] * MAX_DIMS
        self._desc = None
        self._desc_of = None
        if data is None:                       # an annotation
            self.dtype = dtype if dtype is not None else canonical_scalar(float)
            self.ndim = ndim or 1
            self.shape, self.device, self.pinned = None, None, False
            self._requires_grad = False
            return
        if not isinstance(data, array) or is_indexed(data):
            raise ValueError("Indexed array data must be a Warp array")
        if data.is_annotation:
            raise ValueError("Indexed array data must be a Warp array with memory, not an annotation")
        if dtype is not None and dtype is not data.dtype:
            raise ValueError(f"Requested dtype ({type_repr(dtype)}) does not match dtype of data "
                             f"array ({type_repr(data.dtype)})")
        if ndim is not None and ndim != data.ndim:
            raise ValueError(f"Requested dimensionality ({ndim}) does not match dimensionality of "
                             f"data array ({data.ndim})")
        self.dtype, self.ndim, self.device, self.pinned = data.dtype, data.ndim, data.device, data.pinned
        shape = list(data.shape)
        if isinstance(indices, (list, tuple)):
            if len(indices) > self.ndim:
                raise ValueError(f"Number of indices provided ({len(indices)}) exceeds number of "
                                 f"dimensions ({self.ndim})")
            for d, idx in enumerate(indices):
                if idx is not None:
                    _check_index_array(idx, data.device)
                    self.indices[d], shape[d] = idx, idx.shape[0]
        elif isinstance(indices, array):
            _check_index_array(indices, data.device)
            self.indices[0], shape[0] = indices, indices.shape[0]
        elif indices is not None:
            raise ValueError("Indices must be a single Warp array or a list of Warp arrays")
        self.shape = tuple(shape)

    # --- what the array base class keeps in fields, taken from the data array -----------------
    @property
    def _requires_grad(self):
        return self.data is not None and self.data.requires_grad

    @_requires_grad.setter
    def _requires_grad(self, value):
        pass

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.data.requires_grad = value

    @property
    def grad(self):
        """The data's gradient seen through the same indices (None without one)."""
        g = self.data.grad if self.data is not None else None
        return None if g is None else indexedarray(g, self.indices[:self.ndim])

    @grad.setter
    def grad(self, g):
        raise AttributeError("an indexed array's gradient is its data array's: set data.grad")

    @property
    def _unwritable(self):
        return self.data._unwritable if self.data is not None else None

    @property
    def _readonly(self):
        return self.data is not None and self.data._readonly

    @property
    def _retain_grad(self):
        return self.data is not None and self.data._retain_grad

    @property
    def capacity(self):
        return self.data.capacity

    # --- the descriptor that kernels receive (wp::indexedarray_t) ------------------------------
    def desc(self):
        base = self.data.desc()
        if self._desc is None or self._desc_of is not base:
            d = IndexedArrayDesc()
            ctypes.memmove(ctypes.addressof(d), ctypes.addressof(base), ctypes.sizeof(base))
            for k in range(self.ndim):
                idx = self.indices[k]
                d.indices[k] = idx.ptr if idx is not None else 0
                d.shape[k] = self.shape[k]
            if self.data._unwritable is not None:
                return d
            self._desc, self._desc_of = d, base
        return self._desc

    # --- host reads and writes (NumPy fancy indexing) -----------------------------------------
    def _selection(self, flat=None):
        """The underlying positions, one index vector per dimension: of every element as an
        open mesh (np.ix_), or of the row-major flat positions ``flat``."""
        def idx(d):
            i = self.indices[d]
            return i.numpy().astype(np.int64) if i is not None else np.arange(self.shape[d])
        if flat is None:
            return np.ix_(*(idx(d) for d in range(self.ndim)))
        parts = np.unravel_index(flat, self.shape)
        return tuple(idx(d)[p] for d, p in enumerate(parts))

    def _storage(self, flat=None):
        """The selected elements in storage form (bfloat16 as bits), a new NumPy array."""
        if self.size == 0 and flat is None:
            return np.zeros(self.shape + element_shape(self.dtype), dtype=_np_storage(self.dtype))
        host = self.data.device.memory.to_numpy(self.data)
        try:
            return np.ascontiguousarray(host[self._selection(flat)])
        except IndexError as e:
            raise IndexError(f"an index array of this indexed array is out of range for its data "
                             f"array of shape {self.data.shape}: {e}") from None

    def _scatter(self, values, flat=None, raw=False):
        """Write ``values`` (storage form; with ``raw``, each element's bytes as one void) to the
        selected elements (all, or the flat positions)."""
        if self.size == 0:
            return
        if self.data._readonly:
            raise ValueError("cannot write an indexed array whose data array is read-only")
        memory = self.data.device.memory
        host = memory.to_numpy(self.data)
        target = host.view(np.dtype((np.void, host.dtype.itemsize))) if raw else host
        try:
            target[self._selection(flat)] = values
        except IndexError as e:
            raise IndexError(f"an index array of this indexed array is out of range for its data "
                             f"array of shape {self.data.shape}: {e}") from None
        if not self.device.is_cpu:             # a copy: write it back
            memory.assign(self.data, host)

    def _accumulate(self, values, flat):
        """Add ``values`` to the elements at the flat positions ``flat``, repeated indices adding
        up (np.add.at): the adjoint of a copy out of an indexed array (runtime/copy_adjoint.py)."""
        memory = self.data.device.memory
        host = memory.to_numpy(self.data)
        np.add.at(host, self._selection(flat), values)
        if not self.device.is_cpu:
            memory.assign(self.data, host)

    def _last_writes(self, flat):
        """Per flat position: whether a row-major copy into this array leaves its value in the
        data (the last position naming each data element)."""
        lin = np.ravel_multi_index(self._selection(flat), self.data.shape)
        _, first_of_reversed = np.unique(lin[::-1], return_index=True)
        keep = np.zeros(len(lin), dtype=bool)
        keep[len(lin) - 1 - first_of_reversed] = True
        return keep

    def numpy(self):
        """A contiguous NumPy copy of the elements (NumPy fancy indexing of the data)."""
        if _capturing[0]:
            hooks.check_readable(self.device)
        out = self._storage()
        return bfloat16_to_numpy(out) if scalar_of(self.dtype) is bfloat16 else out

    def _values(self):
        return self.contiguous()._values()

    def list(self):
        return array_values.to_list(self)

    def contiguous(self):
        """A new contiguous array holding the elements (on a tape: a differentiable copy)."""
        out = array(shape=self.shape, dtype=self.dtype, device=self.device,
                    requires_grad=self.requires_grad)
        copy_indexed(out, self)
        return out

    def to(self, device, requires_grad=None):
        if hooks.get_device(device) is self.device:
            return self
        return _clone_array(self.contiguous(), device=device, requires_grad=requires_grad)

    def fill_(self, value):
        if _capturing[0] and hooks.defer(self.device, lambda: self.fill_(value)):
            return self
        if self.size:
            self._scatter(array_values.fill_value(self.dtype, value))
        return self

    def zero_(self):
        if _capturing[0] and hooks.defer(self.device, self.zero_):
            return self
        if self.size:
            npd = _np_storage(self.dtype)
            if npd.fields is not None:      # every byte of a struct, its padding too, as wp.zeros
                self._scatter(np.zeros((), dtype=(np.void, npd.itemsize)), raw=True)
            else:
                self._scatter(np.zeros((), dtype=npd))
        return self

    def assign(self, src):
        if isinstance(src, array):
            copy_indexed(self, src)
        else:
            copy_indexed(self, array(src, dtype=self.dtype, device="cpu"))
        return self

    # --- what an indexed array does not offer (warp-lang neither) -----------------------------
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        if len(key) == self.ndim and all(isinstance(k, (int, np.integer)) for k in key):
            flat = np.ravel_multi_index(tuple(int(k) % n if n else int(k) for k, n in zip(key, self.shape)),
                                        self.shape)
            value = self._storage(np.asarray([flat]))[0]
            if scalar_of(self.dtype) is bfloat16:
                value = bfloat16_to_numpy(np.asarray(value))
            from .array import _to_element
            return _to_element(self.dtype, value)
        raise TypeError("an indexed array cannot be sliced or indexed further in Python; take "
                        ".contiguous() (a new array) or index its data array")

    def __setitem__(self, key, value):
        raise TypeError("an indexed array's elements are written by kernels, fill_() or "
                        "assign(), not by item assignment")

    def _not_supported(self, what):
        raise TypeError(f"{what} is not supported on an indexed array (it is not contiguous "
                        f"memory): take .contiguous() first")

    def reshape(self, shape):
        self._not_supported("reshape()")

    def flatten(self):
        self._not_supported("flatten()")

    def view(self, dtype):
        self._not_supported("view()")

    def transpose(self, axes=None):
        self._not_supported("transpose()")

    def cptr(self):
        self._not_supported("cptr()")

    @property
    def __array_interface__(self):
        raise AttributeError("an indexed array has no __array_interface__ (use .numpy())")

    @property
    def __cuda_array_interface__(self):
        raise AttributeError("an indexed array has no __cuda_array_interface__")

    def __dlpack__(self, *args, **kwargs):
        self._not_supported("DLPack export")

    def __matmul__(self, other):
        self._not_supported("a @ b")

    def __repr__(self):
        if self.is_annotation:
            return f"indexedarray(dtype={type_repr(self.dtype)}, ndim={self.ndim})"
        return str(self.numpy())

    __str__ = __repr__

    # --- annotations -------------------------------------------------------------------------
    def __class_getitem__(cls, params):
        """``wp.indexedarray[dtype]`` and ``wp.indexedarray[dtype, ndim]`` (int or ``Literal[n]``)."""
        a = array.__class_getitem__.__func__(array, params)
        return indexedarray(dtype=a.dtype, ndim=a.ndim)

    def type_key(self):
        return ("indexedarray", self.dtype, self.ndim)


def _np_storage(dtype):
    return np_dtype_of(dtype)


class _IndexedAlias:
    """``wp.indexedarray2d`` & co: callable like ``wp.indexedarray(..., ndim=2)``, subscriptable."""

    def __init__(self, ndim):
        self.ndim = ndim
        self.__name__ = f"indexedarray{ndim}d"

    def __call__(self, *args, **kwargs):
        kwargs["ndim"] = self.ndim
        return indexedarray(*args, **kwargs)

    def __getitem__(self, dtype):
        return indexedarray(dtype=dtype, ndim=self.ndim)


indexedarray1d, indexedarray2d, indexedarray3d, indexedarray4d = (_IndexedAlias(n) for n in (1, 2, 3, 4))


def index_with_arrays(a, key):
    """``a[key]`` where ``key`` holds index arrays (with slices and integers): the view the
    slices and integers make, seen through the index arrays (warp-lang's array.__getitem__)."""
    view_key, arrays = [], {}
    out_dim = 0
    for k in key:
        if isinstance(k, array):
            arrays[out_dim] = k
            view_key.append(slice(None))
            out_dim += 1
        elif isinstance(k, slice):
            view_key.append(k)
            out_dim += 1
        else:
            view_key.append(k)
    base = a._view(tuple(view_key))
    indices = [None] * base.ndim
    for d, k in arrays.items():
        indices[d] = k
    return indexedarray(base, indices)


def copy_indexed(dest, src, dest_offset=0, src_offset=0, count=0):
    """``wp.copy`` where either side is an indexed array: flat row-major element offsets, as
    for arrays; the values go through the host (NumPy fancy indexing). In a CPU capture the
    values move at each replay; the tape recording now records the copy now."""
    if type_repr(dest.dtype) != type_repr(src.dtype):
        raise RuntimeError(f"wp.copy between arrays of different dtypes: {type_repr(src.dtype)} "
                           f"to {type_repr(dest.dtype)}")
    count = copy_count(dest, src, dest_offset, src_offset, count)
    if count == 0:
        return
    if state.tape_writes[0]:    # a tape keeps what it needs of the old values
        hooks.before_write(dest, "wp.copy()")
    if _capturing[0]:
        hooks.note_write(dest.data if is_indexed(dest) else dest, "wp.copy()")
    if not (_capturing[0] and hooks.defer(dest.device, lambda: _move(dest, src, dest_offset, src_offset, count))):
        _move(dest, src, dest_offset, src_offset, count)
    hooks.record_copy(dest, src, dest_offset, src_offset, count)


def _move(dest, src, dest_offset, src_offset, count):
    positions = np.arange(count)
    if is_indexed(src):
        values = src._storage(src_offset + positions)
    else:
        values = _flat_storage(src)[src_offset:src_offset + count]
    if is_indexed(dest):
        dest._scatter(values, dest_offset + positions)
    else:
        tmp = array(shape=(count,), dtype=dest.dtype, device="cpu")    # storage form as it is
        tmp.device.memory.to_numpy(tmp)[...] = values
        dest.device.transfer_memory(tmp.device).copy(dest, tmp, dest_offset, 0, count)


def _flat_storage(a):
    host = a.device.memory.to_numpy(a)
    return np.ascontiguousarray(host).reshape((a.size,) + element_shape(a.dtype))


hooks.index_with_arrays = index_with_arrays   # a[idx_array] on a wp.array (hooks.py)
hooks.copy_indexed = copy_indexed
