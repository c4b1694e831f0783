"""``wp.launch``: validate, pack, record on a tape, run."""

import ctypes

from ..config import config
from ..lang.errors import LaunchError
from ..types.array import _capturing
from . import graph, tape_hooks
from .args import pack
from .device import get_device
from .module import generation as _generation

MAX_DIMS = 4


class LaunchBounds(ctypes.Structure):
    """Mirrors ``wp::launch_bounds_t`` in core.h."""
    _fields_ = [("shape", ctypes.c_int32 * 4), ("ndim", ctypes.c_int32), ("pad", ctypes.c_int32),
                ("size", ctypes.c_int64)]


def make_bounds(dim):
    if isinstance(dim, int) or hasattr(dim, "__index__"):
        dim = (int(dim),)
    dim = tuple(int(d) for d in dim)
    if not 1 <= len(dim) <= MAX_DIMS:
        raise ValueError(f"launch dim must have 1 to {MAX_DIMS} dimensions, got {dim}")
    if any(d < 0 for d in dim):
        raise ValueError(f"launch dim must not be negative, got {dim}")
    b = LaunchBounds()
    size = 1
    for i, d in enumerate(dim):
        b.shape[i] = d
        size *= d
    b.ndim, b.size = len(dim), size
    return b


def _native():
    from .. import _native
    return _native


def launch(kernel, dim, inputs=(), outputs=(), adj_inputs=(), adj_outputs=(), device=None,
           stream=None, adjoint=False, record_tape=True, record_cmd=False, max_blocks=0,
           block_dim=256):
    """Run ``kernel`` over a grid of ``dim`` threads (an int or a tuple of up to 4)."""
    from ..lang.func import Kernel
    if not isinstance(kernel, Kernel):
        raise TypeError(f"wp.launch expects a @wp.kernel, got {type(kernel).__name__}")
    device = get_device(stream.device if device is None and stream is not None else device)
    bounds = make_bounds(dim)
    _check_tid_arity(kernel, bounds)
    values = list(inputs) + list(outputs)
    grads = None
    if adjoint:
        grads = _adjoint_grads(kernel, values, list(adj_inputs) + list(adj_outputs))
    args = pack(kernel, values, device, grads)
    if record_tape and not adjoint:
        tape_hooks.record_launch(kernel, dim, list(inputs), list(outputs), device)
    cmd = Launch(kernel, device, args, bounds, adjoint)
    if device.is_cuda:
        cmd.block_dim, cmd.max_blocks, cmd.stream = block_dim, max_blocks, stream
    if record_cmd:
        return cmd
    if _capturing[0] and graph.record_launch(cmd, values):
        return None    # a CPU graph capture keeps the packed launch for capture_launch
    cmd.launch()
    return None


def _check_tid_arity(kernel, bounds):
    arity = kernel.ir.tid_arity
    if arity > 1 and arity != bounds.ndim:
        raise ValueError(f"kernel '{kernel.key}' unpacks wp.tid() into {arity} indices but is "
                         f"launched with a {bounds.ndim}-dimensional dim")


def _adjoint_grads(kernel, values, adj_values):
    """Per parameter: the array whose memory receives/provides the gradient (arrays only)."""
    if adj_values and len(adj_values) != len(values):
        raise TypeError(f"adjoint launch of '{kernel.key}' needs adj_inputs + adj_outputs to match "
                        f"inputs + outputs ({len(values)} values), got {len(adj_values)}")
    grads = []
    for i, v in enumerate(values):
        g = adj_values[i] if adj_values else getattr(v, "grad", None)
        is_array = hasattr(g, "ptr") or hasattr(g, "__array_interface__")
        grads.append(g if is_array else False)  # False: no gradient memory for this parameter
    return grads


class Launch:
    """A packed launch, replayable with ``launch()`` (what ``record_cmd=True`` returns)."""

    def __init__(self, kernel, device, args, bounds, adjoint):
        self.kernel, self.device, self.args, self.bounds, self.adjoint = kernel, device, args, bounds, adjoint
        self._entry = None

    def _resolve(self):
        k = self.kernel
        if k.module.kernels.get(k.key) is not k:
            raise RuntimeError(
                f"kernel '{k.key}' was defined again in module '{k.module.name}' after this kernel "
                f"object was made, which replaced it: launch the newer definition, or give the "
                f"kernels different names or modules (@wp.kernel(module=...))")
        module = self.kernel.module.load(self.device, backward=self.adjoint)
        which = "backward" if self.adjoint else "forward"
        self._module = module
        self._entry = module.entry(self.kernel.ir.name, which)
        self._args_addr = ctypes.addressof(self.args)
        self._bounds_addr = ctypes.addressof(self.bounds)

    def launch(self):
        module = self.kernel.module
        if self._entry is None or module.generation != _generation[0] or \
                module.loaded.get((self.device.alias, self.adjoint)) is not self._module:
            self._resolve()
        if self.bounds.size == 0:
            return
        if self.device.is_cuda:
            from . import cuda_backend
            return cuda_backend.launch(self)
        _native().launch(self._entry, self._args_addr, self._bounds_addr, self.bounds.size,
                         config.num_threads or 0, 0)
        if self.kernel.module.option("mode") == "debug":
            err = self._module.take_error()
            if err:
                raise LaunchError(err)

    def set_param_at_index(self, index, value):
        from .args import convert
        name, t = list(self.kernel.arg_types.items())[index]
        setattr(self.args, name, convert(value, t, self.device))
