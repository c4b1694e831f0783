"""``wp.launch``: validate, pack, record on a tape, run."""

import ctypes

import numpy as np

from ..logger import get_logger
from ..config import config, on_change as _config_on_change
from ..state import state
from ..types.arraydesc import LaunchBounds
from ..types.composite import passes_adjoint_value
from ..build import strided
from . import fastlaunch, graph, launch_state, launchers, tape_hooks
from .launchers import cuda_block_dim, cuda_blocks  # noqa: F401  (runtime.launch names them)
from .launch_state import epoch as _epoch
from .args import pack
from .device import _off_default, get_device

MAX_DIMS = 4
_capturing = state.capturing    # graph captures in progress (bound once: read on every launch)
_tape_writes = state.tape_writes   # a tape records or waits for backward: writes are checked


MAX_DIM = 2**31 - 1   # wp.tid() is an int32 per dimension (as in the reference)
MAX_SIZE = 2**63 - 1  # the launch's thread count is an int64


def _dim_value(d, dim):
    """One dimension as a Python int: ints and integer-like objects (NumPy integers), never
    bools, floats or strings, which would otherwise run some number of threads."""
    if isinstance(d, (bool, np.bool_)) or not hasattr(type(d), "__index__"):
        raise TypeError(f"wp.launch: dim must be an int or a tuple of up to {MAX_DIMS} ints, got "
                        f"{dim!r} ({type(d).__name__})")
    d = d.__index__()
    if d < 0:
        raise ValueError(f"launch dim must not be negative, got {dim!r}")
    if d > MAX_DIM:
        raise ValueError(f"wp.launch: each dim must be between 0 and 2**31-1 = {MAX_DIM} "
                         f"(wp.tid() is a 32-bit int), got {dim!r}")
    return d


def make_bounds(dim):
    if isinstance(dim, (list, tuple)):
        dim = tuple(_dim_value(d, dim) for d in dim)
    else:
        dim = (_dim_value(dim, dim),)
    if not 1 <= len(dim) <= MAX_DIMS:
        raise ValueError(f"launch dim must have 1 to {MAX_DIMS} dimensions, got {dim}")
    b = LaunchBounds()
    size = 1
    for i, d in enumerate(dim):
        b.shape[i] = d
        size *= d
    if size > MAX_SIZE:
        raise ValueError(f"wp.launch: dim {dim} has {size} threads, more than 2**63-1")
    b.ndim, b.size = len(dim), size
    return b


_native_mod = None


def _native():
    global _native_mod
    if _native_mod is None:
        from .native import runtime_module
        _native_mod = runtime_module()
    return _native_mod


def launch(kernel, dim=None, inputs=(), outputs=(), adj_inputs=(), adj_outputs=(), device=None,
           stream=None, adjoint=False, record_tape=True, record_cmd=False, max_blocks=0,
           block_dim=None):
    """Run ``kernel`` over a grid of ``dim`` threads (an int or a tuple of up to 4); ``block_dim``:
    the CUDA block size (default ``wp.config.cuda_block_dim``; a kernel with tiles runs its GPU
    blocks cooperatively, see cuda_blocks), and on the CPU with
    ``wp.config.enable_cpu_blocks`` the lanes of a cooperative block (default 1)."""
    try:   # no cost unless raised (Python >= 3.11)
        if block_dim is not None and block_dim != 1 and config.enable_cpu_blocks:
            width = cpu_block_width(block_dim, device, stream)
            if width > 1:    # consecutive threads in blocks of `width` lanes; the last may be partial
                return _launch_cpu_blocks(kernel, dim, width, inputs, outputs, device, record_tape, record_cmd,
                                          adjoint, tiled=False, adj_inputs=adj_inputs, adj_outputs=adj_outputs)
        plan = _plans.get(id(kernel))
        # tapes, timing recorders and graph captures disarm the plan itself (see launch_state);
        # device=None needs no thread-local lookup while every thread is on the default device
        if plan is not None and not (adjoint or record_cmd) and \
                ((plan.on_default and not _off_default) or get_device() is plan.device
                 if device is None else device == plan.alias or get_device(device) is plan.device) and \
                (plan.native_run(dim, inputs, outputs) or
                 ((type(inputs) is list or type(inputs) is tuple) and
                  plan.run(dim, inputs if not outputs else list(inputs) + list(outputs)))):
            return None
        return _launch(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device, adjoint,
                       record_tape, record_cmd, stream, max_blocks, block_dim)
    except KeyboardInterrupt:   # a launch stopped because a strided entry could not be built
        strided.raise_failure()
        raise


