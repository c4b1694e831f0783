"""The hot path of a CPU forward ``wp.launch``: a per-kernel plan made once per loaded binary.

A plan holds the entry point, a ``struct.Struct`` with the exact byte layout of the kernel's
``K_args`` (taken from the ctypes struct in args.py, padding included), a preallocated argument
buffer, and a small launcher function generated for the kernel's parameter list, so a launch
is one state check, a few type checks, one ``pack_into`` and one native call (~1 us in all).
Anything unusual (a value of another type, an adjoint launch, a dim not seen before) makes the
launcher return False without running anything, and ``wp.launch`` takes the general, fully
validated path, which also produces every error message and teaches the plan the new dim.

The state check is ``launch_state.fast[0] != plan.epoch``: one word that folds together
everything that needs the general path for a while (a tape recording, a wp.timing recorder, a
graph capture) or for one launch (a @wp.func (re)definition, a module's kernels or options
changed: the binary may be stale). After an invalidation the plan steps aside once, the general
path syncs the module with its dependency record (``ModuleBuild._sync_generation`` of build/driver.py: it rebuilds only
when a function its kernels reach changed), and ``launch._update_plan`` either makes a new plan
(new binary) or re-arms this one (``plan.epoch``).
"""

import ctypes
import struct

from ..config import config
from ..types import composite as comp
from ..types import scalars as sc
from ..types.array import array
from ..types.arraydesc import ARRAY_DESC_SIZE, INDEXED_ARRAY_DESC_SIZE
from ..types.indexedarray import indexedarray, is_indexed
from . import launch_state
from .args import args_struct, convert

# ctypes scalar type -> struct format character
_FORMATS = {
    ctypes.c_bool: "?", ctypes.c_int8: "b", ctypes.c_uint8: "B", ctypes.c_int16: "h",
    ctypes.c_uint16: "H", ctypes.c_int32: "i", ctypes.c_uint32: "I", ctypes.c_int64: "q",
    ctypes.c_uint64: "Q", ctypes.c_float: "f", ctypes.c_double: "d",
}
_BITS_16 = (sc.float16, sc.bfloat16)   # 16-bit floats travel as their bit patterns
_DESC_FORMAT = f"{ARRAY_DESC_SIZE}s"   # an array parameter: its descriptor's bytes
_INDEXED_FORMAT = f"{INDEXED_ARRAY_DESC_SIZE}s"
MAX_BOUNDS = 64   # launch-bounds records cached per plan (one per distinct dim)


def _param_code(i, t, ctype, env):
    """(struct format, statements converting ``v{i}`` in place) for one parameter."""
    v = f"v{i}"
    if is_indexed(t):   # the descriptor is built from the data's (cached) and the indices
        env[f"DT{i}"] = t.dtype
        return _INDEXED_FORMAT, [
            f"if type({v}) is not _iarray or {v}.dtype is not DT{i} or {v}.ndim != {t.ndim} "
            f"or {v}.device is not _dev or {v}._unwritable is not None: return False",
            f"{v} = _bytes({v}.desc())"]
    if isinstance(t, array):
        env[f"DT{i}"] = t.dtype
        return _DESC_FORMAT, [
            f"if type({v}) is not _array or {v}.dtype is not DT{i} or {v}.ndim != {t.ndim} "
            f"or {v}.device is not _dev: return False",
            f"d = {v}._desc",
            # an array kernels must not write never caches its descriptor: the general path checks it
            f"if d is None and {v}._unwritable is not None: return False",
            f"{v} = _bytes(d if d is not None else {v}.desc())"]
    env[f"T{i}"] = t
    if sc.is_scalar(t) and t not in _BITS_16:
        fmt = _FORMATS[t._ctype]
        if fmt in "fd":   # the common case needs no conversion call
            return fmt, [f"if type({v}) is not float: {v} = _convert({v}, T{i}, _dev)"]
        return fmt, [f"{v} = _convert({v}, T{i}, _dev)"]
    if t in _BITS_16:
        return "H", [f"{v} = _convert({v}, T{i}, _dev)"]
    return f"{ctypes.sizeof(ctype)}s", [f"{v} = _bytes(_convert({v}, T{i}, _dev))"]


def _native_spec(t, ctype, off):
    """The FastPlan spec of one parameter: (kind, offset, size, type, ndim, signed), see
    native/src/fast_plan.cpp; kind 6 means "never packed natively" (the Python plan converts)."""
    size = ctypes.sizeof(ctype)
    if isinstance(t, array) and not is_indexed(t):
        return (0, off, size, t.dtype, t.ndim, False)
    if t is sc.float32:
        return (1, off, size, None, 0, False)
    if t is sc.float64:
        return (2, off, size, None, 0, False)
    if t is sc.bool_:
        return (4, off, size, None, 0, False)
    if sc.is_scalar(t) and t not in _BITS_16 and _FORMATS[t._ctype] in "bBhHiIqQ":
        return (3, off, size, None, 0, _FORMATS[t._ctype] in "bhiq")
    if comp.is_composite(t):
        return (5, off, size, t, 0, False)
    return (6, off, size, None, 0, False)


