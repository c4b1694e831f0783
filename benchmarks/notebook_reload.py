"""Hot-reload latency in a real Jupyter kernel: the time from re-running an edited one-kernel
``%%wp.kernel`` cell to the kernel being ready (built and loaded), and the same for an unchanged
re-run (a cache hit, no compiler call). Medians over several edits.

    python benchmarks/notebook_reload.py [--repeat 7]

The client-side figure is execute request -> kernel idle over ZMQ (what a user waits for); the
in-kernel figure is what the magic reports. The kernel cache is a fresh temporary folder (the
precompiled builtin header is built once, before timing starts).
"""

import argparse
import json
import queue
import statistics
import sys
import tempfile
import time

CELL = '''%%wp.kernel
def reload_saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i] + {constant}
'''


def run(kc, code, timeout=300):
    msg_id = kc.execute(code)
    t0 = time.perf_counter()
    out, err = [], None
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            err = msg["content"]
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    if err:
        raise RuntimeError("\n".join(err["traceback"]))
    return time.perf_counter() - t0, "".join(out)


def in_kernel_seconds(summary):
    # "wp.kernel __cell__x: x | 0.412 s, compiled (cache miss) | hash ..."
    return float(summary.split("|")[1].split(" s,")[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    from jupyter_client.manager import start_new_kernel
    km, kc = start_new_kernel(kernel_name="python3", startup_timeout=120)
    try:
        cache = tempfile.mkdtemp(prefix="wpi-reload-bench-")
        run(kc, f"import warp_interactive as wp, numpy as np\nwp.config.kernel_cache_dir = {cache!r}\n"
                "from warp_interactive.state import state\nbuild_log = state.build_log")
        run(kc, CELL.format(constant="0.0"))        # builds the precompiled header once
        edited, edited_in, same, same_in = [], [], [], []
        for k in range(1, args.repeat + 1):
            t, out = run(kc, CELL.format(constant=f"{k}.0"))    # an edit: a new module hash
            assert "compiled (cache miss)" in out, out
            edited.append(t)
            edited_in.append(in_kernel_seconds(out))
            run(kc, "mark = len(build_log)")
            t, out = run(kc, CELL.format(constant=f"{k}.0"))    # unchanged: a cache hit
            assert "cache hit" in out, out
            _, compiled = run(kc, "print(sum(b.compiled for b in build_log[mark:]))")
            assert compiled.strip() == "0", "an unchanged cell ran the compiler"
            same.append(t)
            same_in.append(in_kernel_seconds(out))
        _, check = run(kc, "x = wp.ones(4); y = wp.zeros(4); wp.launch(reload_saxpy, 4, inputs=[x, y, 2.0]); "
                           "print(y.numpy().tolist())")
        assert check.strip() == f"[{2.0 + args.repeat}, {2.0 + args.repeat}, {2.0 + args.repeat}, {2.0 + args.repeat}]", check
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    med = statistics.median
    result = {
        "edited cell -> kernel ready, client (s)": round(med(edited), 4),
        "edited cell, in-kernel build (s)": round(med(edited_in), 4),
        "unchanged cell re-run, client (s)": round(med(same), 4),
        "unchanged cell re-run, in-kernel (s)": round(med(same_in), 4),
        "unchanged re-runs that ran the compiler": 0,
        "repeat": args.repeat,
        "python": sys.version.split()[0],
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
