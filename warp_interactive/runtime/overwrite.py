"""``wp.config.verify_autograd_array_access`` (warp-lang 1.19): while a tape records, each launch
warns (stderr) for every array argument it writes that an earlier recorded launch read, then
marks the arrays it reads; a copy checks its destination and marks its source. A tape's
``backward()`` and ``reset()`` clear the flags of the arrays it recorded (their reads are
consumed). The flags live on the arrays (types/array_marks.py)."""

import os
import sys

from ..types import array_marks


def check_launch(kernel, values):
    """Before recording a launch of ``kernel`` with these argument values."""
    from ..lang.analysis.access import kernel_read_write, writes_after_reads
    rw, fresh = kernel_read_write(kernel)
    src = kernel.src
    if fresh:
        for name, line in writes_after_reads(kernel.ir):   # once per translation, as warp-lang's codegen
            sys.stderr.write(
                f"Warp UserWarning: Array passed to argument {name} in kernel {kernel.key} at "
                f"{src.filename}:{line} is being written to after it has been read from within the "
                f"same kernel. This may corrupt gradient computation in the backward pass.\n")
    for name, v in zip(kernel.arg_types, values):
        kinds = rw.get(name, ())
        if not hasattr(v, "mark_read"):
            continue
        if "write" in kinds:     # write first: a kernel may write then read an array (allowed)
            v.mark_write(arg_name=name, kernel_name=kernel.key, filename=src.filename, lineno=src.first_line)
        if "read" in kinds:
            v.mark_read()


def check_copy(dest, src):
    """A recorded ``wp.copy(dest, src)`` / ``dest.assign(src)``: named at the user's line."""
    if getattr(dest, "_is_read", False):
        filename, lineno = _caller()
        dest.mark_write(operation="an array copy", filename=filename, lineno=lineno)
    if hasattr(src, "mark_read"):
        src.mark_read()


def clear(arrays):
    for a in arrays:
        if hasattr(a, "mark_read"):
            array_marks.clear(a)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _caller():
    """The first frame outside this package (the user's call of wp.copy or assign)."""
    frame = sys._getframe()
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else (None, None)