def _layout(kernel, env):
    """The struct format (explicit padding, no implicit alignment), the conversion code and the
    native packer's parameter specs."""
    st = args_struct(kernel)
    fmt, pos, code, specs = ["="], 0, [], []
    for i, (name, ctype) in enumerate(st._fields_):
        if name not in kernel.arg_types:
            continue
        off = getattr(st, name).offset
        f, lines = _param_code(i, kernel.arg_types[name], ctype, env)
        fmt += ["x" * (off - pos), f]
        code += lines
        specs.append(_native_spec(kernel.arg_types[name], ctype, off))
        pos = off + ctypes.sizeof(ctype)
    fmt.append("x" * (ctypes.sizeof(st) - pos))
    packer = struct.Struct("".join(fmt))
    if packer.size != ctypes.sizeof(st):
        raise AssertionError(f"argument layout mismatch for {kernel.key}: {packer.size} != {ctypes.sizeof(st)}")
    return packer, code, ctypes.sizeof(st), tuple(specs)


_TEMPLATE = """\
def run(dim, values):
    if _fast[0] != plan._epoch or plan.busy:
        return False
    if type(dim) is not int and (type(dim) is not tuple or not all(type(d) is int for d in dim)):
        return False    # 1.0 or True would find the record learned for 1
    try:
        b = _bounds.get(dim)
        {unpack} = values
    except (TypeError, ValueError):
        return False
    if b is None:
        return False
    try:
{convert}
        _pack_into(_buf, 0, {names})
    except Exception:
        return False
    plan.busy = True
    try:
        _launch(ENTRY, ADDR, b[1], b[2], _config.num_threads or 0)
    finally:
        plan.busy = False
    if DEBUG:
        _check(LM)
    return True
"""


class Plan:
    """Everything a repeated CPU forward launch of one kernel needs (see the module doc).

    Two tiers: ``native_run(dim, inputs, outputs)`` (a ``_native.FastPlan``: exact-typed values
    packed and launched in C, ~0.3 us) and ``run(dim, values)`` (Python: converts other values,
    e.g. a tuple for a vec3 or a NumPy scalar). Both return False having run nothing when they
    decline; ``wp.launch`` checks the device and calls them inline (a ``try_run`` method wrapping
    both cost one more Python call, +0.045 us or 10% of a launch, measured), then takes the
    general path (the third tier), which validates everything and re-arms or remakes the plan."""

    def __init__(self, kernel, device, lm, native):
        from .module import entry_name
        from .device import _default_device
        self.device, self.lm, self.alias = device, lm, device.alias
        # while every thread's current device is the default one (device._off_default is empty),
        # a launch with device=None targets this plan's device iff it is that one
        self.on_default = device is _default_device()
        self.busy = False
        self.bounds = {}
        entry = lm.entry(entry_name(kernel), "forward")
        debug = kernel.module.checks_bounds() or getattr(lm, "records_errors", False)
        env = {"_array": array, "_iarray": indexedarray, "_bytes": bytes, "_convert": convert, "_dev": device,
               "_config": config, "_fast": launch_state.fast, "plan": self, "_bounds": self.bounds,
               "_launch": native.launch_fast, "ENTRY": entry, "DEBUG": debug, "_check": _check_error,
               "LM": lm}
        packer, code, size, specs = _layout(kernel, env)
        # debug mode reads the module's error record after each launch: the Python tier does that
        self.native = None if debug else native.FastPlan(entry, size, specs, self.bounds, array,
                                                         device, launch_state.fast, config)
        self.native_run = self.native.run if self.native is not None else _decline
        self.epoch = launch_state.armed()   # re-armed by launch._update_plan after general launches
        self.buf = (ctypes.c_char * max(size, 8))()
        env.update(_pack_into=packer.pack_into, _buf=self.buf, ADDR=ctypes.addressof(self.buf))
        n = len(kernel.arg_types)
        names = ", ".join(f"v{i}" for i in range(n))
        src = _TEMPLATE.format(unpack=(names + ",") if n else "()",
                               convert="\n".join("        " + ln for ln in code) or "        pass",
                               names=names)
        exec(compile(src, f"<wp.launch plan for {kernel.key}>", "exec"), env)
        self.run = env["run"]

    @property
    def epoch(self):
        return self._epoch

    @epoch.setter
    def epoch(self, value):
        """Arm (a launch-state word) or disarm (None) both tiers."""
        self._epoch = value
        if self.native is not None:
            self.native.epoch = value

    def learn_bounds(self, dim, bounds):
        """Remember a launch-bounds record that passed the general path's checks."""
        if type(dim) is int or type(dim) is tuple:
            if len(self.bounds) >= MAX_BOUNDS:
                self.bounds.clear()
            self.bounds[dim] = (bounds, ctypes.addressof(bounds), bounds.size)


def _decline(dim, inputs, outputs):
    return False


def _check_error(lm):
    err = lm.take_error()
    if err:
        from ..errors import LaunchError
        raise LaunchError(err)
