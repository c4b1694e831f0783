"""Garbage collection of the kernel cache: a size cap, least recently used entries go first.

Every edit publishes new entries (a unit's source and binary, its kernel records, warm-index
entries) and leaves the old ones to no module: without a cap the cache only grows. The cap is
``wp.config.kernel_cache_max_bytes`` (default 1 GiB; the environment variable
``WARP_INTERACTIVE_CACHE_MAX_BYTES``; 0 or None: no cap). After a build, at most once per
``INTERVAL_S`` per cache, the entries are sized; above the cap, binaries entries (units,
precompiled headers) are removed least recently used first (an entry's manifest is stamped
when a load uses it, hourly: ``cache.USE_STAMP_S``) until the cache is at ``LOW_WATER`` of the
cap. An entry no module loads any more is never stamped again, so it is the first to go. An
entry used in the last ``GRACE_S`` is kept (a build of another process may be about to name
it), even if the cache then stays above the cap. Warm-index entries and kernel records that
named a removed entry are removed with it.

Removal renames an entry out of the way before deleting it: a reader sees it whole or not at
all, and a missing entry is only a cache miss (the loaded copy of a removed binary keeps
working: the loader maps the file, it does not reread it). The renames happen under the cache's
lock taken exclusively (``cache.exclusive``), which every lookup-to-load and publish holds
shared (``cache.in_use``): an entry is never renamed away between a build's lookup or publish
and its load. A collection that finds the cache in use skips (the next one is due after
``INTERVAL_S``); one asked for while this process holds the lock runs at its release.
"""

import json
import os
import shutil
import time

from ..config import config
from . import cache

INTERVAL_S = 600
GRACE_S = 120
LOW_WATER = 0.8
STAMP = "gc-stamp"


def maybe_collect():
    """Collect if a cap is set and the last collection of this cache is ``INTERVAL_S`` old."""
    cap = config.kernel_cache_max_bytes
    if not cap or cache.defer_while_held(maybe_collect):
        return None
    stamp = os.path.join(cache.cache_dir(), STAMP)
    try:
        if time.time() - os.stat(stamp).st_mtime < INTERVAL_S:
            return None
    except OSError:
        pass
    if not cache.write_atomic(stamp, ""):
        return None
    return collect(cap)


def collect(max_bytes, now=None):
    """Remove least recently used entries until the cache holds at most ``LOW_WATER`` of
    ``max_bytes`` (if it holds more than ``max_bytes``). Returns the removed entries' hashes."""
    now = time.time() if now is None else now
    root = cache.cache_dir()
    entries = _entries(root)
    total = sum(size for _, size, _ in entries) + _small_files_size(root)
    if total <= max_bytes:
        return []
    trash = []
    with cache.exclusive() as mine:
        for path, size, used in sorted(entries, key=lambda e: e[2]) if mine else ():
            if total <= LOW_WATER * max_bytes or now - used < GRACE_S:
                break
            if now - _last_use(path) < GRACE_S:   # used since the listing, before the lock
                continue
            moved = _move_away(root, path)
            if moved:
                total -= size
                trash.append((moved, os.path.basename(path)))
    for moved, _ in trash:
        shutil.rmtree(moved, ignore_errors=True)
    removed = [name for _, name in trash]
    if removed:
        _forget(root, set(removed))
    return removed


def _entries(root):
    """(path, bytes, last use) of every unit/module entry and precompiled header."""
    out = []
    for top in _listdir(root):
        folder = os.path.join(root, top)
        if len(top) == 2:
            for name in _listdir(folder):
                if len(name) == 64:
                    out.append(_sized(os.path.join(folder, name), cache.MANIFEST))
        elif top == "pch":
            for name in _listdir(folder):
                out.append(_sized(os.path.join(folder, name), None))
    return [e for e in out if e is not None]


def _sized(path, stamp_file):
    size, used = 0, 0.0
    for dirpath, _, files in os.walk(path):
        for f in files:
            try:
                st = os.stat(os.path.join(dirpath, f))
            except OSError:
                continue
            size += st.st_size
            if stamp_file is None or f == stamp_file:
                used = max(used, st.st_mtime)
    if used == 0.0:   # no manifest: a half-published entry; as old as its folder
        try:
            used = os.stat(path).st_mtime
        except OSError:
            return None
    return path, size, used


def _small_files_size(root):
    size = 0
    for top in ("index", "kernels"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                try:
                    size += os.stat(os.path.join(dirpath, f)).st_size
                except OSError:
                    pass
    return size


def _last_use(path):
    found = _sized(path, cache.MANIFEST if os.path.basename(os.path.dirname(path)) != "pch" else None)
    return found[2] if found is not None else 0.0


def _move_away(root, path):
    """Rename an entry out of the cache's folders (deleted after the lock is released); returns
    its new path, or None."""
    trash = os.path.join(root, f".trash-{os.getpid()}-{os.path.basename(path)}")
    try:
        os.rename(path, trash)
    except OSError:
        return None
    return trash


def _forget(root, removed):
    """Remove the warm-index entries and kernel records that name a removed entry."""
    for top in ("index", "kernels"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                path = os.path.join(dirpath, f)
                if _names(path) & removed:
                    try:
                        os.remove(path)
                    except OSError:
                        pass


def _names(path):
    """The entry hashes an index entry or a kernel record names."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return set()
    if not text.startswith("{"):
        return {text.strip()}
    try:
        entry = json.loads(text)
    except ValueError:
        return set()
    names = {entry.get("unit"), entry.get("module_hash")}
    for value in (entry.get("kernels") or {}).values():
        if isinstance(value, list) and value:
            names.add(value[0])
    return {n for n in names if isinstance(n, str)}


def _listdir(path):
    try:
        return os.listdir(path)
    except OSError:
        return []
