"""Ctrl-C stops a CPU launch inside a kernel's loop, not only between chunks ("a CPU
launch stops within 1 s of a KeyboardInterrupt and raises it").

Each case runs in a child process: it launches a kernel whose loop would run for hours, the test
sends SIGINT one second later, and the child must raise KeyboardInterrupt and go on working
(the next launch gives the right result). The bound on the wait is generous (a hang, not a
speed, is what it catches): without the loops' polls the child never returns.
"""

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from isolated import ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

KERNELS = '''
import signal, sys, threading, time
import numpy as np
import warp_interactive as wp

@wp.func
def spin(n: wp.int64, x: float):
    s = x
    for i in range(n):
        s = s * 0.5 + 1.0
    return s

@wp.func
def spin_twice(n: wp.int64, x: float):
    return spin(n, x) + spin(wp.int64(3), x)

@wp.kernel
def k_for(out: wp.array(dtype=float), n: wp.int64):
    t = wp.tid()
    s = float(0.0)
    for i in range(n):
        s = s * 0.5 + 1.0
    out[t] = s

@wp.kernel
def k_nested(out: wp.array(dtype=float), n: wp.int64):
    t = wp.tid()
    s = float(0.0)
    for i in range(n):
        for j in range(3):   # short: its tick-free copy runs, the outer loop polls
            s = s * 0.5 + 1.0
    out[t] = s

@wp.kernel
def k_while(out: wp.array(dtype=float), n: wp.int64):
    t = wp.tid()
    s = float(0.0)
    i = wp.int64(0)
    while i < n:
        s = s * 0.5 + 1.0
        i += wp.int64(1)
    out[t] = s

@wp.kernel
def k_func(out: wp.array(dtype=float), n: wp.int64):
    t = wp.tid()
    out[t] = spin_twice(n, 0.0)

@wp.kernel
def k_grad(x: wp.array(dtype=float), out: wp.array(dtype=float), n: wp.int64):
    t = wp.tid()
    s = x[t]
    for i in range(n):
        s = s * 0.5 + 1.0
    out[t] = s

# Python's own handler: a shell may start the child with SIGINT ignored (`cmd &`)
signal.signal(signal.SIGINT, signal.default_int_handler)
LONG = wp.int64(10**15)   # hours at ~1 ns an iteration
'''

# (id, code run before "READY", the long call, a check that the runtime still works afterwards)
CASES = [
    ("for_dim1", "out = wp.zeros(1)", "wp.launch(k_for, dim=1, inputs=[out, LONG])",
     "wp.launch(k_for, dim=1, inputs=[out, wp.int64(3)]); assert out.numpy()[0] == 1.75"),
    # 64 threads: the lane-blocked body, and the pool's worker threads
    ("for_dim64", "out = wp.zeros(64)", "wp.launch(k_for, dim=64, inputs=[out, LONG])",
     "wp.launch(k_for, dim=64, inputs=[out, wp.int64(3)]); assert (out.numpy() == 1.75).all()"),
    ("nested_short_inner", "out = wp.zeros(2)", "wp.launch(k_nested, dim=2, inputs=[out, LONG])",
     "wp.launch(k_nested, dim=2, inputs=[out, wp.int64(3)]); assert (out.numpy() == 1.99609375).all()"),
    ("while", "out = wp.zeros(3)", "wp.launch(k_while, dim=3, inputs=[out, LONG])",
     "wp.launch(k_while, dim=3, inputs=[out, wp.int64(3)]); assert (out.numpy() == 1.75).all()"),
    # the loop is in a @wp.func: the callers return too
    ("func", "out = wp.zeros(2)", "wp.launch(k_func, dim=2, inputs=[out, LONG])",
     "wp.launch(k_func, dim=2, inputs=[out, wp.int64(3)]); assert (out.numpy() == 3.5).all()"),
    ("record_cmd",
     "out = wp.zeros(1); cmd = wp.launch(k_for, dim=1, inputs=[out, LONG], record_cmd=True)",
     "cmd.launch()",
     "cmd.set_param_at_index(1, wp.int64(3)); cmd.launch(); assert out.numpy()[0] == 1.75"),
    ("adjoint",
     "x = wp.zeros(2, requires_grad=True); out = wp.zeros(2, requires_grad=True)",
     "wp.launch(k_grad, dim=2, inputs=[x, out, LONG], adj_inputs=[x.grad, out.grad, 0], adjoint=True)",
     "out.grad.fill_(1.0); wp.launch(k_grad, dim=2, inputs=[x, out, wp.int64(3)], "
     "adj_inputs=[x.grad, out.grad, 0], adjoint=True); assert (x.grad.numpy() == 0.125).all()"),
    # IPython re-installs Python's handler around every cell: the next launch takes it over again
    ("handler_reinstalled", "out = wp.zeros(1)\n"
     "try:\n"
     "    threading.Timer(0.5, signal.raise_signal, (signal.SIGINT,)).start()\n"
     "    wp.launch(k_for, dim=1, inputs=[out, LONG])\n"
     "except KeyboardInterrupt:\n"
     "    signal.signal(signal.SIGINT, signal.default_int_handler)",
     "wp.launch(k_for, dim=1, inputs=[out, LONG])",
     "wp.launch(k_for, dim=1, inputs=[out, wp.int64(3)]); assert out.numpy()[0] == 1.75"),
]

