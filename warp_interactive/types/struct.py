"""``@wp.struct``: user-defined record types passed to kernels and stored in arrays."""

import ctypes
import hashlib
import sys

import numpy as np

from .array import array
from .annotation_text import resolve_annotation
from .arraydesc import ArrayDesc, IndexedArrayDesc
from .composite import is_composite
from .dtypes import type_repr
from .indexedarray import indexedarray, is_indexed
from .scalars import bfloat16, canonical_scalar, float16, int32, is_scalar, to_storage


class StructInstance:
    """Base class of a struct's Python-scope instances; fields are plain attributes."""

    _wp_struct_ = None  # the StructType describing this class

    def __init__(self, **fields):
        st = self._wp_struct_
        for name, t in st.fields.items():
            object.__setattr__(self, name, _default_value(t))
        for name, value in fields.items():
            setattr(self, name, value)

    def __setattr__(self, name, value):
        st = self._wp_struct_
        if name not in st.fields:
            raise AttributeError(f"struct {st.name} has no field {name!r}; fields: {list(st.fields)}")
        object.__setattr__(self, name, _coerce(st.fields[name], value, st.name, name))

    def to_ctype(self):
        """The C value of this instance (built from the current field values)."""
        c = self._wp_struct_.ctype()
        for name, t in self._wp_struct_.fields.items():
            setattr(c, name, _field_to_c(t, getattr(self, name)))
        return c

    def __repr__(self):
        body = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._wp_struct_.fields)
        return f"{self._wp_struct_.name}({body})"


def _default_value(t):
    if isinstance(t, array) or hasattr(t, "_wp_texture_ndim_"):   # no array / texture yet
        return None
    if is_scalar(t):
        return t._convert(0)
    return t()


def _coerce(t, value, sname, fname):
    if isinstance(t, array):
        kind = "wp.indexedarray" if is_indexed(t) else "wp.array"
        if value is not None and (not isinstance(value, array) or is_indexed(value) != is_indexed(t)):
            raise TypeError(f"field {sname}.{fname} expects a {kind}, got {type(value).__name__}")
        if value is not None and (value.dtype is not t.dtype or value.ndim != t.ndim):
            raise TypeError(f"field {sname}.{fname} expects an array of {type_repr(t.dtype)} with "
                            f"{t.ndim} dimension(s), got {type_repr(value.dtype)} with {value.ndim}")
        return value
    if is_scalar(t):
        return t._convert(value)
    if hasattr(t, "_wp_struct_") and not isinstance(value, t) and \
            not (value is None and hasattr(t, "_wp_texture_ndim_")):
        raise TypeError(f"field {sname}.{fname} expects a {t.__name__}, got {type(value).__name__}")
    if is_composite(t) and not isinstance(value, t):
        return t(value)
    return value


def _field_to_c(t, value):
    if isinstance(t, array):
        return value.desc() if value is not None else (IndexedArrayDesc() if is_indexed(t) else ArrayDesc())
    if isinstance(value, StructInstance):
        return value.to_ctype()
    if value is None and hasattr(t, "_wp_struct_"):   # a texture field not set: all zero
        return t._wp_struct_.ctype()
    if t is float16 or t is bfloat16:
        return to_storage(t, value)   # stored as its bit pattern
    return value


def _ctype_of(t):
    if isinstance(t, array):
        return IndexedArrayDesc if is_indexed(t) else ArrayDesc
    if is_scalar(t):
        return t._ctype
    if is_composite(t):
        return t
    if hasattr(t, "_wp_struct_"):
        return t._wp_struct_.ctype
    raise TypeError(f"unsupported struct field type {t!r}")


class StructType:
    """The description of one @wp.struct: field types, C layout, C++ name."""

    def __init__(self, cls, scope=None):
        self.name = cls.__name__
        self.cls = cls
        annotations = getattr(cls, "__annotations__", {})
        if not annotations:
            raise TypeError(f"@wp.struct {self.name} declares no annotated fields")
        module = sys.modules.get(cls.__module__)
        globalns = vars(module) if module is not None else {}
        self.fields = {k: canonical_scalar(resolve_annotation(v, globalns, scope, f" of field '{k}' of @wp.struct {self.name}"))
                       for k, v in annotations.items()}
        self.ctype = type(f"{self.name}_c", (ctypes.Structure,),
                          {"_fields_": [(k, _ctype_of(t)) for k, t in self.fields.items()]})
        self.key = hashlib.sha256(repr([(k, _type_key(t)) for k, t in self.fields.items()])
                                  .encode()).hexdigest()[:8]
        self.cpp_name = f"{self.name}_{self.key}"

    def offsets(self):
        return {k: getattr(self.ctype, k).offset for k in self.fields}


