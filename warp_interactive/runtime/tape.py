"""``wp.Tape``: records launches (and copies, and custom Python steps) and replays them in
reverse through the kernels' generated adjoints to accumulate gradients."""

import weakref

import numpy as np

from ..config import config
from ..logger import log_warning
from ..state import state
from . import launch_state, overwrite, tape_keep, tape_watch

# Programs written for warp-lang sometimes overwrite on purpose (a solve's adjoint meant to read the
# solution written after recording): the error names the setting that gives that behaviour.
_SETTING_HINT = (
    ". This check comes from wp.config.tape_copy_on_write = True (the default: gradients as if "
    "every write went to a fresh array); set wp.config.tape_copy_on_write = False for warp-lang's "
    "behaviour, where the recorded adjoints read the arrays' last values")


class _GradientMap:
    """``tape.gradients[a]`` is ``a.grad`` for any array the tape has seen."""

    def __init__(self, tape):
        self._tape = weakref.ref(tape)     # no cycle: a dropped tape is freed at once

    @property
    def tape(self):
        return self._tape()

    def __getitem__(self, a):
        if _is_struct(a):     # a struct of the gradients of its array fields, as the reference
            return _struct_of_grads(a)
        if a.grad is None:
            raise KeyError("this array has no gradient: create it with requires_grad=True")
        return a.grad

    def __contains__(self, a):
        return _is_struct(a) or getattr(a, "grad", None) is not None

    def get(self, a, default=None):
        return a.grad if getattr(a, "grad", None) is not None else default

    def items(self):
        return [(a, a.grad) for a in self.tape.arrays() if a.grad is not None]

    def keys(self):
        return [a for a, _ in self.items()]

    def values(self):
        return [g for _, g in self.items()]

    def __len__(self):
        return len(self.items())

    def __iter__(self):
        return iter(self.keys())


