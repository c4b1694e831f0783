"""Errors raised in a cell, as the user should see them.

A bad launch (wrong argument type, wrong count, an out-of-bounds index in debug mode) raises a
clear message from deep inside the package: ``launch -> _launch -> pack -> convert``. IPython
would show each of those frames with its source, about 30 lines before the message. The cell's
own frames are what the user can act on, so for an error the package raised on purpose (the
types below, raised by package code) the package's frames are left out: the cell's line, then
the message. Errors raised by the user's code, and unexpected errors inside the package (an
AttributeError is a bug of ours, and its frames are what a bug report needs), keep every frame.
``show_package_frames(True)`` turns the trimming off.
"""

import os

from ..errors import CodegenError

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# what the package raises to tell the user about their input (LaunchError, CompileError and
# TypeMismatch derive from these)
USER_FACING = (TypeError, ValueError, IndexError, RuntimeError)
_settings = {"package_frames": False}


def show_package_frames(show=True):
    """Show (True) or leave out (False, the default) the package's frames in the traceback of a
    launch error raised in a cell."""
    _settings["package_frames"] = bool(show)


def in_package(tb):
    return tb.tb_frame.f_code.co_filename.startswith(PACKAGE_DIR)


def _frames(tb):
    out = []
    while tb is not None:
        out.append(tb)
        tb = tb.tb_next
    return out


def raised_by_package(value, tb):
    """True for a user-facing error whose innermost frame is package code."""
    frames = _frames(tb)
    return isinstance(value, USER_FACING) and bool(frames) and in_package(frames[-1])


def without_package_frames(tb):
    """The traceback with the package's frames unlinked (the frames around them stay; the
    outermost frame, IPython's own, is always kept so ``tb_offset`` still skips it)."""
    frames = _frames(tb)
    kept = frames[:1] + [t for t in frames[1:] if not in_package(t)]
    for a, b in zip(kept, kept[1:] + [None]):
        a.tb_next = b
    return kept[0]


def show_cell_error(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler for a cell (``shell.set_custom_exc((Exception,), ...)``):
    a kernel translation error as one short message, a launch error without package frames,
    anything else exactly as IPython shows it."""
    from .errors import format_error
    if isinstance(value, CodegenError):
        stb = format_error(value, shell=shell).splitlines()
        shell._showtraceback(etype, value, stb)
        return stb
    if isinstance(value, SyntaxError):
        shell.showsyntaxerror()
        return None
    if not _settings["package_frames"] and raised_by_package(value, tb):
        tb = without_package_frames(tb)
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    return None