def _launch(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device, adjoint, record_tape,
            record_cmd, stream=None, max_blocks=0, block_dim=None):
    """The general path: validates everything; afterwards the fast plan is (re)made."""
    from ..lang.definitions.kernel import Kernel
    if not isinstance(kernel, Kernel):
        raise TypeError(f"wp.launch expects a @wp.kernel, got {type(kernel).__name__}")
    if kernel.is_generic:    # the specialisation for these arguments' types (made once)
        kernel = kernel.for_launch(list(inputs) + list(outputs))
    device = get_device(stream.device if device is None and stream is not None else device)
    if config.print_launches:
        get_logger().info(f"kernel: {kernel.key} dim: {dim} inputs: {list(inputs)} outputs: {list(outputs)} "
                          f"device: {device}")
    launcher = device.launcher
    kernel, block_dim = launcher.blocks(kernel, block_dim)
    if dim is None:
        dim = _default_dim(kernel, list(inputs) + list(outputs))
    bounds = make_bounds(dim)
    if adjoint:    # before any load: a backward load of a kernel without adjoint has no entry
        _check_backward_enabled(kernel)
    entry = _load_entry(kernel, device, adjoint)    # a warm load knows the tid arity untranslated
    _check_tid_arity(entry, bounds)
    values = list(inputs) + list(outputs)
    grads, staged = None, []
    if adjoint:
        grads = _adjoint_grads(kernel, values, list(adj_inputs) + list(adj_outputs))
        grads, staged = _stage_grads(kernel, values, grads, device, len(inputs))
    args = pack(kernel, entry.args if grads is None else entry.backward_args, values, device, grads)
    if _tape_writes[0] and not adjoint:
        tape_hooks.record_launch(kernel, dim, list(inputs), list(outputs), device, record_tape)
    cmd = Launch(kernel, device, args, bounds, adjoint, entry)
    launcher.configure(cmd, block_dim, max_blocks, stream)
    if record_cmd:
        return cmd
    if _capturing[0]:
        graph.note_launch(device, kernel, values)
    if _capturing[0] and graph.record_launch(cmd, values):
        return None    # a CPU graph capture keeps the packed launch for capture_launch
    cmd.launch()
    for given, copy in staged:   # the adjoints the kernel wrote, back into the caller's arrays
        device.memory.copy(given, copy, 0, 0, 0)
    if config.verify_fp and not adjoint:
        from .verify_fp import check_launch
        check_launch(kernel, values)
    if launcher.fast_plans and not adjoint and cmd._threads is None:   # fast plans run multithreaded
        _update_plan(kernel, device, cmd, dim)
    return None


def _stage_grads(kernel, values, grads, device, n_inputs):
    """Kernels index a gradient with its array's strides (one descriptor, one set of strides): an
    adjoint array laid out differently (a strided or broadcast torch gradient) is copied into one
    laid out as the array; the inputs' adjoints (which the launch accumulates into) are copied back
    after it, the outputs' (which it only reads) are left as given. (grads, [(given, copy)])."""
    from ..types.array import array
    staged, out = [], list(grads)
    for i, (v, g) in enumerate(zip(values, grads)):
        if not isinstance(v, array) or g is False or g is None:
            continue
        g = g if isinstance(g, array) else array(g, dtype=v.dtype, copy=False, device=device)
        if g.shape != v.shape:
            raise TypeError(f"adjoint launch of '{kernel.key}': the adjoint of argument {i} has shape "
                            f"{g.shape}, the array {v.shape}")
        if v._is_indexed:   # its gradient is its data's, reached through the same indices
            if not g._is_indexed or g.data.strides != v.data.strides:
                raise TypeError(f"adjoint launch of '{kernel.key}': the adjoint of indexed array "
                                f"argument {i} must be an indexed array over a gradient laid out "
                                f"as its data (its .grad)")
            continue
        if g.strides == v.strides:
            continue
        if not v.is_contiguous:
            raise TypeError(f"adjoint launch of '{kernel.key}': the adjoint of argument {i} has strides "
                            f"{g.strides}, the (non-contiguous) array {v.strides}; give them one layout")
        copy = array(shape=v.shape, dtype=v.dtype, device=device)
        device.memory.copy(copy, g, 0, 0, 0)
        out[i] = copy
        if i < n_inputs and g._unwritable is None:
            staged.append((g, copy))
    return out, staged


def _load_entry(kernel, device, adjoint):
    """``kernel``'s KernelEntry in its module loaded for ``device`` (built if needed)."""
    if not kernel.is_registered():
        raise RuntimeError(
            f"kernel '{kernel.key}' was defined again in module '{kernel.module.name}' after this "
            f"kernel object was made, which replaced it: launch the newer definition, or give the "
            f"kernels different names or modules (@wp.kernel(module=...))")
    return kernel.module.load(device, backward=adjoint).kernel(kernel.cpp)


_plans = fastlaunch.plans     # id(kernel) -> its fast plan (read on every launch)


