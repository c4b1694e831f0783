"""Garbage collection of the kernel cache (compiler/cache_gc.py): above the size cap, least
recently used entries go first, down to the low-water mark; recently used ones stay; the index
entries and kernel records that named a removed entry go with it; a module whose units were
collected rebuilds and computes the right values."""

import json
import os
import time

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.compiler import cache, cache_gc

KB = 1024


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    # an earlier test's background optimised build (quick tier) holds this process's shared
    # cache lock while it publishes, and a collection asked for meanwhile waits for its release
    from warp_interactive.build import quick_tier
    quick_tier.wait()
    monkeypatch.setattr(wp.config, "kernel_cache_dir", str(tmp_path / "cache"))
    return tmp_path


def fake_entry(tmp_path, name, size, age_s):
    """An entry of ``size`` bytes last used ``age_s`` ago, providing kernel ``k-<name>``."""
    h = (name * 64)[:64]
    blob = tmp_path / f"{name}.bin"
    blob.write_bytes(b"x" * size)
    d = cache.publish(h, {"module.so": str(blob)}, kernels=[("k" + name * 64)[:64]])
    cache.record_kernels(h, [("k" + name * 64)[:64]])
    used = time.time() - age_s
    os.utime(os.path.join(d, cache.MANIFEST), (used, used))
    return h


def present(h):
    return os.path.isdir(cache.entry_dir(h))


@pytest.mark.parametrize("cap_kb, kept", [
    (1000, "abcd"),   # under the cap: nothing goes
    (300, "cd"),      # 400 KB > 300: oldest first down to 240 KB (0.8 x 300)
    (150, "d"),       # down to 120 KB: only the newest stays
])
def test_least_recently_used_entries_go_first(fresh_cache, cap_kb, kept):
    ages = {"a": 4000, "b": 3000, "c": 2000, "d": 1000}
    hashes = {n: fake_entry(fresh_cache, n, 100 * KB, age) for n, age in ages.items()}
    cache_gc.collect(cap_kb * KB)
    assert {n for n, h in hashes.items() if present(h)} == set(kept)


def test_recently_used_entries_stay_even_above_the_cap(fresh_cache):
    old = fake_entry(fresh_cache, "a", 100 * KB, 4000)
    recent = [fake_entry(fresh_cache, n, 100 * KB, 10) for n in "bc"]
    removed = cache_gc.collect(50 * KB)
    assert removed == [old] and all(present(h) for h in recent)


def test_records_naming_a_removed_entry_go_with_it(fresh_cache):
    from warp_interactive.build import warm_index
    old = fake_entry(fresh_cache, "a", 100 * KB, 4000)
    new = fake_entry(fresh_cache, "b", 100 * KB, 1000)
    warm_index.store("1" * 64, {"kernels": {"k_1": [old, 1]}})
    warm_index.store("2" * 64, {"kernel_hash": "x", "unit": new, "tid_arity": 1})
    cache_gc.collect(150 * KB)
    assert not present(old) and present(new)
    assert cache.kernel_unit(("k" + "a" * 64)[:64]) is None
    assert cache.kernel_unit(("k" + "b" * 64)[:64]) == new
    assert warm_index.lookup("1" * 64) is None
    assert warm_index.lookup("2" * 64)["unit"] == new


def test_maybe_collect_runs_at_most_once_per_interval(fresh_cache, monkeypatch):
    fake_entry(fresh_cache, "a", 100 * KB, 4000)
    monkeypatch.setattr(wp.config, "kernel_cache_max_bytes", 50 * KB)
    assert cache_gc.maybe_collect() == [("a" * 64)]
    fake_entry(fresh_cache, "b", 100 * KB, 4000)
    assert cache_gc.maybe_collect() is None          # stamped a moment ago
    monkeypatch.setattr(wp.config, "kernel_cache_max_bytes", 0)
    assert cache_gc.maybe_collect() is None          # no cap


