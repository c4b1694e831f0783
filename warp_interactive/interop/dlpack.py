"""DLPack: zero-copy exchange with any framework that speaks it (Python Array API standard).

Import: ``from_dlpack(obj)`` takes an object with ``__dlpack__``/``__dlpack_device__`` or a
capsule made by a framework's ``to_dlpack``; the capsule's tensor is wrapped as a wp array whose
owner calls the producer's deleter when the array goes away.
Export: ``to_dlpack(a)`` and ``array.__dlpack__`` build a ``DLManagedTensor`` (or the versioned
form the consumer asks for) in ctypes memory that keeps the wp array alive until the consumer
calls the deleter (or the capsule dies unconsumed).
"""

import ctypes

from ..types import scalars as sc
from ..types.array import contiguous_strides
from ..types.dtypes import element_shape, scalar_of, type_repr
from .foreign import element_layout, wrap

# device types (dlpack.h DLDeviceType)
kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13
# dtype codes (DLDataTypeCode)
kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLComplex, kDLBool = 0, 1, 2, 4, 5, 6
FLAG_READ_ONLY, FLAG_IS_COPIED = 1, 2


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", DELETER), ("flags", ctypes.c_uint64),
                                     ("dl_tensor", DLTensor)]

# capsule names: module constants, so the C strings outlive every capsule that points at them
_NAME, _USED = b"dltensor", b"used_dltensor"
_NAME_V, _USED_V = b"dltensor_versioned", b"used_dltensor_versioned"

# Own prototypes of the capsule API: ctypes.pythonapi's function objects are shared process-wide
# and other libraries set their argtypes to their own types.
_api = ctypes.pythonapi
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_IsValid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", _api))
_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, CAPSULE_DESTRUCTOR)(
    ("PyCapsule_New", _api))
_IsValidRaw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_GetPointerRaw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))


# --- dtypes ----------------------------------------------------------------------------------
_CODES = {"int": kDLInt, "uint": kDLUInt, "float": kDLFloat, "bool": kDLBool}


def _code(t):
    return kDLBfloat if t is sc.bfloat16 else _CODES[t._kind]


_FROM_CODE = {(_code(t), t.size * 8): t for t in sc.scalar_types}
_CODE_NAMES = {kDLInt: "int", kDLUInt: "uint", kDLFloat: "float", kDLBfloat: "bfloat",
               kDLComplex: "complex", kDLBool: "bool"}


def dtype_to_dl(scalar):
    return DLDataType(_code(scalar), scalar.size * 8, 1)


def dtype_from_dl(dt):
    t = _FROM_CODE.get((dt.code, dt.bits)) if dt.lanes == 1 else None
    if t is None:
        name = f"{_CODE_NAMES.get(dt.code, f'code {dt.code}')}{dt.bits}"
        lanes = f"x{dt.lanes}" if dt.lanes != 1 else ""
        raise TypeError(f"DLPack tensor of element type {name}{lanes} has no warp_interactive "
                        "equivalent (supported: bool, int8..int64, uint8..uint64, float16/32/64, bfloat16)")
    return t


# --- devices ---------------------------------------------------------------------------------
def device_from_dl(device_type, device_id):
    from ..runtime.device import get_device
    if device_type in (kDLCPU, kDLCUDAHost):
        return get_device("cpu")
    if device_type in (kDLCUDA, kDLCUDAManaged):
        return get_device(f"cuda:{device_id}")
    raise TypeError(f"DLPack device type {device_type} is not supported (CPU and CUDA are)")


def device_to_dl(device):
    return (kDLCPU, 0) if device.is_cpu else (kDLCUDA, max(device.ordinal, 0))


