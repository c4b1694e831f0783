"""Kernel output (``print`` / ``wp.printf`` in kernels) into the cell that ran the kernel.

Kernels print with C ``printf`` to file descriptor 1, which in a Jupyter kernel is not the
notebook but the terminal that started it (or the kernel's own pipe, read at its own pace). While
a cell runs, fd 1 is pointed at a pipe; a thread copies what arrives to the cell's ``sys.stdout``
and flushes the C library's buffer every ``FLUSH_EVERY`` seconds, so output appears while a long
cell is still running. In a terminal IPython, fd 1 is already the screen: nothing is redirected.
"""

import ctypes
import os
import select
import sys
import threading

FLUSH_EVERY = 0.1


_libc = []


def _libc_fflush():
    """Flush every C stdio stream (kernel printf output waits in stdout's buffer). The C library's
    handle is looked up once: ``ctypes.CDLL(None)`` is a ``dlopen``, which the pump thread must
    not call while the main thread is inside another ``dlopen`` (importing an extension whose
    library constructors need the GIL, such as USD's ``pxr``): each would wait for the other."""
    try:
        if not _libc:
            _libc.append(ctypes.CDLL(None))
        _libc[0].fflush(None)
    except (OSError, AttributeError):
        pass


def stdout_is_fd1():
    try:
        return sys.stdout.fileno() == 1
    except (AttributeError, OSError, ValueError):
        return False


class FdCapture:
    """Redirect ``fd`` to a pipe and copy what is written there to ``target`` (a text stream)."""

    def __init__(self, target, fd=1):
        self.target, self.fd = target, fd
        self._saved = self._read = None
        self._thread = None
        self._stopping = threading.Event()

    def start(self):
        _libc_fflush()
        sys.__stdout__ and sys.__stdout__.flush()
        self._saved = os.dup(self.fd)
        r, w = os.pipe()
        os.dup2(w, self.fd)
        os.close(w)
        self._read = r
        self._stopping.clear()
        self._thread = threading.Thread(target=self._pump, name="wpi-fd-capture", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._saved is None:
            return
        _libc_fflush()
        os.dup2(self._saved, self.fd)      # closes the pipe's last write end: the pump sees EOF
        os.close(self._saved)
        self._saved = None
        self._stopping.set()
        self._thread.join(timeout=2.0)
        os.close(self._read)
        self._thread = self._read = None

    def _pump(self):
        try:
            self._copy_until_eof()
        except (OSError, ValueError):   # the read end was closed under us (stop() timed out)
            pass

    def _copy_until_eof(self):
        while True:
            stopping = self._stopping.is_set()   # read before select: data written before
            ready, _, _ = select.select([self._read], [], [], FLUSH_EVERY)  # stop() is seen
            if not ready:
                if stopping:
                    return
                _libc_fflush()
                continue
            try:
                chunk = os.read(self._read, 65536)
            except OSError:
                return
            if not chunk:
                return
            try:
                self.target.write(chunk.decode(errors="replace"))
                self.target.flush()
            except (ValueError, OSError):
                return

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class CellCapture:
    """IPython event callbacks: capture fd 1 for the duration of each cell."""

    def __init__(self):
        self._cap = None
        self.enabled = True

    def pre_run_cell(self, info=None):
        if self.enabled and self._cap is None and not stdout_is_fd1():
            try:
                self._cap = FdCapture(sys.stdout).start()
            except OSError:
                self._cap = None

    def post_run_cell(self, result=None):
        self.stop()

    def stop(self):
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.stop()
