"""The active tape, if any, as seen by launches and copies (no import of the Tape class)."""

from .. import hooks
from ..config import config
from ..state import state
from . import overwrite

_tapes = state.tapes    # the recording tapes, innermost last (owned by state)


def record_launch(kernel, dim, inputs, outputs, device):
    if _tapes:
        _tapes[-1].record_launch(kernel, dim, inputs, outputs, device)
        if config.verify_autograd_array_access:
            overwrite.check_launch(kernel, list(inputs) + list(outputs))


def record_copy(dest, src, dest_offset, src_offset, count):
    if _tapes and config.verify_autograd_array_access and src is not None:
        overwrite.check_copy(dest, src)
    if _tapes and getattr(dest, "requires_grad", False):
        _tapes[-1].record_copy(dest, src, dest_offset, src_offset, count)


hooks.record_copy = record_copy     # wp.copy records through this (hooks.py)
