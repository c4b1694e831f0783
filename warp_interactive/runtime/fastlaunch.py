"""The hot path of a CPU forward ``wp.launch``: a per-kernel plan made once per loaded binary.

A plan holds the entry point, a ``struct.Struct`` with the exact byte layout of the kernel's
``K_args`` (taken from the ctypes struct in args.py, padding included), a preallocated argument
buffer, and a small launcher function generated for the kernel's parameter list, so a launch
is a few type checks, one ``pack_into`` and one native call (~1 us in all). Anything unusual
(a value of another type, a tape recording, an active wp.timing recorder (it times the general
path's ``Launch.launch``), an adjoint launch, a stale binary, a dim not seen before) makes the
launcher return False without running anything, and ``wp.launch`` takes the general, fully
validated path, which also produces every error message and teaches the plan the new dim.

Staleness: the plan runs only while its binary is still the module's loaded one. A @wp.func
(re)definition bumps the global generation; the plan then steps aside once, the general path
syncs the module with its dependency record (``Module._sync_generation``: it rebuilds only when
a function its kernels reach changed), and ``launch._update_plan`` either makes a new plan (new
binary) or marks this one current again (``plan.gen``).
"""

import ctypes
import struct

from ..config import config
from ..types import scalars as sc
from ..types.array import array
from . import tape_hooks, timing
from .args import args_struct, convert

# ctypes scalar type -> struct format character
_FORMATS = {
    ctypes.c_bool: "?", ctypes.c_int8: "b", ctypes.c_uint8: "B", ctypes.c_int16: "h",
    ctypes.c_uint16: "H", ctypes.c_int32: "i", ctypes.c_uint32: "I", ctypes.c_int64: "q",
    ctypes.c_uint64: "Q", ctypes.c_float: "f", ctypes.c_double: "d",
}
MAX_BOUNDS = 64   # launch-bounds records cached per plan (one per distinct dim)


def _param_code(i, t, ctype, env):
    """(struct format, statements converting ``v{i}`` in place) for one parameter."""
    v = f"v{i}"
    if isinstance(t, array):
        env[f"DT{i}"] = t.dtype
        return "72s", [
            f"if type({v}) is not _array or {v}.dtype is not DT{i} or {v}.ndim != {t.ndim} "
            f"or {v}.device is not _dev: return False",
            f"d = {v}._desc",
            f"{v} = _bytes(d if d is not None else {v}.desc())"]
    env[f"T{i}"] = t
    if sc.is_scalar(t) and t is not sc.float16:
        fmt = _FORMATS[t._ctype]
        if fmt in "fd":   # the common case needs no conversion call
            return fmt, [f"if type({v}) is not float: {v} = _convert({v}, T{i}, _dev)"]
        return fmt, [f"{v} = _convert({v}, T{i}, _dev)"]
    if t is sc.float16:
        return "H", [f"{v} = _convert({v}, T{i}, _dev)"]
    return f"{ctypes.sizeof(ctype)}s", [f"{v} = _bytes(_convert({v}, T{i}, _dev))"]


def _layout(kernel, env):
    """The struct format (explicit padding, no implicit alignment) and the conversion code."""
    st = args_struct(kernel)
    fmt, pos, code = ["="], 0, []
    for i, (name, ctype) in enumerate(st._fields_):
        if name not in kernel.arg_types:
            continue
        off = getattr(st, name).offset
        f, lines = _param_code(i, kernel.arg_types[name], ctype, env)
        fmt += ["x" * (off - pos), f]
        code += lines
        pos = off + ctypes.sizeof(ctype)
    fmt.append("x" * (ctypes.sizeof(st) - pos))
    packer = struct.Struct("".join(fmt))
    if packer.size != ctypes.sizeof(st):
        raise AssertionError(f"argument layout mismatch for {kernel.key}: {packer.size} != {ctypes.sizeof(st)}")
    return packer, code, ctypes.sizeof(st)


_TEMPLATE = """\
def run(dim, values):
    if _gen[0] != plan.gen or plan.busy or _tape_active or _timing_active or \
            _loaded.get(KEY) is not LM:
        return False
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
    """Everything a repeated CPU forward launch of one kernel needs (see the module doc)."""

    def __init__(self, kernel, device, lm, generation, native_launch, generation_box):
        from .module import entry_name
        self.device, self.lm, self.key = device, lm, (device.alias, False)
        self.gen = generation
        self.busy = False
        self.bounds = {}
        env = {"_array": array, "_bytes": bytes, "_convert": convert, "_dev": device,
               "_config": config, "_gen": generation_box, "_tape_active": tape_hooks.active,
               "_timing_active": timing._active, "_loaded": kernel.module.loaded,
               "KEY": self.key, "LM": lm, "plan": self, "_bounds": self.bounds,
               "_launch": native_launch, "ENTRY": lm.entry(entry_name(kernel), "forward"),
               "DEBUG": kernel.module.option("mode") == "debug", "_check": _check_error}
        packer, code, size = _layout(kernel, env)
        self.buf = (ctypes.c_char * max(size, 8))()
        env.update(_pack_into=packer.pack_into, _buf=self.buf, ADDR=ctypes.addressof(self.buf))
        n = len(kernel.arg_types)
        names = ", ".join(f"v{i}" for i in range(n))
        src = _TEMPLATE.format(unpack=(names + ",") if n else "()",
                               convert="\n".join("        " + ln for ln in code) or "        pass",
                               names=names)
        exec(compile(src, f"<wp.launch plan for {kernel.key}>", "exec"), env)
        self.run = env["run"]

    def learn_bounds(self, dim, bounds):
        """Remember a launch-bounds record that passed the general path's checks."""
        if type(dim) is int or type(dim) is tuple:
            if len(self.bounds) >= MAX_BOUNDS:
                self.bounds.clear()
            self.bounds[dim] = (bounds, ctypes.addressof(bounds), bounds.size)


def _check_error(lm):
    err = lm.take_error()
    if err:
        from ..lang.errors import LaunchError
        raise LaunchError(err)