class Tape:
    """``with tape: ...`` records; ``tape.backward(loss)`` computes gradients."""

    def __init__(self):
        self.launches = []          # entries: ("launch", kernel, dim, inputs, outputs, device)
        self.scopes = []            # (index in launches, name, metadata); an end: (index, None, None)
        self.loss = None
        self.backward_passes = 0    # since the last reset: displays say which gradients were consumed
        self.gradients = _GradientMap(self)
        self.keeper = tape_keep.Keeper()    # copies of overwritten arrays (wp.config.tape_copy_on_write)

    def __repr__(self):
        kernels = sum(1 for e in self.launches if e[0] == "launch")
        kept = (f", {len(self.keeper.kept)} overwritten arrays kept ({self.kept_bytes} bytes)"
                if self.keeper.kept else "")
        return (f"<wp.Tape: {kernels} kernel launches, {len(self.launches) - kernels} other steps, "
                f"{len(self.arrays())} arrays{kept}>")

    @property
    def kept_bytes(self):
        """Bytes held by the copies of arrays overwritten after a recorded step read them."""
        return self.keeper.kept_bytes

    @property
    def kept_arrays(self):
        """[(array, its copy as the recorded steps read it)] for each overwrite the tape kept."""
        return list(self.keeper.kept)

    @property
    def adjoints(self):
        """The older name of ``gradients``."""
        return self.gradients

    def __enter__(self):
        if self in state.tapes:
            raise RuntimeError("this tape is already recording")
        if state.tapes:     # as the reference: one tape records at a time
            raise RuntimeError("Warp: Error, entering a tape while one is already active")
        state.tapes.append(self)
        tape_watch.verify(self.keeper)           # writes no hook saw since its last recording
        tape_keep.unwatch(self.keeper)           # its own writes are copied while it records
        launch_state.set_reason("tape", True)    # launches must reach the tape: no fast path
        return self

    def __exit__(self, *exc):
        state.tapes.remove(self)
        launch_state.set_reason("tape", bool(state.tapes))
        if tape_keep.watch(self.keeper):         # writes by others conflict until backward()
            tape_watch.start(self.keeper)

    # --- recording -------------------------------------------------------------------------------
    def record_launch(self, kernel, dim, inputs, outputs, device):
        """A launch recorded without running it (its adjoint runs in ``backward``); a generic
        kernel is recorded as its specialisation for these arguments, as a launch would run."""
        if kernel.is_generic:
            kernel = kernel.for_launch(list(inputs) + list(outputs))
        self.keeper.consumed = False
        self.launches.append(("launch", kernel, dim, inputs, outputs, device))

    def record_func(self, backward, arrays, reads=None):
        """A custom step: ``backward()`` is called during ``tape.backward``; ``arrays`` are the
        arrays it reads or writes gradients of (so ``zero()`` clears them). ``reads``: those
        whose values ``backward()`` reads (default: all of ``arrays``); a later write over them
        makes ``backward()`` raise, since the step's inputs cannot be swapped for copies."""
        index = len(self.launches)
        self.launches.append(("func", backward, list(arrays)))
        for a in (arrays if reads is None else reads) if config.tape_copy_on_write else ():
            if hasattr(a, "ptr"):
                self.keeper.live.append(tape_keep.Read(
                    a, index, f"step {index} ({getattr(backward, 'key', 'record_func')})", copyable=False))

    def record_copy(self, dest, src, dest_offset, src_offset, count):
        """A copy into ``dest`` (``src`` None: constants were written, e.g. ``assign(ndarray)``)."""
        self.launches.append(("copy", dest, src, dest_offset, src_offset, count))

    def record_scope_begin(self, scope_name, metadata=None):
        """Open a named group of the steps recorded next (drawn as a cluster by visualize)."""
        self.scopes.append((len(self.launches), scope_name, {} if metadata is None else metadata))

    def record_scope_end(self, remove_scope_if_empty=True):
        """Close the innermost open scope; one that recorded nothing is dropped (unless
        ``remove_scope_if_empty=False``). A RuntimeError when no scope is open, as the reference."""
        open_count = sum(1 if name is not None else -1 for _, name, _ in self.scopes)
        if open_count <= 0:
            raise RuntimeError("Warp: Error, ended tape scope, but scope not present")
        last = self.scopes[-1]
        if remove_scope_if_empty and last[1] is not None and last[0] == len(self.launches):
            self.scopes.pop()
        else:
            self.scopes.append((len(self.launches), None, None))

    # --- reverse pass ------------------------------------------------------------------------------
    def backward(self, loss=None, grads=None):
        """Seed ``loss``'s gradient with 1 (or each array of ``grads`` with its seed) and run the
        recorded steps' adjoints in reverse order. Gradients accumulate until ``zero()``."""
        if loss is not None:
            if loss.grad is None:
                raise ValueError("the loss array needs requires_grad=True")
            loss.grad.fill_(1)
            self.loss = loss
        for a, seed in (grads or {}).items():
            if a.grad is None:   # as warp-lang: the seed becomes the array's gradient
                a.grad = seed
                continue
            a.grad.assign(seed.numpy() if hasattr(seed, "numpy") else np.asarray(seed))
        tape_watch.verify(self.keeper)
        if self.keeper.conflicts:
            raise RuntimeError("tape.backward(): " + "; ".join(self.keeper.conflicts) + _SETTING_HINT)
        self.keeper.follow_grads()      # a gradient array set after recording (a.grad = seed)
        for entry in reversed(self.launches):
            _BACKWARD[entry[0]](entry)
        self.backward_passes += 1
        self.keeper.consumed = True         # its reads are consumed
        tape_keep.unwatch(self.keeper)
        if config.verify_autograd_array_access:    # this tape's reads are consumed
            overwrite.clear(self.arrays())

    def arrays(self):
        """Every array the recorded steps touched, in first-seen order."""
        seen = {}
        for entry in self.launches:
            for v in _entry_arrays(entry):
                v = self.keeper.original(v) if self.keeper.kept else v
                seen.setdefault(id(v), v)
        return list(seen.values())

    def zero(self):
        """Zero the gradients of every array the tape has seen."""
        for a in self.arrays():
            if a.grad is not None:
                a.grad.zero_()

    def reset(self):
        """Forget the recorded steps and zero the gradients."""
        if config.verify_autograd_array_access:
            overwrite.clear(self.arrays())
        self.zero()
        self.launches.clear()
        self.scopes.clear()
        self.keeper.clear()
        self.loss = None
        self.backward_passes = 0

    def visualize(self, filename=None, **kwargs):
        """The recorded graph as GraphViz DOT text (written to ``filename`` if given). The text
        is a ``str``; in a notebook it displays as the graph's picture."""
        from .tape_graph import DotText, to_dot
        dot = to_dot(self, **kwargs)
        if filename:
            with open(filename, "w") as f:
                f.write(dot)
        return DotText(dot, self, kwargs.get("array_labels"))


