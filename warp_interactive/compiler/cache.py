"""The on-disk kernel cache: content-addressed entries, atomic writes, corruption detection.

An entry is a folder named by the hash of its source (a module's, or on the CPU a unit's: a
group of a module's kernels) holding the generated source, the binary and a manifest with the
binary's SHA-256 and the hashes of the kernels it provides. A missing or mismatching manifest
means the entry is rebuilt; files are published by renaming finished temporary files, the
manifest last, so readers never see a half-written entry and two processes building the same
module both succeed. ``kernels/`` maps a kernel's hash to the entry that provides it
(build/cpu_build.py); garbage collection is in ``compiler/cache_gc.py``.

A process that looks entries up, publishes or loads them does so inside ``in_use()``: a shared
lock on the cache's ``gc.lock``, which the garbage collector takes exclusively (without
waiting: a busy cache is collected next time), so it never renames away an entry between a
build's lookup or publish and its load. Without ``fcntl`` (Windows) there is no lock.
"""

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
import time
import warnings

from ..config import config, default_kernel_cache_dir
from ..version import __version__

MANIFEST = "manifest.json"


_fallback = {}     # a configured folder that cannot be written -> the private one used instead
_writable = set()  # configured folders a build has checked


def cache_dir():
    d = config.kernel_cache_dir or default_kernel_cache_dir()   # None: the default again
    if d in _fallback:
        return _fallback[d]
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as e:
        return _fall_back(d, e)
    return d


def writable_cache_dir():
    """``cache_dir()``, checked by writing to it once (before a build): a folder that cannot be
    written (a read-only mount, another user's cache) is replaced, for this process, by a private
    temporary cache, with a warning, instead of failing every build."""
    d = cache_dir()
    if d in _writable or d in _fallback.values():
        return d
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".probe-", dir=d))
    except OSError as e:
        return _fall_back(d, e)
    _writable.add(d)
    return d


def _fall_back(d, err):
    private = tempfile.mkdtemp(prefix="warp_interactive-cache-")
    _fallback[d] = private
    warnings.warn(f"warp_interactive: the kernel cache {d} cannot be written "
                  f"({err.strerror or err}); this process builds into the private temporary cache "
                  f"{private} instead (set wp.config.kernel_cache_dir or WARP_INTERACTIVE_CACHE_DIR "
                  f"to a writable folder to keep binaries between sessions)", RuntimeWarning,
                  stacklevel=3)
    return private


def _valid_manifest(manifest):
    """``manifest`` if it has the shape this module writes, else a fresh one (a damaged entry's
    manifest is replaced by its rebuild, never a reason to fail)."""
    ok = isinstance(manifest, dict) and isinstance(manifest.get("binaries"), dict) and \
        isinstance(manifest.get("kernels", []), list)
    return manifest if ok else {"binaries": {}}


_LINE_MARKERS = re.compile(r"  // py:[^\n]*")


def module_hash(source, build_key):
    """The cache key of a generated source: its text, everything else that decides the binary
    (``build_key``: compiler, flags, headers) and the package version."""
    # codegen's `// py:FILE:LINE` comments only map compiler errors back to Python: a kernel that
    # moved (lines added above it, a re-run notebook cell) keeps its binary
    if "// py:" in source:
        source = _LINE_MARKERS.sub("", source)
    h = hashlib.sha256()
    h.update(source.encode())
    h.update(repr(build_key).encode())
    h.update(__version__.encode())
    return h.hexdigest()


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def entry_dir(module_hash):
    return os.path.join(cache_dir(), module_hash[:2], module_hash)


# a used entry's manifest mtime is refreshed at most this often: the garbage collector's "last
# used" (cache_gc.py), for one fstat per load and one utime per entry per hour
USE_STAMP_S = 3600


def lookup(module_hash, binary_name, provides=()):
    """Path of a valid cached binary, or None. ``provides``: kernel hashes the entry's manifest
    must list (a kernel record that names the wrong entry misses)."""
    found = lookup_entry(module_hash, binary_name)
    if found is None or not set(provides) <= found[1]:
        return None
    return found[0]


def lookup_entry(module_hash, binary_name):
    """(path of a valid cached binary, set of the kernel hashes its entry provides), or None.
    A damaged or half-published entry is a miss; it is left in place: the rebuild's publish
    replaces it (removing it here could remove the binary of a publish in progress, whose
    manifest comes last)."""
    d = entry_dir(module_hash)
    binary = os.path.join(d, binary_name)
    try:
        with open(os.path.join(d, MANIFEST)) as f:
            manifest = json.load(f)
            stamp = os.fstat(f.fileno()).st_mtime
        if manifest.get("binaries", {}).get(binary_name) == file_sha256(binary):
            if time.time() - stamp > USE_STAMP_S:
                _touch(os.path.join(d, MANIFEST))
            return binary, set(manifest.get("kernels", ()))
    except (OSError, ValueError, TypeError, AttributeError):
        pass
    return None