# --- import ------------------------------------------------------------------------------------
class _ImportedTensor:
    """Owns a consumed capsule's managed tensor: calls the producer's deleter when freed."""

    def __init__(self, managed_ptr, versioned, capsule):
        self.ptr, self.versioned, self.capsule = managed_ptr, versioned, capsule

    def __del__(self):
        st = (DLManagedTensorVersioned if self.versioned else DLManagedTensor).from_address(self.ptr)
        if st.deleter:
            st.deleter(self.ptr)


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def _consume(capsule):
    """(managed tensor pointer, versioned?) of a fresh capsule, renamed 'used_...'."""
    if not _is_capsule(capsule):   # a producer's __dlpack__ returned something else
        raise TypeError(f"Expected a valid DLPack capsule, got {type(capsule).__name__}")
    for name, used, versioned in ((_NAME_V, _USED_V, True), (_NAME, _USED, False)):
        if _IsValid(capsule, name):
            ptr = _GetPointer(capsule, name)
            _SetName(capsule, used)
            return ptr, versioned
    raise ValueError("the DLPack capsule was already consumed, or is not a DLPack capsule "
                     "(a capsule can be imported only once)")


def _producer_stream(obj):
    """The stream to ask a CUDA producer to order its work before (Array API semantics).
    A device we cannot address is refused before the producer exports anything."""
    if not hasattr(obj, "__dlpack_device__"):
        return None
    dev_type, dev_id = obj.__dlpack_device__()
    if int(dev_type) not in (kDLCPU, kDLCUDAHost, kDLCUDA, kDLCUDAManaged):
        raise TypeError(f"Unsupported source device for DLPack: device_type={dev_type}, "
                        f"device_id={dev_id} (CPU and CUDA devices are supported)")
    if int(dev_type) not in (kDLCUDA, kDLCUDAManaged):
        return None
    from .foreign import _stream_handle
    h = _stream_handle(device_from_dl(int(dev_type), int(dev_id)))
    return h if h else 1   # 1: the legacy default stream, which orders with blocking streams


def _capsule_of(obj):
    stream = _producer_stream(obj)
    try:
        return obj.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:   # a producer of the v2022.12 standard: no max_version
        return obj.__dlpack__(stream=stream)


def from_dlpack(source, dtype=None):
    """A wp array sharing the memory of ``source`` (zero-copy): an object with ``__dlpack__``
    (a PyTorch tensor, JAX array, NumPy array, Paddle tensor...) or a DLPack capsule.

    ``dtype`` views the data as a vector/matrix type (its inner dimensions become elements)."""
    if _is_capsule(source):
        capsule = source
    elif hasattr(source, "__dlpack__"):
        capsule = _capsule_of(source)
    else:
        raise TypeError(f"wp.from_dlpack expects an object with __dlpack__ or a DLPack capsule, "
                        f"got {type(source).__name__}")
    ptr, versioned = _consume(capsule)
    owner = _ImportedTensor(ptr, versioned, capsule)
    st = (DLManagedTensorVersioned if versioned else DLManagedTensor).from_address(ptr)
    t = st.dl_tensor
    scalar = dtype_from_dl(t.dtype)
    device = device_from_dl(t.device.device_type, t.device.device_id)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides and t.ndim:
        strides = tuple(t.strides[i] * scalar.size for i in range(t.ndim))
    else:
        strides = contiguous_strides(shape, scalar.size)
    label = f"DLPack {_CODE_NAMES[t.dtype.code]}{t.dtype.bits}"
    dtype, shape, strides = element_layout(shape, strides, scalar, dtype, "the DLPack tensor", label)
    data = (t.data or 0) + t.byte_offset
    return wrap(data, shape, strides, dtype, device, owner)


# --- export ------------------------------------------------------------------------------------
_live = {}   # address of a managed tensor -> the _Exported that owns it


