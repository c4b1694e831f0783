"""NVRTC compiles under ``wp.config.compile_timeout``.

NVRTC runs inside the process that calls it, and a call into it cannot be stopped. So when a
timeout applies, compiles run in a worker process (compiler/nvrtc_run.py, started on the first
CUDA build and kept for the next ones: it costs one process start per session, not one per
build): past the timeout, or on Ctrl-C, the worker is killed and the next build starts a new
one. A crash inside NVRTC then ends the worker, not the user's process; both are a CompileError
naming the module.
"""

import os
import subprocess
import sys
import threading

from ..errors import CompileError
from . import nvrtc_run

_RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nvrtc_run.py")


def worker_command():
    """The worker's command line. Tests replace it (a worker that never answers stands for a
    compile that hangs)."""
    # by path: the worker imports cuda-bindings only, not this package; -c drops the script's
    # folder from sys.path (this package's modules must not shadow anything there)
    return [sys.executable, "-c",
            "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')", _RUNNER]


class _Worker:
    def __init__(self):
        env = dict(os.environ)
        # the worker finds cuda-bindings where this process found it
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self.pid = os.getpid()
        self.proc = subprocess.Popen(worker_command(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)

    def alive(self):
        return self.pid == os.getpid() and self.proc.poll() is None

    def kill(self):
        if self.pid == os.getpid():
            self.proc.kill()
            self.proc.wait()
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass

    def exchange(self, request, out):
        """Send ``request``, put the reply (or the exception) in ``out`` (a list)."""
        try:
            nvrtc_run.write_message(self.proc.stdin, request)
            out.append(nvrtc_run.read_message(self.proc.stdout))
        except BaseException as e:   # a pipe the kill closed
            out.append(e)


_lock = threading.Lock()   # one compile at a time per worker
_worker = []


def compile_program(source, filename, opts, kind, timeout, name):
    """nvrtc_run.compile_program in the worker: (True, bytes) or (False, log); CompileError past
    ``timeout`` seconds or when the worker fails."""
    with _lock:
        if not _worker or not _worker[0].alive():
            try:
                _worker[:] = [_Worker()]
            except OSError as e:
                raise CompileError(f"CUDA compilation (NVRTC) of module '{name}': could not start "
                                   f"the NVRTC worker process ({e}); wp.config.compile_timeout = "
                                   f"None compiles in this process, without a timeout") from None
        worker = _worker[0]
        out = []
        thread = threading.Thread(target=worker.exchange, args=((source, filename, opts, kind), out),
                                  daemon=True)
        thread.start()
        try:
            thread.join(timeout)
        except BaseException:      # Ctrl-C: stop the compile with the worker
            _discard(worker)
            raise
        if thread.is_alive():
            _discard(worker)
            thread.join()
            raise CompileError(f"CUDA compilation (NVRTC) of module '{name}' did not finish within "
                               f"{timeout} s (wp.config.compile_timeout); the compiler was stopped")
        reply = out[0] if out else None
        if not isinstance(reply, tuple):
            code = worker.proc.poll()
            _discard(worker)
            raise CompileError(f"CUDA compilation (NVRTC) of module '{name}' failed: the NVRTC "
                               f"worker process ended (exit code {code})")
    status, payload = reply
    if status == "error":
        raise CompileError(payload)
    return status == "ok", payload


def _discard(worker):
    worker.kill()
    if _worker and _worker[0] is worker:
        _worker.clear()


def shutdown():
    """Stop the worker now (the next timed compile starts another)."""
    with _lock:
        if _worker:
            _discard(_worker[0])