def _update_plan(kernel, device, cmd, dim):
    """After a general CPU launch: (re)make the kernel's fast plan and teach it this dim."""
    plan = _plans.get(id(kernel))
    if plan is None or plan.device is not device or plan.entry is not cmd.entry:
        plan = fastlaunch.set_plan(kernel, fastlaunch.Plan(cmd.entry, device, _native()))
    else:
        # the general launch synced the module with the @wp.func generation (Module.load ->
        # _sync_generation, which rebuilds only when a function the kernels reach changed):
        # the binary is still this plan's, so the plan is current again (unless a tape, timing
        # recorder or capture is active: then it stays disarmed, see launch_state)
        plan.epoch = launch_state.armed()
    plan.learn_bounds(dim, cmd.bounds)


def _default_dim(kernel, values):
    """Without ``dim=``, a launch covers the first array argument (as the reference's
    Differentiability example launches)."""
    for v in values:
        shape = getattr(v, "shape", None)
        if hasattr(v, "ptr") and shape:
            return tuple(shape)
    raise TypeError(f"wp.launch({kernel.key}) needs dim= (no array argument to take it from)")


def _check_tid_arity(entry, bounds):
    """Unpacking fewer indices than the launch has dimensions gives the leading ones (as the
    reference does: ``i, j = wp.tid()`` in a tiled launch); more is an error."""
    arity = entry.tid_arity
    if arity > 1 and arity > bounds.ndim:
        raise ValueError(f"kernel '{entry.key}' unpacks wp.tid() into {arity} indices but is "
                         f"launched with a {bounds.ndim}-dimensional dim")


# A block's effective width: one thread on every device, as warp-lang runs tiles on the CPU
# (without its experimental enable_cpu_blocks); tiles are then values of their thread.
TILE_BLOCK_WIDTH = launchers.TILE_BLOCK_WIDTH


def launch_tiled(kernel, dim, inputs=(), outputs=(), device=None, stream=None, block_dim=256,
                 **kwargs):
    """Launch ``dim`` blocks (an int or a tuple of up to 3): the grid gets a trailing dimension of
    the block width, so ``i, j = wp.tid()`` gives the block's index. ``block_dim`` is accepted
    as in the reference: on the CPU blocks run one thread wide (TILE_BLOCK_WIDTH; ``block_dim``
    lanes with ``wp.config.enable_cpu_blocks``), on CUDA ``block_dim`` threads cooperate."""
    if isinstance(dim, int) or hasattr(dim, "__index__"):
        dim = (int(dim),)
    dim = tuple(int(d) for d in dim)
    if not 1 <= len(dim) <= MAX_DIMS - 1:
        raise ValueError(f"wp.launch_tiled() takes a grid of 1 to {MAX_DIMS - 1} dimensions, got {dim}")
    if block_dim is not None and int(block_dim) < 0:
        raise ValueError(f"block_dim must not be negative, got {block_dim}")
    launcher = get_device(stream.device if device is None and stream is not None else device).launcher
    lanes, launch_block_dim, cooperative = launcher.tiled(block_dim)
    if cooperative:    # the CPU's blocks of `lanes` cooperating lanes (enable_cpu_blocks)
        return _launch_cpu_blocks(kernel, dim, lanes, inputs, outputs, device, **kwargs)
    return launch(kernel, dim + (lanes,), inputs=inputs, outputs=outputs, device=device, stream=stream,
                  block_dim=launch_block_dim, **kwargs)


def cpu_block_width(block_dim, device, stream=None):
    """A tiled launch's lanes per block: ``block_dim`` on the CPU with warp-lang's experimental
    ``wp.config.enable_cpu_blocks`` (at most 1024, as there), else 1."""
    return get_device(stream.device if device is None and stream is not None else device).launcher.lane_width(block_dim)


def _launch_cpu_blocks(kernel, dim, width, inputs, outputs, device, record_tape=True, record_cmd=False,
                       adjoint=False, tiled=True, stream=None, max_blocks=0, adj_inputs=(), adj_outputs=(),
                       **kwargs):
    """A CPU launch whose blocks run their ``width`` lanes cooperatively: the kernel built for
    that width (its own entry point, lang/definitions/kernel.py with_block_width), through the general path
    (the fast plan of the one-lane build must not see this grid). A tiled launch's grid gets the
    lanes as its trailing dimension."""
    if kwargs:
        raise TypeError(f"wp.launch_tiled(): unexpected arguments {sorted(kwargs)}")
    from ..lang.definitions.kernel import Kernel
    if not isinstance(kernel, Kernel):
        raise TypeError(f"wp.launch_tiled expects a @wp.kernel, got {type(kernel).__name__}")
    if kernel.is_generic:
        kernel = kernel.for_launch(list(inputs) + list(outputs))
    if tiled:
        dim = dim + (width,)
    return _launch(kernel.with_block_width(width), dim, inputs, outputs, adj_inputs, adj_outputs, device,
                   adjoint, record_tape, record_cmd)


