"""One NVRTC compile, and the worker process that runs them (compiler/nvrtc_worker.py).

This file imports nothing of the package, so the worker starts without importing
warp_interactive (it is run by path: ``python nvrtc_run.py``, requests on stdin, replies on
stdout, one pickled message each, prefixed by its length). compiler/nvrtc.py calls
``compile_program`` in-process when no compile timeout applies.
"""

import pickle
import struct
import sys

_LEN = struct.Struct("<Q")


def _nvrtc():
    from cuda.bindings import nvrtc
    return nvrtc


def _call(result, what):
    err = result[0]
    if int(err) != 0:
        nvrtc = _nvrtc()
        msg = nvrtc.nvrtcGetErrorString(err)[1]
        raise RuntimeError(f"NVRTC {what} failed: {msg.decode() if isinstance(msg, bytes) else msg}")
    return result[1] if len(result) == 2 else None


def compile_program(source, filename, opts, kind):
    """(True, CUBIN or PTX bytes) or (False, NVRTC's log); RuntimeError when an NVRTC call other
    than the compile itself fails."""
    nvrtc = _nvrtc()
    prog = _call(nvrtc.nvrtcCreateProgram(source.encode(), filename.encode(), 0, [], []),
                 "nvrtcCreateProgram")
    try:
        err = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])[0]
        if int(err) != 0:
            return False, _log(nvrtc, prog)
        return True, _output(nvrtc, prog, kind)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _log(nvrtc, prog):
    size = _call(nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
    buf = b" " * size
    _call(nvrtc.nvrtcGetProgramLog(prog, buf), "nvrtcGetProgramLog")
    return buf.rstrip(b"\0 ").decode(errors="replace")


def _output(nvrtc, prog, kind):
    what = "CUBIN" if kind == "cubin" else "PTX"
    size = _call(getattr(nvrtc, f"nvrtcGet{what}Size")(prog), f"nvrtcGet{what}Size")
    buf = b" " * size
    _call(getattr(nvrtc, f"nvrtcGet{what}")(prog, buf), f"nvrtcGet{what}")
    return buf


def read_message(stream):
    """The next message on a binary stream, or None at its end."""
    head = stream.read(_LEN.size)
    if len(head) < _LEN.size:
        return None
    body = stream.read(_LEN.unpack(head)[0])
    return pickle.loads(body)


def write_message(stream, obj):
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LEN.pack(len(body)) + body)
    stream.flush()


def main():
    """The worker: (source, filename, opts, kind) in, ("ok"|"log"|"error", payload) out, until
    stdin closes (the parent exited or let it go)."""
    src, dst = sys.stdin.buffer, sys.stdout.buffer
    while True:
        request = read_message(src)
        if request is None:
            return
        try:
            ok, payload = compile_program(*request)
            reply = ("ok" if ok else "log", payload)
        except Exception as e:   # ImportError, an NVRTC API failure: the parent raises it
            reply = ("error", f"{type(e).__name__}: {e}")
        write_message(dst, reply)


if __name__ == "__main__":
    main()