class _Exported:
    """The ctypes memory behind one exported capsule; holds the wp array alive."""

    def __init__(self, a, versioned, flags=0):
        scalar = scalar_of(a.dtype)
        es = element_shape(a.dtype)
        shape = tuple(a.shape) + es
        inner = contiguous_strides(es, scalar.size) if es else ()
        strides = tuple(s // scalar.size for s in tuple(a.strides) + inner)
        if any(s * scalar.size != b for s, b in zip(strides, tuple(a.strides) + inner)):
            raise BufferError("DLPack needs strides that are whole multiples of the element size")
        self.array = a
        self.shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self.strides = (ctypes.c_int64 * max(len(shape), 1))(*strides)
        self.managed = (DLManagedTensorVersioned if versioned else DLManagedTensor)()
        m = self.managed
        t = m.dl_tensor
        t.data = a.ptr or None
        t.device = DLDevice(*device_to_dl(a.device))
        t.ndim = len(shape)
        t.dtype = dtype_to_dl(scalar)
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = 0
        m.deleter = _DELETER
        if versioned:
            m.version = DLPackVersion(1, 0)
            m.flags = flags
        self.address = ctypes.addressof(m)


def _release(address, live=_live):
    # ``live`` is bound here: a consumer may free its view while the interpreter shuts down,
    # after this module's globals were cleared
    live.pop(address, None)


@DELETER
def _deleter(address, release=_release):
    release(address)


@CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule_ptr, names=(_NAME, _NAME_V), is_valid=_IsValidRaw,
                        get=_GetPointerRaw, release=_release):
    # called when a capsule dies; free its tensor only if nobody consumed it
    for name in names:
        if is_valid(capsule_ptr, name):
            release(get(capsule_ptr, name))


_DELETER = _deleter
# The C thunks outlive this module: a NumPy view of an export can be freed at interpreter exit,
# after this module's dict was cleared, and must still find its deleter (never freed on purpose).
for _thunk in (_deleter, _capsule_destructor):
    _api.Py_IncRef(ctypes.py_object(_thunk))


def to_dlpack(a):
    """A DLPack capsule of wp array ``a`` (zero-copy), for a framework's ``from_dlpack``.

    No stream synchronisation is done: the capsule form is for cases where ordering is already
    ensured (use the framework's ``from_dlpack(a)`` on the array itself otherwise)."""
    from ..types.array import array
    if not isinstance(a, array) or a.is_annotation:
        raise TypeError(f"wp.to_dlpack expects a wp.array, got {type(a).__name__}")
    return _capsule(a, False)


def _capsule(a, versioned, flags=0):
    if hasattr(a.dtype, "_np_struct_dtype"):
        raise TypeError(f"arrays of struct {type_repr(a.dtype)} cannot be shared through DLPack")
    ex = _Exported(a, versioned, flags)
    _live[ex.address] = ex
    return _New(ex.address, _NAME_V if versioned else _NAME, _capsule_destructor)


def dlpack_device(a):
    return device_to_dl(a.device)


def array_dlpack(a, stream=None, max_version=None, dl_device=None, copy=None):
    """``wp.array.__dlpack__`` (Array API standard): orders the consumer's ``stream`` after
    the array's pending work on CUDA, honours ``dl_device`` and ``copy``."""
    if dl_device is not None and tuple(int(x) for x in dl_device) != device_to_dl(a.device):
        raise BufferError(f"the array is on {a.device}; exporting it to DLPack device "
                          f"{tuple(dl_device)} would need a copy across devices")
    if copy:
        from ..types.array import clone
        a = clone(a)
        if max_version is not None and tuple(max_version)[0] >= 1:
            return _capsule(a, True, FLAG_IS_COPIED)
    if device_to_dl(a.device)[0] == kDLCUDA:     # DLPack's stream rules are per device type
        _order_consumer_stream(a.device, stream)
    elif stream is not None:
        raise BufferError(f"stream must be None for a CPU array, got {stream!r}")
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    return _capsule(a, versioned)


def _order_consumer_stream(device, stream):
    """The consumer will use the data on ``stream``: make our pending work finish first."""
    if stream == -1:   # the consumer asked for no synchronisation
        return
    from .foreign import _stream_handle
    if stream is not None and _stream_handle(device) == stream:
        return   # same stream: already ordered
    from ..runtime.utils import synchronize_device
    synchronize_device(device)

