"""Keeping CUDA code from rotting on machines without a GPU.

With ``WARP_INTERACTIVE_RECORD_CUDA=<folder>`` set, every module build on the CPU also writes
the module's CUDA source (forward and adjoint, its own debug/release mode) into that folder,
named by the source's hash, so any number of processes (pytest-xdist workers, notebook
kernels) can record at once and duplicates collapse. ``check_folder`` then compiles each
recorded source with NVRTC for a given architecture; scripts/test.sh runs it after the suite.
"""

import hashlib
import os
import re
import tempfile

ENV = "WARP_INTERACTIVE_RECORD_CUDA"


def record_dir():
    return os.environ.get(ENV) or None


def record_module(module, include_dirs=()):
    """Write ``module``'s CUDA source into the record folder (called after a CPU build);
    ``include_dirs``: its extra CUDA include directories (wp.ModuleBuildOptions)."""
    folder = record_dir()
    if folder is None or not module.kernels:
        return None
    from ..codegen.target import CUDA
    source = module.source(CUDA, backward=bool(module.option("enable_backward")))
    if "wp::breakpoint<" in source:   # refused by CUDA builds on purpose (debugging.h)
        return None
    debug = module.option("mode") == "debug"
    fast = bool(module.option("fast_math"))
    more = f" include={os.pathsep.join(include_dirs)}" if include_dirs else ""
    header = f"// module: {module.name}\n// options: debug={int(debug)} fast_math={int(fast)}{more}\n"
    text = header + source
    name = hashlib.sha256(text.encode()).hexdigest()[:24] + ".cu"
    path = os.path.join(folder, name)
    if os.path.exists(path):
        return path
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".cu")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


def recorded_sources(folder):
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n.endswith(".cu") and not n.startswith("."))


_KERNEL = re.compile(r'^extern "C" __global__ void (\w+)\(', re.M)


def distinct_sources(paths):
    """The recorded sources worth compiling: for each (module name, options), drop a source
    whose kernels all appear in another recorded source of that module.

    A module that gains kernels while a process runs (a library's generic instances, a test
    module filled case by case) is recorded once per state, each a superset of the last; a
    kernel's generated name carries the hash of its definition, so the largest state compiles
    every kernel of the smaller ones. Sorted, so every run checks the same files."""
    groups = {}
    for path in paths:
        with open(path) as f:
            text = f.read()
        head = text.split("\n", 2)[:2]
        groups.setdefault(tuple(head), []).append((frozenset(_KERNEL.findall(text)), len(text), path))
    keep = []
    for records in groups.values():
        records.sort(key=lambda r: (-len(r[0]), -r[1], r[2]))
        kept = []
        for kernels, _, path in records:
            if not any(kernels <= other for other, _ in kept):
                kept.append((kernels, path))
        keep += [path for _, path in kept]
    return sorted(keep)


def read_recorded(path):
    """(module name, debug, fast_math, source) of a recorded file."""
    name, opts, source = _read(path)
    return name, opts["debug"] == "1", opts["fast_math"] == "1", source


def _read(path):
    with open(path) as f:
        text = f.read()
    first, second, source = text.split("\n", 2)
    name = first.split(":", 1)[1].strip()
    opts = dict(kv.split("=", 1) for kv in second.split(":", 1)[1].split())
    return name, opts, source


def largest_first(paths):
    """``paths`` ordered by size, largest first (ties by name, so every run has one order): the
    check's workers take sources in order, and a large module left to the end keeps one worker
    busy alone while the others have finished."""
    return sorted(paths, key=lambda p: (-os.path.getsize(p), p))


# NVRTC >= 12.8 keeps a precompiled header in memory for the include at the start of a source
# and reuses it in later compiles in the same process (the check's NVRTC worker): every
# recorded module starts with the same builtin.h, whose parsing is most of a small module's build
PCH_VERSION = (12, 8)


def pch_options():
    from . import nvrtc
    return ["-pch"] if nvrtc.version() >= PCH_VERSION else []


def check_file(path, arch=90):
    """Compile one recorded source with NVRTC for ``sm_<arch>``; raises CompileError."""
    from . import nvrtc
    name, opts, source = _read(path)
    dirs = [d for d in opts.get("include", "").split(os.pathsep) if d]
    return nvrtc.compile_source(source, arch, opts["debug"] == "1", opts["fast_math"] == "1", name,
                                kind="cubin", include_dirs=dirs, extra=pch_options())
