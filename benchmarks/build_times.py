"""Build-time figures: cold build + first launch of a one-kernel module, warm-cache load +
first launch, and import + init. Each figure is the median over fresh processes.

    python benchmarks/build_times.py [--repeat 5]

"cold" uses a cache that already holds the precompiled builtin header (built once per
compiler/flags/headers) but not the module; "cold, no PCH" starts from an empty cache.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import uuid

KERNEL = textwrap.dedent('''
    import time
    t0 = time.perf_counter()
    import numpy as np
    import warp_interactive as wp
    wp.init()
    t_import = time.perf_counter() - t0

    @wp.kernel
    def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
        i = wp.tid()
        y[i] = a * x[i] + y[i] + SALT

    x = wp.ones(16, dtype=float)
    y = wp.ones(16, dtype=float)
    t1 = time.perf_counter()
    wp.launch(saxpy, dim=16, inputs=[x, y, 2.0])
    t_launch = time.perf_counter() - t1
    assert abs(y.numpy()[0] - (3.0 + SALT)) < 1e-5
    print(json.dumps({"import": t_import, "first_launch": t_launch}))
''')


def run(script, cache):
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def write_script(folder, salt):
    path = os.path.join(folder, f"k_{uuid.uuid4().hex[:8]}.py")
    with open(path, "w") as f:
        f.write("import json\n" + KERNEL.replace("SALT", repr(float(salt))))
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    n = ap.parse_args().repeat
    folder = tempfile.mkdtemp()
    cache = tempfile.mkdtemp()
    run(write_script(folder, 0.5), cache)          # builds the PCH once
    cold, warm, imports, no_pch = [], [], [], []
    for i in range(n):
        s = write_script(folder, 1.0 + i)           # new source: a cache miss
        r = run(s, cache)
        cold.append(r["first_launch"])
        warm.append(run(s, cache)["first_launch"])  # same source: a cache hit
        imports.append(r["import"])
        no_pch.append(run(write_script(folder, 100.0 + i), tempfile.mkdtemp())["first_launch"])
    rows = [("cold build + first launch (PCH present)", cold, "s"),
            ("cold build + first launch (empty cache, PCH built too)", no_pch, "s"),
            ("warm cache load + first launch", warm, "ms"),
            ("import + init", imports, "s")]
    for name, vals, unit in rows:
        med = statistics.median(vals) * (1000 if unit == "ms" else 1)
        print(f"{name:58s} {med:8.3f} {unit}")


if __name__ == "__main__":
    main()
