"""The on-disk kernel cache: content-addressed entries, atomic writes, corruption detection.

An entry is a folder named by the module hash holding the generated source, the binary and a
manifest with the binary's SHA-256. A missing or mismatching manifest means the entry is
rebuilt; entries are published by renaming a finished temporary folder, so readers never see
a half-written one and two processes building the same module both succeed.
"""

import hashlib
import json
import os
import shutil
import tempfile

from ..config import config, default_kernel_cache_dir

MANIFEST = "manifest.json"


def cache_dir():
    d = config.kernel_cache_dir or default_kernel_cache_dir()   # None: the default again
    os.makedirs(d, exist_ok=True)
    return d


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def entry_dir(module_hash):
    return os.path.join(cache_dir(), module_hash[:2], module_hash)


def lookup(module_hash, binary_name):
    """Path of a valid cached binary, or None (a corrupt entry is removed)."""
    d = entry_dir(module_hash)
    binary = os.path.join(d, binary_name)
    try:
        with open(os.path.join(d, MANIFEST)) as f:
            manifest = json.load(f)
        if manifest.get("binaries", {}).get(binary_name) == file_sha256(binary):
            return binary
    except (OSError, ValueError):
        pass
    if os.path.exists(binary):
        # present but unverifiable: a half-written or damaged entry; rebuild it
        _remove_file(binary)
    return None


def publish(module_hash, files, move=False):
    """Store ``files`` ({name: path}) in the entry for ``module_hash``; returns the entry dir.

    New files are written to a temporary folder beside the entry and renamed into it one by
    one, the manifest last, so a reader sees either the old state or the complete new one.
    ``move=True`` renames the given files there instead of copying them (they must be on the
    cache's file system: see ``build_dir``).
    """
    d = entry_dir(module_hash)
    os.makedirs(d, exist_ok=True)
    manifest_path = os.path.join(d, MANIFEST)
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        manifest = {"binaries": {}}
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


def build_dir():
    """A new temporary folder inside the cache (same file system: its files can be published by
    renaming them); the caller removes it."""
    return tempfile.mkdtemp(prefix=".build-", dir=cache_dir())


def _remove_file(path):
    try:
        os.remove(path)
    except OSError:
        pass


def clear_kernel_cache():
    """Delete every cached kernel binary."""
    d = cache_dir()
    for name in os.listdir(d):
        shutil.rmtree(os.path.join(d, name), ignore_errors=True)
