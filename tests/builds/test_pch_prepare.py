"""The precompiled headers built from ``wp.init()`` in a background thread
(compiler/cpu.prepare_pch): a build that needs one meanwhile waits for the running build instead
of compiling the header a second time; after a build both headers are left complete for the next
run; a script that never builds ends without leaving temporary files; and concurrent
``ensure_pch`` calls compile one header."""

import glob
import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

CHILD = textwrap.dedent('''
    import json, sys
    from warp_interactive.compiler import cpu
    calls = []
    real = cpu.run_compiler
    def counting(cmd, what, *args, **kwargs):
        calls.append("c++-header" in cmd and ("-O0" in cmd and "quick" or "optimised") or "unit")
        return real(cmd, what, *args, **kwargs)
    cpu.run_compiler = counting
    import warp_interactive as wp
    wp.init()
    if sys.argv[1] == "build":
        @wp.kernel
        def twice(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = a[i] * 2.0 + 1.0
        a = wp.array([1.0, 2.0, 3.0], dtype=float)
        wp.launch(twice, dim=3, inputs=[a])
        print(json.dumps({"values": a.numpy().tolist(), "calls": calls}))
    elif sys.argv[1] == "wait":
        cpu._prepare_state["thread"].join()
        print(json.dumps({"calls": calls}))
''')


def _child(tmp_path, mode):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, str(script), mode], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _headers(tmp_path):
    return glob.glob(str(tmp_path / "cache" / "pch" / "*" / "warp_interactive" / "builtin.h.gch"))


def _temporaries(tmp_path):
    return [f for f in glob.glob(str(tmp_path / "cache" / "**" / "*"), recursive=True) if f.endswith(".tmp")]


def test_a_build_after_init_waits_for_the_running_header(tmp_path):
    result = json.loads(_child(tmp_path, "build").strip().splitlines()[-1])
    assert result["values"] == [3.0, 5.0, 7.0]
    assert result["calls"].count("optimised") == 1      # init's build, the kernel's build waited
    assert result["calls"].count("unit") == 1
    assert len(_headers(tmp_path)) == 2                  # and the quick tier's, finished at exit
    assert not _temporaries(tmp_path)


def test_init_builds_both_headers(tmp_path):
    result = json.loads(_child(tmp_path, "wait").strip().splitlines()[-1])
    assert sorted(result["calls"]) == ["optimised", "quick"]
    assert len(_headers(tmp_path)) == 2
    assert not _temporaries(tmp_path)
    # the next run finds them: no header compiled again
    assert json.loads(_child(tmp_path, "build").strip().splitlines()[-1])["calls"] == ["unit"]


def test_a_script_that_never_builds_leaves_no_temporaries(tmp_path):
    _child(tmp_path, "init only")
    assert not _temporaries(tmp_path)
    for gch in _headers(tmp_path):      # a header that was finished is complete
        assert os.path.exists(gch + ".sha256")


def test_concurrent_calls_compile_one_header(tmp_path, monkeypatch):
    from warp_interactive.compiler import cpu
    builds, started, release = [], threading.Event(), threading.Event()

    def slow_build(cxx, fl, d, gch, background, procs, chain):
        builds.append(gch)
        started.set()
        release.wait(30)
        os.makedirs(os.path.dirname(gch), exist_ok=True)
        with open(gch, "w") as f:
            f.write("header")
        cpu._pch_verified.add(gch)
        return d

    monkeypatch.setattr(cpu, "_build_pch", slow_build)
    monkeypatch.setattr(cpu, "_pch_dir", lambda cxx, fl: str(tmp_path / "pch"))
    results = []
    threads = [threading.Thread(target=lambda: results.append(cpu.ensure_pch("g++", ["-O3"])))
               for _ in range(3)]
    threads[0].start()
    assert started.wait(30)
    for t in threads[1:]:
        t.start()
    release.set()
    for t in threads:
        t.join(30)
    assert len(builds) == 1
    assert results == [str(tmp_path / "pch")] * 3


def test_a_failed_build_lets_the_waiter_build(tmp_path, monkeypatch):
    from warp_interactive.compiler import cpu
    calls = []

    def failing_then_ok(cxx, fl, d, gch, background, procs, chain):
        calls.append(threading.current_thread().name)
        if len(calls) == 1:
            return None
        cpu._pch_verified.add(gch)
        return d

    monkeypatch.setattr(cpu, "_build_pch", failing_then_ok)
    monkeypatch.setattr(cpu, "_pch_dir", lambda cxx, fl: str(tmp_path / "pch2"))
    assert cpu.ensure_pch("g++", ["-O3"]) is None
    assert cpu.ensure_pch("g++", ["-O3"]) == str(tmp_path / "pch2")
    assert len(calls) == 2


@pytest.fixture(autouse=True)
def _clean_verified():
    from warp_interactive.compiler import cpu
    before = set(cpu._pch_verified)
    yield
    cpu._pch_verified.intersection_update(before)