def publish(module_hash, files, move=False, kernels=()):
    """Store ``files`` ({name: path}) in the entry for ``module_hash``; returns the entry dir.

    New files are written to a temporary folder beside the entry and renamed into it one by
    one, the manifest last, so a reader sees either the old state or the complete new one.
    ``move=True`` renames the given files there instead of copying them (they must be on the
    cache's file system: see ``build_dir``). ``kernels``: the hashes of the kernels it provides.
    """
    with in_use():
        return _publish(module_hash, files, move, kernels)


def _publish(module_hash, files, move, kernels):
    d = entry_dir(module_hash)
    os.makedirs(d, exist_ok=True)
    manifest_path = os.path.join(d, MANIFEST)
    try:
        with open(manifest_path) as f:
            manifest = _valid_manifest(json.load(f))
    except (OSError, ValueError):
        manifest = {"binaries": {}}
    if kernels:
        manifest["kernels"] = sorted(set(manifest.get("kernels", [])) | set(kernels))
    tmp = tempfile.mkdtemp(prefix=".tmp-", dir=d)
    try:
        for name, src in files.items():
            staged = os.path.join(tmp, name)
            if move:
                os.replace(src, staged)
            else:
                shutil.copyfile(src, staged)
            if not name.endswith((".cpp", ".cu")):
                manifest["binaries"][name] = file_sha256(staged)
            os.replace(staged, os.path.join(d, name))
        staged_manifest = os.path.join(tmp, MANIFEST)
        with open(staged_manifest, "w") as f:
            json.dump(manifest, f)
        os.replace(staged_manifest, manifest_path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return d


def _kernel_record(kernel_hash):
    return os.path.join(cache_dir(), "kernels", kernel_hash[:2], kernel_hash)


def kernel_unit(kernel_hash):
    """The hash of an entry that provides the kernel ``kernel_hash``, or None."""
    try:
        with open(_kernel_record(kernel_hash)) as f:
            unit = f.read().strip()
        return unit if len(unit) == 64 else None
    except OSError:
        return None


def record_kernels(unit_hash, kernel_hashes):
    """Remember that the entry ``unit_hash`` provides these kernels (atomic writes; a read-only
    cache only loses the shortcut)."""
    for h in kernel_hashes:
        write_atomic(_kernel_record(h), unit_hash)


def write_atomic(path, text):
    """Write ``text`` to ``path`` by renaming a finished temporary file; False if the cache is
    not writable (callers treat what they write as an optimisation)."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
        return True
    except OSError:
        return False


def _touch(path):
    try:
        os.utime(path)
    except OSError:
        pass


def build_dir():
    """A new temporary folder inside the cache (same file system: its files can be published by
    renaming them); the caller removes it."""
    return tempfile.mkdtemp(prefix=".build-", dir=cache_dir())


def clear_kernel_cache():
    """Delete every cached kernel binary."""
    d = cache_dir()
    for name in os.listdir(d):
        shutil.rmtree(os.path.join(d, name), ignore_errors=True)


# --- entries in use: a shared lock the garbage collector takes exclusively ---------------------
LOCK_FILE = "gc.lock"
_use = threading.Lock()       # guards the two fields below
_held = [0, None]             # [nesting depth in this process, the lock's descriptor]
_deferred = []                # collections asked for while the lock was held (run at release)

try:
    import fcntl
except ImportError:           # Windows: no lock (a collection may race a load there)
    fcntl = None


@contextlib.contextmanager
def in_use():
    """Hold the cache's shared lock (nested and multi-threaded uses share one, per process)."""
    _acquire()
    try:
        yield
    finally:
        _release()


def held():
    """Whether this process holds the shared lock now."""
    return _held[0] > 0


def _acquire():
    with _use:
        _held[0] += 1
        if _held[0] > 1 or fcntl is None:
            return
        try:
            fd = _open_lock()
        except OSError:        # a read-only cache: nothing there is ever collected either
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)   # waits only while a collection renames entries
        except OSError:
            os.close(fd)
            return
        _held[1] = fd


def _release():
    with _use:
        _held[0] -= 1
        if _held[0] > 0:
            return
        fd, _held[1] = _held[1], None
        run = list(_deferred)
        _deferred.clear()
    if fd is not None:
        os.close(fd)           # closing drops the lock
    for collect in run:
        collect()


def defer_while_held(collect):
    """Run ``collect`` at the release of this process's shared lock; False if it is not held."""
    with _use:
        if _held[0] == 0:
            return False
        if collect not in _deferred:
            _deferred.append(collect)
        return True


@contextlib.contextmanager
def exclusive():
    """The lock exclusively, without waiting: yields True if taken, False if another process
    uses the cache now (or the lock cannot be had at all)."""
    if fcntl is None:
        yield True
        return
    try:
        fd = _open_lock()
    except OSError:
        yield False
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        taken = True
    except OSError:
        taken = False
    try:
        yield taken
    finally:
        os.close(fd)


def _open_lock():
    # a plain descriptor: a Python file object costs ~25 us more per load
    return os.open(os.path.join(cache_dir(), LOCK_FILE), os.O_RDONLY | os.O_CREAT, 0o666)
