"""The active tape, if any, as seen by launches, copies and array writes (no import of the Tape
class)."""

from .. import hooks
from ..config import config
from ..state import state
from . import graph, overwrite, tape_keep, tape_watch

_tapes = state.tapes    # the recording tapes, innermost last (owned by state)


def record_launch(kernel, dim, inputs, outputs, device, record_tape=True):
    """A launch about to run (called while ``state.tape_writes[0]``, before it writes)."""
    values = list(inputs) + list(outputs)
    if _tapes and record_tape:
        tape = _tapes[-1]
        inputs, outputs = list(inputs), list(outputs)
        if config.tape_copy_on_write:
            keep_launch(tape, kernel, inputs, outputs)
        tape.record_launch(kernel, dim, inputs, outputs, device)
        if config.verify_autograd_array_access:
            overwrite.check_launch(kernel, values)
        return
    if not config.tape_copy_on_write:
        return
    if not _tapes and not tape_keep._watching:     # the last watched tape went away
        tape_keep.update_flag()
        return
    tape_watch.log_launch(kernel)
    names = list(kernel.arg_types)
    hits = [(path, arr) for path, arr, _ in launch_arrays(names, values)
            if _tapes or tape_keep.watched(arr)]
    rw = kernel_rw(kernel) if hits else {}      # (translating only a kernel that may conflict)
    for path, arr in hits:
        if "write" in rw.get(path, ()):
            write(arr, f"a launch of kernel {kernel.key} (argument {path}){tape_keep.caller()}")


def keep_launch(tape, kernel, inputs, outputs):
    """Register the launch's reads, then copy what its writes would overwrite (in place in the
    ``inputs``/``outputs`` lists the tape is about to record)."""
    keeper = tape.keeper
    rw = kernel_rw(kernel)
    index = len(tape.launches)
    items = [(path, arr, ok, rw.get(path, ()))
             for path, arr, ok in launch_arrays(list(kernel.arg_types), inputs + outputs)]
    for path, arr, ok, kinds in items:
        if "read" in kinds and not keeper.is_copy(arr):
            keeper.live.append(tape_keep.Read(
                arr, index, f"launch {index} (kernel {kernel.key}, argument {path})", ok))
    for path, arr, ok, kinds in items:
        if "write" in kinds:
            writer = f"launch {index} (kernel {kernel.key}, argument {path}){tape_keep.caller()}"
            keeper.before_write(tape, arr, writer, pending=(inputs, outputs))


def kernel_rw(kernel):
    """What the kernel reads/writes of its array parameters and their struct fields (cached)."""
    from ..lang.analysis.access import kernel_read_write
    return kernel_read_write(kernel, fields=True)[0]


def launch_arrays(names, values):
    """(parameter or field path, array, copyable) for the arrays among a launch's values."""
    for name, v in zip(names, values):
        yield from _arrays_of(name, v)


def _arrays_of(path, v):
    if getattr(v, "_is_indexed", False):
        yield path, v.data, False
    elif hasattr(v, "grad") and hasattr(v, "ptr") and hasattr(v, "strides"):
        yield path, v, True
    else:
        fields = getattr(getattr(type(v), "_wp_struct_", None), "fields", None)
        for name in fields or ():
            yield from _arrays_of(f"{path}.{name}", getattr(v, name))


def before_write(arr, operation, cut=False):
    """``fill_``/``zero_``/``assign``/``wp.copy``/``a[i] = v`` is about to write ``arr``
    (called while ``state.tape_writes[0]``). On a recording tape, copies what the tape needs;
    ``cut``: the write replaces every value (a fill), so the gradient of what it overwrote is
    cleared in the reverse pass, as a copy of constants."""
    if not config.tape_copy_on_write:
        return
    if getattr(arr, "_is_indexed", False):      # an indexed array writes into its data
        arr, cut = arr.data, False
    if _tapes:
        tape = _tapes[-1]
        touched = tape.keeper.before_write(tape, arr, operation + tape_keep.caller())
        if cut and touched and getattr(arr, "requires_grad", False):
            tape.record_copy(arr, None, 0, 0, arr.size)
        return
    tape_keep.outside_write(arr, operation + tape_keep.caller())


def write(arr, writer):
    if _tapes:
        tape = _tapes[-1]
        tape.keeper.before_write(tape, arr, writer)
    else:
        tape_keep.outside_write(arr, writer)


def record_copy(dest, src, dest_offset, src_offset, count):
    if _tapes and config.verify_autograd_array_access and src is not None:
        overwrite.check_copy(dest, src)
    if _tapes and getattr(dest, "requires_grad", False):
        _tapes[-1].record_copy(dest, src, dest_offset, src_offset, count)


def check_replay(g):
    """``wp.capture_launch(g)`` while a tape records or waits: its writes are checked (and on a
    recording tape, copied first) as the launches and array writes it replays were."""
    where = tape_keep.caller()
    for note in g.writes:
        if note[0] == "launch":
            _, kernel, values = note
            rw = kernel_rw(kernel)
            for path, arr, _ in launch_arrays(list(kernel.arg_types), values):
                if "write" in rw.get(path, ()):
                    write(arr, f"a replay of a captured graph (kernel {kernel.key}, argument {path}){where}")
        else:
            _, arr, operation = note
            write(arr, f"a replay of a captured graph ({operation}){where}")


graph.replay_check[0] = check_replay    # wp.capture_launch checks through this
hooks.record_copy = record_copy     # wp.copy records through this (hooks.py)
hooks.before_write = before_write   # array writes check through this