MAIN = '''
{setup}
wp.synchronize()
print("READY", flush=True)
t0 = time.perf_counter()
try:
    {call}
    print("COMPLETED", flush=True)
except KeyboardInterrupt:
    print("INTERRUPTED %.2f" % (time.perf_counter() - t0), flush=True)
{after}
print("STILL WORKS", flush=True)
'''

BOUND_S = 60   # a generous bound: the long call alone would take hours


def _run_interrupted(script, delay=1.0):
    """Run ``script`` in a child; SIGINT ``delay`` s after it printed READY; (stdout, stderr)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory(prefix="wpi-interrupt-") as tmp:
        path = Path(tmp) / "case.py"     # a file: kernels need their source
        path.write_text(script)
        proc = subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=str(ROOT), env=env)
        try:
            line = proc.stdout.readline()
            while line and not line.startswith("READY"):
                line = proc.stdout.readline()
            assert line.startswith("READY"), proc.stderr.read()[-3000:]
            time.sleep(delay)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=BOUND_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"no return within {BOUND_S} s of SIGINT: {out!r} {err[-2000:]!r}")
    return out, err


@pytest.mark.parametrize("name,setup,call,after", CASES, ids=[c[0] for c in CASES])
def test_sigint_stops_a_kernel_loop(name, setup, call, after):
    script = KERNELS + MAIN.format(setup=setup, call=call, after=after)
    out, err = _run_interrupted(textwrap.dedent(script))
    assert "INTERRUPTED" in out, (out, err[-3000:])
    assert "STILL WORKS" in out, (out, err[-3000:])


# A launch from another Python thread is not the one Ctrl-C is for: it must run to the end
# (a kernel that returned early there would be a silently partial result).
OTHER_THREAD = KERNELS + '''
ref = wp.zeros(4)
wp.launch(k_for, dim=4, inputs=[ref, wp.int64(20_000_000)])
res = {}
def background():
    a = wp.zeros(4)
    while "stop" not in res:   # launches all the while the main thread is interrupted
        wp.launch(k_for, dim=4, inputs=[a, wp.int64(20_000_000)])
        res["ok"] = res.get("ok", True) and bool((a.numpy() == ref.numpy()).all())
        res["n"] = res.get("n", 0) + 1
th = threading.Thread(target=background)
th.start()
out = wp.zeros(1)
print("READY", flush=True)
try:
    wp.launch(k_for, dim=1, inputs=[out, LONG])
except KeyboardInterrupt:
    print("INTERRUPTED", flush=True)
time.sleep(0.5)
res["stop"] = True
th.join()
print("BACKGROUND", res["n"], res["ok"], flush=True)
'''


def test_sigint_leaves_other_threads_launches_whole():
    out, err = _run_interrupted(textwrap.dedent(OTHER_THREAD))
    assert "INTERRUPTED" in out, (out, err[-3000:])
    line = [ln for ln in out.splitlines() if ln.startswith("BACKGROUND")]
    assert line and line[0].split()[2] == "True", (out, err[-3000:])
    assert int(line[0].split()[1]) >= 1
