"""Arrays of other frameworks passed straight to ``wp.launch`` (runtime/args.py reaches this
through ``hooks.foreign_array``, registered by the top package): torch tensors, objects with
``__cuda_array_interface__``, ``__dlpack__`` or ``__array__``. Kept apart from foreign.py, which
the torch and DLPack converters build on, so that no two files import each other."""

import sys

import numpy as np

from .foreign import from_cuda_array_interface, from_interface

_torch_interop = []   # warp_interactive.interop.torch, once a tensor has been seen


def as_foreign_array(value, t, device):
    """A wp array for a launch parameter of type ``t`` from a torch tensor, an object with
    ``__cuda_array_interface__``, ``__dlpack__`` or ``__array__`` (zero-copy where possible)."""
    torch = sys.modules.get("torch")
    try:
        if torch is not None and isinstance(value, torch.Tensor):
            if not _torch_interop:
                from . import torch as torch_interop
                _torch_interop.append(torch_interop)
            return _torch_interop[0].tensor_view(value, t.dtype)
        return _other_foreign_array(value, t, device)
    except (TypeError, ValueError) as e:
        from ..errors import ArgError
        raise ArgError(str(e)) from None


def _other_foreign_array(value, t, device):
    from ..runtime.device import cuda_device_for, get_device
    if hasattr(value, "__cuda_array_interface__"):
        return from_cuda_array_interface(value, t.dtype, cuda_device_for(device))
    if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
        from .dlpack import from_dlpack
        return from_dlpack(value, dtype=t.dtype)
    if hasattr(value, "__array__"):
        a = np.asarray(value)
        return from_interface(a.__array_interface__, t.dtype, get_device("cpu"), a, "the array")
    raise TypeError(f"expected an array, got {type(value).__name__}")
