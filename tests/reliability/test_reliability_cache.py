"""A damaged kernel cache is rebuilt, a hanging compiler times out, a read-only cache falls back
to a private one. Each case runs in a fresh process with its own cache folder."""

import glob
import json
import os
import sys

import pytest

from isolated import outcome, run_snippet

KERNEL = '''
@wp.kernel
def scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s
'''
RUN = KERNEL + '''
def _go():
    a = wp.array(np.arange(4, dtype=np.float32))
    wp.launch(scale, dim=4, inputs=[a, {factor}])
    return a.numpy().tolist()
return _go()
'''


def _run(cache, factor=2.0, env=None, body=None):
    env = dict(env or {}, WARP_INTERACTIVE_CACHE_DIR=str(cache))
    return outcome(run_snippet(body or RUN.format(factor=factor), env=env))


def _want(factor):
    return "OK " + repr([i * factor for i in range(4)])


@pytest.mark.parametrize("damage", ["list", "wrong_types", "not_json", "empty"])
def test_damaged_manifest_and_index_are_rebuilt(tmp_path, damage):
    assert _run(tmp_path) == _want(2.0)
    text = {"list": "[1, 2]", "wrong_types": json.dumps({"binaries": [1], "module_hash": 3,
                                                           "tid_arity": {"x": "y"}}),
            "not_json": "{", "empty": ""}[damage]
    files = glob.glob(str(tmp_path / "*" / "*" / "manifest.json")) + \
        glob.glob(str(tmp_path / "index" / "*" / "*.json"))
    assert files
    for f in files:
        with open(f, "w") as fh:
            fh.write(text)
    assert _run(tmp_path) == _want(2.0)          # the same module: rebuilt, not an error
    assert _run(tmp_path, factor=3.0) == _want(3.0)
    manifests = glob.glob(str(tmp_path / "*" / "*" / "manifest.json"))
    assert all(isinstance(json.load(open(m)).get("binaries"), dict) for m in manifests)


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_damaged_precompiled_header_is_rebuilt(tmp_path, damage):
    assert _run(tmp_path) == _want(2.0)
    # the optimised build's PCH (the quick tier's one, build/quick_tier.py, is beside it)
    from warp_interactive.compiler import cpu
    from warp_interactive.config import config
    key = os.path.basename(cpu._pch_dir(config.cpu_compiler, cpu.flags(False, False)))
    gch = str(tmp_path / "pch" / key / "warp_interactive" / "builtin.h.gch")
    assert len(glob.glob(str(tmp_path / "pch" / "*" / "warp_interactive" / "builtin.h.gch"))) == 2
    size = os.path.getsize(gch)
    with open(gch, "r+b") as f:
        if damage == "truncated":
            f.truncate(size // 2)
        else:
            f.seek(size // 3)
            f.write(b"\xde\xad\xbe\xef" * 1024)
    # another kernel: a new binary, so a compile that needs the PCH
    other = RUN.format(factor=5.0).replace("scale", "scale_again")
    assert _run(tmp_path, body=other) == _want(5.0)
    # rebuilt: whole again and matching its recorded hash (its size varies by a few bytes: the
    # temporary file name it was written under is recorded inside)
    import hashlib
    with open(gch, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    assert os.path.getsize(gch) > size * 0.9
    assert open(gch + ".sha256").read().strip() == digest


def test_hanging_compiler_times_out(tmp_path):
    fake = tmp_path / "hang-c++"
    fake.write_text("#!/bin/sh\nexec sleep 120\n")
    fake.chmod(0o755)
    body = KERNEL + f'''
wp.config.cpu_compiler = {str(fake)!r}
wp.config.compile_timeout = 1.0
import time
t0 = time.perf_counter()
try:
    wp.launch(scale, dim=4, inputs=[wp.zeros(4), 2.0])
finally:
    print("seconds", time.perf_counter() - t0)
'''
    proc = run_snippet(body, env={"WARP_INTERACTIVE_CACHE_DIR": str(tmp_path / "cache")}, timeout=100)
    got = outcome(proc)
    assert got.startswith("RAISED CompileError"), got
    assert "did not finish within 1.0 s (wp.config.compile_timeout)" in got
    seconds = float(proc.stdout.split("seconds")[1].split()[0])
    assert seconds < 60


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc (a folder nobody can write)")
def test_read_only_cache_falls_back_to_a_private_one(tmp_path):
    # /proc/self exists and refuses new entries even to root; for other users a 0o555 folder
    # would do too, but the test then depends on who runs it
    body = RUN.format(factor=4.0).replace("def _go():", "import warnings\nwarnings.simplefilter('always')\ndef _go():")
    proc = run_snippet(body, env={"WARP_INTERACTIVE_CACHE_DIR": "/proc/self"})
    assert outcome(proc) == _want(4.0)
    assert "the kernel cache /proc/self cannot be written" in proc.stderr
    assert "private temporary cache" in proc.stderr