def _type_key(t):
    if isinstance(t, array):
        return t.type_key()
    if hasattr(t, "_wp_struct_"):
        return ("struct", t._wp_struct_.name, t._wp_struct_.key)
    return getattr(t, "_cpp", repr(t))


def _defining_scope():
    """The locals of the code that applied ``@wp.struct`` (a struct defined in a function may
    name that function's variables in text annotations)."""
    try:
        return sys._getframe(2).f_locals
    except ValueError:
        return None


def struct(cls):
    """Decorator: turn an annotated class into a kernel struct type."""
    st = StructType(cls, _defining_scope())
    new_cls = type(cls.__name__, (StructInstance,), {
        "_wp_struct_": st, "__module__": cls.__module__, "__doc__": cls.__doc__,
        "__qualname__": cls.__qualname__,
    })
    st.instance_cls = new_cls
    new_cls._ctype = st.ctype
    new_cls._cpp = st.cpp_name
    new_cls._np_struct_dtype = _np_dtype(st)
    new_cls._to_numpy_records = classmethod(_to_numpy_records)
    new_cls._from_record = classmethod(_from_record)
    new_cls.numpy_dtype = classmethod(lambda c: c._np_struct_dtype)   # as the reference
    new_cls.numpy_value = lambda self: self._to_numpy_records([self])[0]
    return new_cls


def _np_field_dtype(t):
    if isinstance(t, array):
        return np.dtype(IndexedArrayDesc if is_indexed(t) else ArrayDesc)
    if is_scalar(t):
        return t._np_dtype
    if is_composite(t):
        return np.dtype((t._wp_scalar_type_._np_dtype, t._shape_))   # (3, 3) for a mat33
    return t._np_struct_dtype


def _np_dtype(st):
    """The NumPy record dtype of a struct: the C layout, with matrices shaped (rows, cols)."""
    names = list(st.fields)
    return np.dtype({"names": names, "formats": [_np_field_dtype(t) for t in st.fields.values()],
                     "offsets": [getattr(st.ctype, k).offset for k in names],
                     "itemsize": ctypes.sizeof(st.ctype)})


def _to_numpy_records(cls, items):
    out = np.zeros(len(items), dtype=cls._np_struct_dtype)
    raw = out.view(np.uint8).reshape(len(items), -1)
    for i, item in enumerate(items):
        if not isinstance(item, cls):
            raise TypeError(f"expected {cls.__name__} instances, got {type(item).__name__}")
        raw[i] = np.frombuffer(bytes(item.to_ctype()), dtype=np.uint8)
    return out


def _from_record(cls, record, device=None):
    """An instance from one NumPy record of the struct's dtype; an array field becomes a view of
    the memory its descriptor points at (on ``device``), or None for a null descriptor."""
    inst = cls()
    for name, t in cls._wp_struct_.fields.items():
        v = record[name]
        if isinstance(t, array):
            v = _array_from_desc(t, v, device)
        elif hasattr(t, "_wp_struct_"):
            v = _from_record(t, v, device)
        elif is_composite(t):
            v = t(v)
        else:
            v = v.item()
        object.__setattr__(inst, name, v)
    return inst


def _array_from_desc(t, desc, device):
    """The array an ``ArrayDesc`` record describes (not owning its memory), or None if null."""
    ptr = int(desc["data"])
    if not ptr or device is None:
        return None
    ndim = int(desc["ndim"])
    shape = desc["arr_shape"] if is_indexed(t) else desc["shape"]
    data = array(ptr=ptr, dtype=t.dtype, shape=tuple(int(n) for n in shape[:ndim]),
                 strides=tuple(int(n) for n in desc["strides"][:ndim]), device=device)
    if not is_indexed(t):
        return data
    # an indexed array: its index arrays are views of the memory the descriptor names too
    indices = [array(ptr=int(desc["indices"][d]), dtype=int32, shape=(int(desc["shape"][d]),),
                     device=device) if int(desc["indices"][d]) else None for d in range(ndim)]
    return indexedarray(data, indices)
