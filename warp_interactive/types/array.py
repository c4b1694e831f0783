"""``wp.array``: n-dimensional typed arrays, and their use as kernel annotations.

``wp.array(dtype=float, ndim=2)`` with no data is an annotation; with data or a shape it is an
array. Every array is a (pointer, shape, byte strides) view that keeps its owner alive; the
bytes themselves (allocation, copies, transfers) belong to its device's memory backend
(``array.device.memory``, runtime/memory.py). This module imports nothing above ``types/``:
what it needs from higher layers is registered in hooks.py.
"""

import ctypes

import numpy as np

from ..state import state
from .. import hooks
from .arraydesc import MAX_DIMS, make_desc
from .dtypes import element_shape, infer_dtype, np_dtype_of, scalar_of, type_repr, type_size
from .generic import is_any
from .scalars import (Scalar, bfloat16, bfloat16_bits_to_float32, bfloat16_from_numpy,
                      bfloat16_to_numpy, canonical_scalar)
from . import array_marks, array_values
from .array_arith import ArrayArithmetic

_capturing = state.capturing    # graph captures in progress: the fast check on hot paths
_tape_writes = state.tape_writes   # a tape records or waits for backward (runtime/tape_keep.py)


def _device(d):
    return hooks.get_device(d)


def _norm_shape(shape):
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if len(shape) > MAX_DIMS:
        raise ValueError(f"arrays have at most {MAX_DIMS} dimensions, got shape {shape}")
    if any(s < 0 for s in shape):
        raise ValueError(f"Array shapes must be non-negative, got {shape}")
    return shape


def contiguous_strides(shape, itemsize):
    strides, acc = [], itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def copy_count(dest, src, dest_offset, src_offset, count):
    """The number of elements ``wp.copy`` moves (all when ``count`` is 0), checked in range."""
    count = count or min(src.size - src_offset, dest.size - dest_offset)
    if src_offset + count > src.size or dest_offset + count > dest.size:
        raise ValueError(
            f"wp.copy out of range: src size {src.size} offset {src_offset}, dest size {dest.size} "
            f"offset {dest_offset}, count {count}")
    return count


