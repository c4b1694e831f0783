"""Read flags of arrays for ``wp.config.verify_autograd_array_access`` (warp-lang 1.19): a launch
recorded on a tape marks the arrays it reads; a later recorded write of a marked array warns,
because the tape's backward pass would then read the overwritten values. Reads through a view
mark every array it views; a view starts with its parent's flag."""

import sys


def parents(a):
    """The arrays ``a`` views, nearest first (``_ref`` also holds NumPy buffers and owners)."""
    p = a._ref
    while hasattr(p, "_is_read") and hasattr(p, "_ref"):   # an array (not imported: array imports us)
        yield p
        p = p._ref


def mark_init(a):
    """Reset ``a``'s read flag."""
    a._is_read = False


def mark_read(a):
    """Mark ``a`` (and every array it views) as read by a recorded launch."""
    a._is_read = True
    for p in parents(a):
        p._is_read = True


def mark_write(a, arg_name=None, kernel_name=None, filename=None, lineno=None, operation=None):
    """Warn, on stderr, if ``a`` is written after a recorded launch read it (warp-lang's words,
    naming the kernel's argument or the operation and where it is)."""
    if not a._is_read:
        return
    tail = "but has already been read from in a previous launch. This may corrupt gradient " \
           "computation in the backward pass."
    if kernel_name is not None:
        msg = (f"Array {a} passed to argument {arg_name} in kernel {kernel_name} at {filename}:{lineno} "
               f"is being written to {tail}")
    elif operation is not None:
        msg = f"Array {a} is being written to by {operation} at {filename}:{lineno} {tail}"
    else:
        msg = f"Array {a} is being written to {tail}"
    sys.stderr.write(f"Warp UserWarning: {msg}\n")


def clear(a):
    """Clear the flag of ``a`` and of the arrays it views (a tape's reads are consumed)."""
    a._is_read = False
    for p in parents(a):
        p._is_read = False