def _check_backward_enabled(kernel):
    if not kernel.backward_enabled():
        raise RuntimeError(
            f"kernel '{kernel.key}' has no adjoint: backward code generation is off for it "
            f"(@wp.kernel(enable_backward=False), wp.set_module_options({{'enable_backward': "
            f"False}}) or wp.config.enable_backward = False); turn it on to differentiate it")


def _adjoint_grads(kernel, values, adj_values):
    """Per parameter: the array whose memory receives/provides the gradient, or the adjoint
    value of a scalar/composite parameter (packed by value: args.py backward_args_struct);
    False: none given."""
    if adj_values and len(adj_values) != len(values):
        raise TypeError(f"adjoint launch of '{kernel.key}' needs adj_inputs + adj_outputs to match "
                        f"inputs + outputs ({len(values)} values), got {len(adj_values)}")
    grads, types = [], list(kernel.arg_types.values())
    for i, v in enumerate(values):
        # an adjoint given as None falls back to the array's own .grad, as the reference
        g = adj_values[i] if adj_values else None
        g = getattr(v, "grad", None) if g is None else g
        is_array = hasattr(g, "ptr") or getattr(g, "_is_indexed", False) or hasattr(g, "__array_interface__")
        if g is not None and i < len(types) and passes_adjoint_value(types[i]):
            grads.append(g)     # a scalar/vector/matrix adjoint, passed by value
            continue
        grads.append(g if is_array else False)  # False: no gradient memory for this parameter
    return grads


_config_on_change.append(launch_state.invalidate)   # wp.config.deterministic: plans step aside
# wp.config.verify_fp: launches take the general path, which checks them (runtime/verify_fp.py)
_config_on_change.append(lambda: launch_state.set_reason("verify_fp", bool(config.verify_fp)))
# wp.config.print_launches: the general path names each launch to the active logger
_config_on_change.append(lambda: launch_state.set_reason("print_launches", bool(config.print_launches)))


class Launch:
    """A packed launch, replayable with ``launch()`` (what ``record_cmd=True`` returns)."""

    def __init__(self, kernel, device, args, bounds, adjoint, entry=None):
        self.kernel, self.device, self.args, self.bounds, self.adjoint = kernel, device, args, bounds, adjoint
        self.entry = None       # the kernel's KernelEntry, resolved
        self._entry = None
        self._epoch = None
        self._threads = None
        if entry is not None:
            self._bind(entry)

    def _resolve(self):
        """Load (or find) the kernel's module again: something it resolved may be stale."""
        self._bind(_load_entry(self.kernel, self.device, self.adjoint))

    def _bind(self, entry):
        self.entry = entry
        self._entry = entry.entry("backward" if self.adjoint else "forward")
        self._args_addr = ctypes.addressof(self.args)
        self._bounds_addr = ctypes.addressof(self.bounds)
        # read the error record after launches (debug mode, or a run-time slice step that may be 0)
        self._debug = entry.checks_errors
        self.device.launcher.bind(self)       # _size, and _run: a replay's one native call
        self._threads = launchers.deterministic_threads(self.kernel, self.device)
        self._epoch = _epoch[0]   # after load(): a load that rebuilt has bumped the epoch

    def launch(self):
        # one word says whether anything this command resolved may be stale (see launch_state)
        if self._epoch != _epoch[0]:
            self._resolve()
        if self._run is not None:
            try:   # no cost unless raised (Python >= 3.11)
                self._run(self._threads or config.num_threads or 0)
            except KeyboardInterrupt:   # stopped: a strided entry could not be built (strided.py)
                strided.raise_failure()
                raise
            return None
        return self.device.launcher.run(self)

    _run_launch = launch

    def _observed_launch(self):
        return _observer[0](self, Launch._run_launch)

    def set_param_at_index(self, index, value):
        from .args import ArgError, _access_check, convert
        from ..lang.builtins.registry import type_name
        name, t = list(self.kernel.arg_types.items())[index]
        try:
            setattr(self.args, name, convert(value, t, self.device, check=_access_check(self.kernel, name)))
        except ArgError as e:
            raise TypeError(f"kernel '{self.kernel.key}' argument '{name}' (type {type_name(t)}): "
                            f"{e}") from None


_observer = [None]


def observe(observer):
    """Run every ``Launch.launch`` (general launches and ``record_cmd`` replays) as
    ``observer(cmd, run)``, where ``run(cmd)`` launches (``wp.timing``'s recorders time it), or
    directly again with None. The class switches between its own two methods, so an unobserved
    launch pays nothing for this; fast plans step aside while a timing recorder is active
    (launch_state's "timing" reason)."""
    _observer[0] = observer
    Launch.launch = Launch._run_launch if observer is None else Launch._observed_launch