def test_a_collected_module_rebuilds_with_the_right_values(fresh_cache):
    @wp.kernel
    def gc_scale(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = a[i] * 3.0 + 1.0

    a = wp.array(np.arange(8, dtype=np.float32))
    out = wp.zeros(8, dtype=float)
    wp.launch(gc_scale, dim=8, inputs=[a, out])
    unit = gc_scale.module.last_build[0]
    manifest = os.path.join(cache.entry_dir(unit), cache.MANIFEST)
    os.utime(manifest, (time.time() - 4000,) * 2)
    assert unit in cache_gc.collect(1)
    gc_scale.module.invalidate()
    out.zero_()
    wp.launch(gc_scale, dim=8, inputs=[a, out])
    assert gc_scale.module.last_build[1] is True          # compiled again, not a stale index hit
    np.testing.assert_array_equal(out.numpy(), np.arange(8) * 3.0 + 1.0)
    with open(manifest) as f:
        assert json.load(f)["binaries"]["module.so"] == cache.file_sha256(
            os.path.join(cache.entry_dir(unit), "module.so"))


# --- the collector and the entries in use (a collection racing a build) ------------------------
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(wp.__file__)))

HOLDER = '''
import sys
import warp_interactive as wp
from warp_interactive.compiler import cache
wp.config.kernel_cache_dir = sys.argv[1]
with cache.in_use():
    print("held", flush=True)
    sys.stdin.readline()
'''


def _python(code, *args, **kwargs):
    """A Python process running ``code`` (a script file's path, or code) with ``args``."""
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT)
    cmd = [code] if code.endswith(".py") else ["-c", code]
    return subprocess.Popen([sys.executable, *cmd, *args], env=env, text=True, **kwargs)


def test_collection_skips_while_another_process_uses_the_cache(fresh_cache):
    import subprocess
    old = fake_entry(fresh_cache, "a", 100 * KB, 4000)
    holder = _python(HOLDER, cache.cache_dir(), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert cache_gc.collect(50 * KB) == [] and present(old)
    finally:
        holder.communicate("\n", timeout=60)
    assert holder.returncode == 0
    assert cache_gc.collect(50 * KB) == [old] and not present(old)


def test_collection_asked_for_inside_the_lock_runs_at_its_release(fresh_cache, monkeypatch):
    old = fake_entry(fresh_cache, "a", 100 * KB, 4000)
    monkeypatch.setattr(wp.config, "kernel_cache_max_bytes", 50 * KB)
    with cache.in_use():
        with cache.in_use():                     # nested: one lock, released at the outer exit
            assert cache_gc.maybe_collect() is None
        assert present(old)
    assert not present(old)
    monkeypatch.setattr(wp.config, "kernel_cache_max_bytes", 0)


LOADER = '''
import os, subprocess, sys
import numpy as np
import warp_interactive as wp
from warp_interactive.build import cpu_build
wp.config.kernel_cache_dir = sys.argv[1]

@wp.kernel
def axpy(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = 2.0 * a[i] + 1.0

if sys.argv[2] == "collect-before-loading":
    # the interleaving: another process collects after this load found its units, before it
    # loads them
    original = cpu_build.LoadedModule.__init__
    def collect_first(self, *args, **kwargs):
        code = ("import sys, warp_interactive as wp; from warp_interactive.compiler import cache_gc;"
                "wp.config.kernel_cache_dir = sys.argv[1]; print(len(cache_gc.collect(1)))")
        out = subprocess.run([sys.executable, "-c", code, sys.argv[1]], capture_output=True,
                             text=True, check=True).stdout
        print("collected", out.strip())
        original(self, *args, **kwargs)
    cpu_build.LoadedModule.__init__ = collect_first
a = np.arange(8, dtype=np.float32)
out = wp.zeros(8, dtype=float)
wp.launch(axpy, dim=8, inputs=[wp.array(a), out])
np.testing.assert_allclose(out.numpy(), 2.0 * a + 1.0)
print("ok")
'''


def test_a_collection_between_a_lookup_and_the_load_waits(fresh_cache):
    """A warm load found its units in the cache; another process collects (every entry was
    last used half an hour ago and the cap is 1 byte) before the load maps them: the collector finds the cache in use and
    removes nothing, the load runs the right code; a later collection removes the entries."""
    import subprocess
    root = cache.cache_dir()
    loader = fresh_cache / "loader.py"      # kernels need a source file
    loader.write_text(LOADER)
    build = _python(str(loader), root, "build", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = build.communicate(timeout=300)
    assert build.returncode == 0, err
    old = time.time() - 1800     # used half an hour ago: past the grace, not stamped again yet
    for dirpath, _, files in os.walk(root):
        for f in files:
            os.utime(os.path.join(dirpath, f), (old, old))
    load = _python(str(loader), root, "collect-before-loading", stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
    out, err = load.communicate(timeout=300)
    assert load.returncode == 0, err
    assert out.split() == ["collected", "0", "ok"]
    assert len(cache_gc.collect(1)) >= 1