class array(ArrayArithmetic):
    """An n-d array of ``dtype`` elements on a device (or, without data, a kernel annotation)."""

    pinned = False
    _is_indexed = False     # wp.indexedarray (types/indexedarray.py)
    _retain_grad = False    # for instances made without __init__ (views, interop wrappers)
    _readonly = False       # the memory is read-only (a read-only NumPy array, bytes, mmap)
    _unwritable = None      # why kernels must not write it (read-only, or stride 0), else None
    _is_read = False        # read by a launch on a tape (wp.config.verify_autograd_array_access)
    mark_init, mark_read, mark_write = array_marks.mark_init, array_marks.mark_read, array_marks.mark_write

    def __init__(self, data=None, dtype=None, shape=None, strides=None, length=None, ptr=None,
                 capacity=None, device=None, copy=True, owner=False, ndim=None, grad=None,
                 requires_grad=False, pinned=False, n=None, retain_grad=False, deleter=None):
        self.dtype = canonical_scalar(dtype) if dtype is not None else None
        self._retain_grad = bool(retain_grad)
        shape = _norm_shape(shape if shape is not None else (length if length is not None else n))
        self._grad = None
        self._requires_grad = bool(requires_grad)
        if data is None and shape is None and ptr is None:
            self._init_annotation(ndim)
            return
        self.device = _device(device)
        self.pinned = bool(pinned) and self.device.is_cpu
        if is_any(self.dtype):      # wp.array(data, dtype=Any): the data's own type
            self.dtype = None
        if retain_grad and not requires_grad and grad is None:
            raise ValueError("retain_grad=True needs requires_grad=True (there is no gradient to keep)")
        if deleter is not None and (ptr is None or data is not None):
            raise ValueError("wp.array(deleter=...) frees memory given with ptr=: pass ptr= too "
                             "(arrays allocated here free their memory themselves)")
        if data is not None:
            self._init_from_data(data, copy, shape)
        elif ptr is not None:
            self._init_from_ptr(ptr, shape, strides, owner)
            self._capacity = None if capacity is None else int(capacity)
            if deleter is not None:
                self.deleter = deleter
        else:
            self._allocate(shape)
        if requires_grad and grad is None:
            self._alloc_grad()
        elif grad is not None:
            self.grad = grad

    # --- construction paths -----------------------------------------------------------------
    def _init_annotation(self, ndim):
        self.ndim = ndim or 1
        if self.dtype is None:
            self.dtype = canonical_scalar(float)
        self.shape, self.strides, self.ptr, self.device, self._ref = None, None, None, None, None
        self._desc = None

    def _set_view(self, ptr, shape, strides, ref):
        self.ptr, self.shape, self.strides, self._ref = ptr, tuple(shape), tuple(strides), ref
        self.ndim = len(self.shape)
        self._desc = None
        self._set_writability(_is_readonly(ref))

    def _set_writability(self, readonly):
        """Remember whether kernels may write this memory (launches refuse it otherwise)."""
        self._readonly = bool(readonly)
        if readonly:
            self._unwritable = "read-only memory"
        elif any(s == 0 and n > 1 for s, n in zip(self.strides, self.shape)):
            self._unwritable = f"a stride-0 (broadcast) view (strides {self.strides}): its elements share memory"
        else:
            self._unwritable = None

    def _allocate(self, shape):
        if self.dtype is None:
            self.dtype = canonical_scalar(float)
        self.device.memory.allocate(self, shape)

    def _init_from_ptr(self, ptr, shape, strides, owner):
        if self.dtype is None:
            raise TypeError("wp.array(ptr=...) needs dtype=")
        strides = tuple(int(s) for s in strides) if strides is not None else \
            contiguous_strides(shape, type_size(self.dtype))
        if len(strides) != len(shape):
            raise ValueError(f"Invalid number of strides, expected {len(shape)} strides, got {len(strides)}")
        self._set_view(int(ptr), shape, strides, None)

    def _init_from_data(self, data, copy, shape=None):
        if not isinstance(data, array) and hasattr(data, "__cuda_array_interface__") and \
                (not self.device.reads_host_memory or not hasattr(data, "__array_interface__")):
            # an object with both interfaces gives a CPU array through its host one (as warp-lang)
            return hooks.from_cuda_interface(self, data, copy)
        if isinstance(data, array):
            self.dtype = self.dtype or data.dtype
            src = to_storage(self.dtype, data.numpy())
        else:
            src = self._numpy_from_data(data)
        src = self._check_element_shape(src, shape)
        ndim = src.ndim - len(element_shape(self.dtype))
        if not copy and self._is_zero_copy_ok(src):
            self._set_view(src.ctypes.data, src.shape[:ndim], src.strides[:ndim], src)
            return
        self.device.memory.init_from_host(self, src, ndim)

    def _numpy_from_data(self, data):
        if self.dtype is not None and hasattr(self.dtype, "_np_struct_dtype"):
            if isinstance(data, np.ndarray) and data.dtype.fields is not None:
                return data.astype(self.dtype._np_struct_dtype, copy=False)
            return self.dtype._to_numpy_records(data)
        if isinstance(data, (list, tuple)) and len(data) == 0 and self.dtype is not None:
            return np.zeros((0,) + element_shape(self.dtype), dtype=np_dtype_of(self.dtype))
        if isinstance(data, (list, tuple)) and self.dtype is not None:
            values = [np.asarray(x) if hasattr(x, "numpy_view") else x for x in data]
            if scalar_of(self.dtype) is bfloat16:   # numbers, never bits
                return bfloat16_from_numpy(np.asarray(values, dtype=np.float32))
            return np.asarray(values, dtype=np_dtype_of(self.dtype))
        src = np.asarray(data)
        if self.dtype is None:
            self.dtype = infer_dtype(src)
        return to_storage(self.dtype, src)

    def _check_element_shape(self, src, shape=None):
        """``src`` shaped (*array shape, *element shape): given ``shape=``, reshaped to it; else
        flat data is regrouped as the reference does (inner dimensions of length 1 dropped, an
        inner dimension that is a multiple of the element's size split), so
        ``wp.array(np.arange(7.), dtype=wp.transformf)`` has shape (1,)."""
        es = element_shape(self.dtype)
        if shape is not None:
            try:
                src = src.reshape(tuple(shape) + es)
            except ValueError:
                raise ValueError(f"the data's shape {tuple(src.shape)} cannot be reshaped to "
                                 f"shape {tuple(shape)} of dtype {type_repr(self.dtype)}") from None
        elif es:
            src = _regroup(src, es, type_repr(self.dtype))
        if src.ndim - len(es) > MAX_DIMS:
            raise ValueError(f"arrays have at most {MAX_DIMS} dimensions, got data of shape {src.shape}")
        return src

    def _is_zero_copy_ok(self, src):
        return src.dtype == np_dtype_of(self.dtype) and self.device.is_cpu and not self.pinned

    def _alloc_grad(self):
        self._grad = array(dtype=self.dtype, shape=self.shape, device=self.device)
        self._desc = None

    # --- properties -----------------------------------------------------------------------------
    @property
    def is_annotation(self):
        return self.shape is None

    @property
    def size(self):
        return int(np.prod(self.shape)) if self.shape else 0

    @property
    def capacity(self):
        """The bytes of memory behind the array: those its allocation reached (strides=,
        ptr= with capacity=), else its elements' bytes."""
        given = getattr(self, "_capacity", None)
        return given if given is not None else self.size * type_size(self.dtype)

    @property
    def deleter(self):
        """What frees this array's memory when the last array viewing it goes, called as
        ``deleter(ptr, capacity)`` (warp-lang's signature): the ``deleter=`` given with ``ptr=``.
        None for memory the array does not free that way (views, foreign buffers, and arrays
        allocated here, whose buffers are freed by reference counting). Setting None gives the
        memory up: nothing frees it then."""
        owner = self.__dict__.get("_deleter_owner")
        return owner.fn if owner is not None else None

    @deleter.setter
    def deleter(self, fn):
        if fn is not None and not callable(fn):
            raise TypeError(f"array.deleter must be a callable deleter(ptr, size) or None, "
                            f"got {type(fn).__name__}")
        owner = self.__dict__.get("_deleter_owner")
        if owner is not None:
            owner.fn = fn
        elif fn is not None:
            self._deleter_owner = self._ref = _Deleter(fn, self.ptr, self.capacity, self._ref)

    @property
    def memory_kind(self):
        """The kind of memory behind this array (``wp.MemoryKind``); indexed arrays have none."""
        if getattr(self, "indices", None) is not None or type(self).__name__ == "indexedarray":
            raise AttributeError("an indexed array has no memory_kind (its data array has)")
        from .memory_kind import memory_kind_of
        return memory_kind_of(self)

    @property
    def is_contiguous(self):
        return self.strides == contiguous_strides(self.shape, type_size(self.dtype))

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._requires_grad = bool(value)
        if value and self._grad is None:
            self._alloc_grad()
        if not value and self._retain_grad:     # nothing left to retain
            self.retain_grad = False

    @property
    def retain_grad(self):
        """Keep this array's gradient through stores in the reverse pass (by default a store
        consumes it: only the last write of an element propagates). For arrays written once."""
        return self._retain_grad

    @retain_grad.setter
    def retain_grad(self, value):
        if value and not self._requires_grad:
            raise ValueError("retain_grad=True needs requires_grad=True (there is no gradient to keep)")
        self._retain_grad = bool(value)
        self._desc = None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, g):
        if g is not None and not isinstance(g, array):
            g = array(g, dtype=self.dtype, device=self.device)
        if g is not None and g.shape != self.shape:
            raise ValueError(f"grad shape {g.shape} does not match the array's shape {self.shape}")
        self._grad = g
        self._requires_grad = g is not None or self._requires_grad
        self._desc = None

    def __len__(self):
        return self.shape[0]

    # --- the descriptor that kernels receive --------------------------------------------------
    def desc(self):
        """The ``array_t`` descriptor (cached; rebuilt when grad changes)."""
        if self._desc is None:
            g = self._grad.ptr if self._grad is not None else 0
            d = make_desc(self.ptr, g, self.shape, self.strides, self._retain_grad)
            if self._unwritable is not None:
                return d   # never cached: the fast launch paths then decline it (args.py checks)
            self._desc = d
        return self._desc

    # --- NumPy interop ------------------------------------------------------------------------
    @property
    def __array_interface__(self):
        if not self.device.is_cpu:
            raise TypeError(f"an array on {self.device} has no __array_interface__: use .numpy()")
        es = element_shape(self.dtype)
        npd = np_dtype_of(self.dtype)
        inner = contiguous_strides(es, npd.itemsize) if es else ()
        iface = {"data": (self.ptr or 0, self._readonly), "shape": self.shape + es,
                 "strides": self.strides + inner, "typestr": npd.str, "version": 3}
        if npd.fields is not None:
            iface["descr"] = npd.descr
        return iface

    # --- other frameworks (warp_interactive.interop) ---------------------------------------------
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return hooks.dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return hooks.dlpack_device(self)

    def numpy(self):
        """A NumPy view of the data (zero-copy on the CPU; a copy of a CUDA array). bfloat16
        data come as ml_dtypes.bfloat16 when that package is installed, else as their uint16 bits."""
        if _capturing[0]:
            hooks.check_readable(self.device)
        out = self.device.memory.to_numpy(self)
        return bfloat16_to_numpy(out) if scalar_of(self.dtype) is bfloat16 else out

    def list(self):
        """The elements in row-major order, one Python value each (int/float/bool, wp vectors
        and matrices, struct instances), as the reference."""
        return array_values.to_list(self)

    def _values(self):
        """numpy(), with bfloat16 data decoded to float32 (NumPy has no bfloat16 of its own)."""
        if scalar_of(self.dtype) is bfloat16:
            return bfloat16_bits_to_float32(self.device.memory.to_numpy(self))
        return self.numpy()

    def cptr(self):
        """A ctypes pointer to the first element (host memory), typed by the element's C type."""
        if not self.device.is_cpu:
            raise RuntimeError(f"cptr() reads host memory: the array is on {self.device}")
        ctype = getattr(self.dtype, "_ctype", None) or self.dtype
        return ctypes.cast(self.ptr, ctypes.POINTER(ctype))

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    # --- views -------------------------------------------------------------------------------
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        if len(key) == self.ndim and all(isinstance(k, (int, np.integer)) for k in key):
            value = self._values()[key]
            return _to_element(self.dtype, value)
        if any(isinstance(k, array) for k in key):      # index arrays: a wp.indexedarray
            if len(key) > self.ndim:
                raise IndexError(f"too many indices ({len(key)}) for an array of {self.ndim} dimensions")
            return hooks.index_with_arrays(self, key)
        return self._view(key)

    def __setitem__(self, key, value):
        if scalar_of(self.dtype) is bfloat16:
            value = _bf16_values(value)
        if _tape_writes[0]:
            hooks.before_write(self, "an item assignment a[...] = v")
        self.device.memory.set_item(self, key, value)

    @property
    def __cuda_array_interface__(self):
        if self.device is None:
            raise AttributeError("only arrays on CUDA devices have a __cuda_array_interface__")
        return self.device.memory.interface_of(self)   # AttributeError on the CPU

    def _view(self, key):
        if len(key) > self.ndim:
            raise IndexError(f"too many indices ({len(key)}) for an array of {self.ndim} dimensions")
        ptr, shape, strides = self.ptr, [], []
        for axis, k in enumerate(key):
            n, st = self.shape[axis], self.strides[axis]
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                ptr += start * st
                shape.append(max(0, (stop - start + (step - (1 if step > 0 else -1))) // step))
                strides.append(st * step)
            else:
                k = int(k) + (n if int(k) < 0 else 0)
                if not 0 <= k < n:
                    raise IndexError(f"index {k} is out of bounds for axis {axis} of size {n}")
                ptr += k * st
        shape += list(self.shape[len(key):])
        strides += list(self.strides[len(key):])
        return self._derived(ptr, shape, strides, lambda g: g._view(key))

    def _derived(self, ptr, shape, strides, grad_fn):
        out = array.__new__(array)
        if self._is_read:     # a view starts with its parent's read flag (array_marks.py)
            out._is_read = True
        out.dtype, out.device, out._requires_grad = self.dtype, self.device, self._requires_grad
        out._set_view(ptr, shape, strides, self)
        out._grad = grad_fn(self._grad) if self._grad is not None else None
        return out

    def reshape(self, shape):
        shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
        if shape.count(-1) == 1:
            known = int(np.prod([s for s in shape if s != -1]))
            shape = tuple(self.size // max(known, 1) if s == -1 else s for s in shape)
        shape = _norm_shape(shape)
        if int(np.prod(shape)) != self.size:
            raise RuntimeError(f"cannot reshape array of shape {self.shape} (size {self.size}) into "
                               f"shape {shape} (size {int(np.prod(shape))})")
        if not self.is_contiguous:
            raise RuntimeError("reshape needs a contiguous array: use .contiguous() first")
        strides = contiguous_strides(shape, type_size(self.dtype))
        return self._derived(self.ptr, shape, strides, lambda g: g.reshape(shape))

    def flatten(self):
        return self.reshape((self.size,))

    def view(self, dtype):
        """The same memory read as elements of ``dtype`` (see types/array_values.view_as)."""
        dtype = canonical_scalar(dtype)
        shape, strides = array_values.view_as(self, dtype)
        out = self._derived(self.ptr, shape, strides, lambda g: g.view(dtype))
        out.dtype = dtype
        return out

    def transpose(self, axes=None):
        axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"axes {axes} are not a permutation of the array's {self.ndim} dimensions")
        shape = [self.shape[a] for a in axes]
        strides = [self.strides[a] for a in axes]
        return self._derived(self.ptr, shape, strides, lambda g: g.transpose(axes))

    def __matmul__(self, other):
        """``a @ b``: a new array, by ``wp.matmul`` (2-d, or 3-d batched; on the tape)."""
        return hooks.matmul(self, other)

    def contiguous(self):
        return self if self.is_contiguous else clone(self)

    # --- data movement -----------------------------------------------------------------------
    def to(self, device, requires_grad=None):
        device = _device(device)
        if device is self.device:
            return self
        return clone(self, device=device, requires_grad=requires_grad)

    def fill_(self, value):
        if _tape_writes[0]:     # a tape keeps what it needs of the old values (runtime/tape_keep.py)
            hooks.before_write(self, "fill_()", cut=True)
        value = array_values.fill_value(self.dtype, value)
        if _capturing[0]:
            hooks.note_write(self, "fill_()")
        if _capturing[0] and hooks.defer(self.device, lambda: self.device.memory.fill(self, value)):
            return self
        self.device.memory.fill(self, value)
        return self

    def zero_(self):
        if _tape_writes[0]:
            hooks.before_write(self, "zero_()", cut=True)
        if _capturing[0]:
            hooks.note_write(self, "zero_()")
        if _capturing[0] and hooks.defer(self.device, lambda: self.device.memory.zero(self)):
            return self
        self.device.memory.zero(self)
        return self

    def assign(self, src):
        """Copy ``src`` (a wp array, NumPy array or list) into this array. On a tape it is a
        differentiable copy (``wp.copy``); values that are not a wp array are constants there."""
        if isinstance(src, array) and src.dtype is self.dtype and src.size == self.size and self.size:
            copy(self, src, count=self.size)
            return self
        if _tape_writes[0]:
            hooks.before_write(self, "assign()")
        write_values(self, src.numpy() if isinstance(src, array) else src)
        hooks.record_copy(self, src if isinstance(src, array) else None, 0, 0, self.size)
        return self

    def __repr__(self):
        if self.is_annotation:
            return f"array(dtype={type_repr(self.dtype)}, ndim={self.ndim})"
        return (f"array(shape={self.shape}, dtype={type_repr(self.dtype)}, device={self.device})\n"
                f"{self.numpy()!s}")

    __str__ = __repr__

    def _repr_html_(self):
        """Notebook display: statistics, one page of values, a heat-map for 2-d scalars."""
        return hooks.html_view("array", self)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self._repr_html_(), "text/plain": repr(self)}

    # --- annotations ----------------------------------------------------------------------------
    def __class_getitem__(cls, params):
        """``wp.array[dtype]`` and ``wp.array[dtype, ndim]`` (ndim an int or ``Literal[n]``)."""
        if not isinstance(params, tuple):
            return array(dtype=params)
        if len(params) != 2:
            raise TypeError(f"wp.array[...] takes a dtype and optionally ndim, got {len(params)} parameters")
        dtype, ndim = params
        args = getattr(ndim, "__args__", None)          # typing.Literal[2] -> 2
        if args is not None and len(args) == 1:
            ndim = args[0]
        if not isinstance(ndim, int) or isinstance(ndim, bool) or not 1 <= ndim <= 4:
            raise TypeError(f"wp.array[dtype, ndim]: ndim must be an int from 1 to 4, got {ndim!r}")
        return array(dtype=dtype, ndim=ndim)

    def type_key(self):
        """What makes two annotations the same kernel type."""
        return ("array", self.dtype, self.ndim)


class _Deleter:
    """Owns memory handed over with ``wp.array(ptr=..., deleter=fn)``: held by the array (and,
    through it, by its views), it calls ``fn(ptr, size)`` once when the last of them goes."""

    def __init__(self, fn, ptr, size, keep=None):
        self.fn, self.ptr, self.size, self.keep = fn, ptr, size, keep

    def __del__(self):
        fn, self.fn = self.fn, None
        if fn is not None:
            fn(self.ptr, self.size)


def _is_readonly(ref):
    """Whether the owner of a view's memory forbids writing it."""
    if isinstance(ref, np.ndarray):
        return not ref.flags.writeable
    return isinstance(ref, array) and ref._readonly


def _regroup(src, es, name):
    """Flat or partly flat data for elements of shape ``es`` (see _check_element_shape)."""
    def fits(a):
        return a.ndim >= len(es) and tuple(a.shape[a.ndim - len(es):]) == es
    while not fits(src) and src.ndim > 1 and src.shape[-1] == 1:
        src = src.reshape(src.shape[:-1])
    if not fits(src):
        n = int(np.prod(es))
        last = src.shape[-1] if src.ndim else 0
        if last == 0 or last % n:
            raise ValueError(f"the data's shape {tuple(src.shape)} does not fit dtype {name}: its "
                             f"inner dimensions must be {es}, or a multiple of {n} values")
        src = src.reshape(src.shape[:-1] + ((last // n,) if last != n else ()) + es)
    return src.reshape((1,) + es) if src.ndim == len(es) else src


def _to_element(dtype, value):
    if hasattr(dtype, "numpy_view"):
        return dtype(value)
    if hasattr(dtype, "_from_record"):
        return dtype._from_record(value)
    return value.item() if hasattr(value, "item") else value


class _ArrayAlias:
    """``wp.array2d`` & co: callable like ``wp.array(..., ndim=2)`` and subscriptable."""

    def __init__(self, ndim):
        self.ndim = ndim
        self.__name__ = f"array{ndim}d"

    def __call__(self, *args, **kwargs):
        kwargs.setdefault("ndim", self.ndim)
        return array(*args, **kwargs)

    def __getitem__(self, dtype):
        return array(dtype=dtype, ndim=self.ndim)


array1d, array2d, array3d, array4d = (_ArrayAlias(n) for n in (1, 2, 3, 4))


def to_storage(dtype, src):
    """NumPy data ``src`` in ``dtype``'s storage dtype (bfloat16: bits, see bfloat16_from_numpy)."""
    if scalar_of(dtype) is bfloat16:
        return bfloat16_from_numpy(src)
    npd = np_dtype_of(dtype)
    return src if src.dtype == npd else src.astype(npd)


def _bf16_values(value):
    """A value (or values) written into a bfloat16 array, as bits: numbers by value; a bfloat16
    array's own ``numpy()`` output (bits or ml_dtypes.bfloat16) as it is."""
    if isinstance(value, Scalar):
        value = value.value
    return bfloat16_from_numpy(np.asarray(value))


def write_values(dest, values):
    """Write ``values`` (array-like) into ``dest``, unrecorded (for steps that record themselves)."""
    if isinstance(values, (list, tuple)) and scalar_of(dest.dtype) is bfloat16:
        values = np.asarray(values, dtype=np.float32)   # numbers, never bits
    dest.device.memory.assign(dest, to_storage(dest.dtype, np.asarray(values)))


def clone(src, device=None, requires_grad=None, pinned=None, retain_grad=False):
    rg = src.requires_grad if requires_grad is None else requires_grad
    target = _device(device or src.device)
    if src._is_indexed:     # a contiguous copy of its elements, then moved
        src = src.contiguous()
        if target is src.device and retain_grad == src.retain_grad and rg == src.requires_grad:
            return src
    out = array(shape=src.shape, dtype=src.dtype, device=target, requires_grad=rg)
    target.transfer_memory(src.device).copy(out, src, 0, 0, src.size)
    hooks.record_copy(out, src, 0, 0, src.size)     # differentiable on a tape, as a copy
    out.retain_grad = retain_grad
    return out


def copy(dest, src, dest_offset=0, src_offset=0, count=0, stream=None):
    """Copy ``count`` elements (all when 0) from ``src`` to ``dest``, at flat element offsets;
    ordered on ``stream`` when given (a stream of one of the two arrays' devices), else on the
    current stream of the GPU involved."""
    if stream is not None:
        return _copy_on_stream(stream, dest, src, dest_offset, src_offset, count)
    if dest._is_indexed or src._is_indexed:
        return hooks.copy_indexed(dest, src, dest_offset, src_offset, count)
    if _tape_writes[0]:
        hooks.before_write(dest, "wp.copy()")
    if _capturing[0]:
        hooks.note_write(dest, "wp.copy()")
    if _capturing[0] and hooks.defer(dest.device, lambda: _copy_memory(dest, src, dest_offset, src_offset, count)):
        # the tape recording now records it (a replay records nothing: a tape then recording
        # there is not the one the capture's backward pass belongs to)
        hooks.record_copy(dest, src, dest_offset, src_offset, copy_count(dest, src, dest_offset, src_offset, count))
        return
    count = _copy_memory(dest, src, dest_offset, src_offset, count)
    hooks.record_copy(dest, src, dest_offset, src_offset, count)


def _copy_on_stream(stream, dest, src, dest_offset, src_offset, count):
    """wp.copy with its ``stream``: the stream's device has it as its current stream meanwhile."""
    device = stream.device
    if device is not dest.device and device is not src.device:
        raise ValueError(f"wp.copy: the stream is on {device}, but the copy is from {src.device} to "
                         f"{dest.device}")
    saved = device.stream
    device.stream = stream
    try:
        copy(dest, src, dest_offset, src_offset, count)
    finally:
        device.stream = saved


def _copy_memory(dest, src, dest_offset, src_offset, count):
    return dest.device.transfer_memory(src.device).copy(dest, src, dest_offset, src_offset, count)


def from_numpy(arr, dtype=None, shape=None, device=None, requires_grad=False, retain_grad=False):
    a = np.asarray(arr)
    if dtype is None:
        dtype = infer_dtype(a)
    out = array(a, dtype=dtype, device=device, requires_grad=requires_grad, retain_grad=retain_grad)
    return out.reshape(shape) if shape is not None else out