def _is_struct(v):
    return getattr(type(v), "_wp_struct_", None) is not None


def _struct_arrays(v):
    """The arrays in a launch argument: itself, or those in a struct's fields (nested too); an
    indexed array's gradient is its data's."""
    if getattr(v, "_is_indexed", False):
        return [v.data]
    if hasattr(v, "grad") and hasattr(v, "ptr"):
        return [v]
    if _is_struct(v):
        return [a for name in type(v)._wp_struct_.fields for a in _struct_arrays(getattr(v, name))]
    return []


def _struct_of_grads(s):
    """A struct like ``s`` whose array fields are those arrays' gradients (None where none)."""
    out = type(s)()
    for name in type(s)._wp_struct_.fields:
        v = getattr(s, name)
        if _is_struct(v):
            setattr(out, name, _struct_of_grads(v))
        elif getattr(v, "_is_indexed", False) or (hasattr(v, "grad") and hasattr(v, "ptr")):
            setattr(out, name, v.grad)
    return out


def _entry_arrays(entry):
    kind = entry[0]
    if kind == "launch":
        return [a for v in list(entry[3]) + list(entry[4]) for a in _struct_arrays(v)]
    if kind == "func":
        return entry[2]
    return [a.data if a._is_indexed else a for a in entry[1:3] if a is not None]


def _adjoint_missing(kernel):
    """The warning warp-lang gives (and then skips the step) when a recorded kernel has no
    adjoint: the kernel's own option decides, else its module's; None when it has one."""
    if kernel.enable_backward is not None:
        if kernel.enable_backward:
            return None
        return (f"Running the tape backwards may produce incorrect gradients because recorded kernel "
                f"{kernel.key} is configured with the option 'enable_backward=False'.")
    if kernel.module.option("enable_backward"):
        return None
    return (f"Running the tape backwards may produce incorrect gradients because recorded kernel "
            f"{kernel.key} is defined in a module with the option 'enable_backward=False' set.")


def _backward_launch(entry):
    from .launch import launch
    _, kernel, dim, inputs, outputs, device = entry
    missing = _adjoint_missing(kernel)
    if missing is not None:     # as warp-lang: the other steps' gradients are still accumulated
        log_warning(missing)
        return
    # a kernel with tiles recorded in its one-lane build ran one lane per block (block_dim=1 on
    # CUDA, where it would otherwise cooperate: runtime/launch.py cuda_blocks); its adjoint too
    one_lane = getattr(kernel, "block_width", 1) == 1 and kernel.uses_tiles
    launch(kernel, dim, inputs=inputs, outputs=outputs, device=device, adjoint=True,
           block_dim=1 if one_lane else None)


def _backward_func(entry):
    entry[1]()


def _backward_copy(entry):
    from .copy_adjoint import backward_copy
    backward_copy(*entry[1:])


_BACKWARD = {"launch": _backward_launch, "func": _backward_func, "copy": _backward_copy}
