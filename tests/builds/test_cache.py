"""The kernel cache: hit, miss after an edit, corrupt entry rebuilt, concurrent builders.

Each case runs fresh Python processes against its own cache folder, as separate sessions of a
user would.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent('''
    import json, sys
    import numpy as np
    import warp_interactive as wp

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s + OFFSET

    a = wp.array(np.arange(8, dtype=np.float32))
    wp.launch(scale, dim=8, inputs=[a, 2.0])
    h, built, _ = scale.module.last_build
    print(json.dumps({"hash": h, "built": built, "values": a.numpy().tolist()}))
''')


def _write(tmp_path, offset):
    path = tmp_path / "kern.py"
    path.write_text(SCRIPT.replace("OFFSET", repr(float(offset))))
    return path


def _run(path, cache):
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _expected(offset):
    return [i * 2.0 + offset for i in range(8)]


@pytest.fixture
def cache(tmp_path):
    d = tmp_path / "cache"
    d.mkdir()
    return d


def test_hit_after_first_build(tmp_path, cache):
    path = _write(tmp_path, 1.0)
    first = _run(path, cache)
    second = _run(path, cache)
    assert first["built"] is True and second["built"] is False
    assert first["hash"] == second["hash"]
    assert second["values"] == _expected(1.0)


def test_edit_misses_and_builds_new_binary(tmp_path, cache):
    first = _run(_write(tmp_path, 1.0), cache)
    edited = _run(_write(tmp_path, 5.0), cache)
    assert edited["built"] is True and edited["hash"] != first["hash"]
    assert edited["values"] == _expected(5.0)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "delete_manifest"])
def test_corrupt_entry_is_rebuilt(tmp_path, cache, damage):
    path = _write(tmp_path, 2.0)
    first = _run(path, cache)
    entry = cache / first["hash"][:2] / first["hash"]
    binary = entry / "module.so"
    if damage == "truncate":
        binary.write_bytes(binary.read_bytes()[:100])
    elif damage == "garbage":
        binary.write_bytes(b"\0" * 4096)
    else:
        (entry / "manifest.json").unlink()
    again = _run(path, cache)
    assert again["built"] is True
    assert again["values"] == _expected(2.0)
    manifest = json.loads((entry / "manifest.json").read_text())
    assert "module.so" in manifest["binaries"]


def test_two_processes_build_the_same_module_at_once(tmp_path, cache):
    path = _write(tmp_path, 3.0)
    env = dict(os.environ, WARP_INTERACTIVE_CACHE_DIR=str(cache))
    procs = [subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(3)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert all(r["values"] == _expected(3.0) for r in results)
    assert len({r["hash"] for r in results}) == 1
    assert _run(path, cache)["built"] is False


def test_generated_source_is_kept_beside_the_binary(tmp_path, cache):
    first = _run(_write(tmp_path, 1.0), cache)
    src = (cache / first["hash"][:2] / first["hash"] / "module.cpp").read_text()
    assert "scale" in src and '#include "warp_interactive/builtin.h"' in src


def test_headers_hash_is_the_content_hash_and_follows_edits(tmp_path, monkeypatch):
    """The hash of the builtin headers is remembered under their sizes and mtimes (so a warm load
    stats instead of reading them), and it is still their content hash: an edit changes it."""
    import hashlib
    import shutil
    import warp_interactive as wp
    from warp_interactive import _paths
    from warp_interactive.compiler import cpu

    inc = tmp_path / "include"
    shutil.copytree(os.path.join(_paths.include_dir(), "warp_interactive"), inc / "warp_interactive")
    monkeypatch.setattr(wp.config, "kernel_cache_dir", str(tmp_path / "cache"))

    def content_hash():
        h = hashlib.sha256()
        folder = inc / "warp_interactive"
        for name in sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()):
            h.update(name.encode() + b"\0" + (folder / name).read_bytes())
        return h.hexdigest()

    first = cpu._headers_hash(str(inc))
    assert first == content_hash()
    cpu._headers_hash.cache_clear()
    assert cpu._headers_hash(str(inc)) == first                  # from the memo this time
    assert len(os.listdir(tmp_path / "cache" / "headers")) == 1
    header = inc / "warp_interactive" / "core" / "core.h"
    header.write_text(header.read_text() + "\n// edited\n")
    cpu._headers_hash.cache_clear()
    edited = cpu._headers_hash(str(inc))
    assert edited != first and edited == content_hash()
    cpu._headers_hash.cache_clear()


@pytest.mark.parametrize("env, expected", [
    ({"XDG_CACHE_HOME": "{tmp}/xdg"}, "{tmp}/xdg/warp_interactive"),
    ({"HOME": "{tmp}/home"}, "{tmp}/home/.cache/warp_interactive"),
    ({"WARP_INTERACTIVE_CACHE_DIR": "{tmp}/mine", "XDG_CACHE_HOME": "{tmp}/xdg"}, "{tmp}/mine"),
])
def test_config_shows_the_effective_cache_dir(tmp_path, env, expected):
    """``wp.config.kernel_cache_dir`` is the folder really used, not None (a fresh process)."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("WARP_INTERACTIVE_CACHE_DIR", "XDG_CACHE_HOME")}
    base.update({k: v.format(tmp=tmp_path) for k, v in env.items()})
    code = ("import warp_interactive as wp\nfrom warp_interactive.compiler.cache import cache_dir\n"
            "print(wp.config.kernel_cache_dir)\nprint(cache_dir())")
    out = subprocess.run([sys.executable, "-c", code], env=base, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [expected.format(tmp=tmp_path)] * 2


def test_the_precompiled_header_builds(tmp_path, monkeypatch):
    """The builtin library's precompiled header builds (its headers include each other by their
    path under the include folder). Without it every module build parses the whole library: not
    wrong, only several times slower, so nothing else would notice a failing PCH."""
    import warp_interactive as wp
    from warp_interactive.compiler import cpu

    monkeypatch.setattr(wp.config, "kernel_cache_dir", str(tmp_path / "cache"))
    fl = cpu.flags(True, False)     # the debug flags: no background build of the quick tier's PCH
    folder = cpu.ensure_pch(wp.config.cpu_compiler, fl)
    assert folder is not None, "the precompiled header failed to build (wp.config.verbose says why)"
    assert os.path.getsize(os.path.join(folder, "warp_interactive", "builtin.h.gch")) > 0
