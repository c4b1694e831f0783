"""The compiler stage as data: ``compile(source, BuildOptions) -> Binary``.

One entry point for every build the package makes: a kernel module for the CPU (the system C++
compiler, with the builtin library's precompiled header), for CUDA (NVRTC: CUBIN or PTX) and a
plain host library (the JAX FFI handler). Each goes through the one on-disk cache
(compiler/cache.py): the key is ``cache.module_hash(source, build_key(options))``, a hit is a
validated entry, a miss compiles into a temporary folder and publishes atomically.
"""

import os
import shutil
import time
from dataclasses import dataclass

from ..config import config
from ..errors import CompileError
from . import cache

TARGETS = ("cpu", "cuda", "host-library")


@dataclass(frozen=True)
class BuildOptions:
    """What decides a binary besides its source."""

    target: str = "cpu"          # one of TARGETS
    debug: bool = False
    fast_math: bool = False
    arch: int = 0                # cuda: the device's compute capability (e.g. 90)
    name: str = "module"         # named in messages
    include_dirs: tuple = ()     # where its #includes are found besides the package's headers
    key_extra: tuple = ()        # whatever else decides it (a header's hash, dependency files' hashes)
    quick: bool = False          # cpu: the quick tier's flags (-O0, same bits: build/quick_tier.py)

    def __post_init__(self):
        if self.target not in TARGETS:
            raise ValueError(f"unknown build target {self.target!r}: expected one of {TARGETS}")


@dataclass(frozen=True)
class Binary:
    """A built (or cached) binary: ``path`` in the cache entry (or ``data`` in memory)."""

    kind: str                    # "so" (CPU module, host library), "cubin" or "ptx"
    hash: str                    # the cache key (module hash)
    path: str = None
    data: bytes = None
    built: bool = False          # True when a compiler ran (a cache miss)
    seconds: float = 0.0
    log: str = ""                # the compiler's output on a successful build (warnings)


HOST_LIBRARY = "library.so"
HOST_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-shared", "-w")


def build_key(options):
    """Everything besides the source that decides ``options``' binary (part of its hash)."""
    from . import cpu
    if options.target == "cpu":
        return cpu.build_key(options.debug, options.fast_math, options.quick, options.key_extra)
    if options.target == "cuda":
        from . import nvrtc
        return nvrtc.build_key(options.arch, options.debug, options.fast_math, options.key_extra)
    return [cpu.compiler_identity(config.cpu_compiler), list(HOST_FLAGS), list(options.key_extra)]


def compile(source, options):
    """The Binary of ``source`` for ``options``: from the cache, or compiled and published."""
    # no garbage collection between the lookup and the publish (the caller's load just after,
    # of a CUDA module or a host library, is outside: microseconds, against GRACE_S since use)
    with cache.in_use():
        return _compile(source, options)


def _compile(source, options):
    key = cache.module_hash(source, build_key(options))
    t0 = time.perf_counter()
    if options.target == "cpu":
        from . import cpu
        path, built = cpu.compile_module(source, key, options.debug, options.fast_math, options.name,
                                         include_dirs=options.include_dirs)
        kind, log = "so", ""
    elif options.target == "cuda":
        from . import nvrtc
        path, kind, built = nvrtc.compile_module(source, key, options.arch, options.debug,
                                                 options.fast_math, options.name, options.include_dirs)
        log = ""      # NVRTC's log is read only on failure (CompileError)
    else:
        path, built, log = _compile_host_library(source, key, options)
        kind = "so"
    return Binary(kind, key, path=path, built=built, seconds=time.perf_counter() - t0, log=log)


def compile_units(units, options, background=False):
    """CPU: [Binary] for several sources at once, ``units`` = [(source, hash, kernel hashes)]
    with each hash ``cache.module_hash(source, build_key(options))``: the cached ones found, the
    others compiled in parallel (build/cpu_build.py: a module's kernels in separately cached
    units, so that an edit recompiles only the kernels whose code changed). ``background``: the
    compilers are background ones, stopped while this process loads a module (the quick tier's
    optimised build: compiler/background.py)."""
    from . import cpu
    if options.target != "cpu":
        raise ValueError(f"compile_units builds CPU units, not {options.target!r}")
    t0 = time.perf_counter()
    with cache.in_use():
        found = cpu.compile_units(units, options.debug, options.fast_math, options.name,
                                  options.quick, background, options.include_dirs)
    seconds = time.perf_counter() - t0
    return [Binary("so", h, path=path, built=built, seconds=seconds if built else 0.0)
            for (_, h, _), (path, built) in zip(units, found)]


def _compile_host_library(source, key, options):
    """A plain C++ shared library (no builtin headers): the JAX FFI handler."""
    import subprocess
    hit = cache.lookup(key, HOST_LIBRARY)
    if hit is not None:
        return hit, False, ""
    tmp = cache.build_dir()
    try:
        src, out = os.path.join(tmp, "library.cpp"), os.path.join(tmp, HOST_LIBRARY)
        with open(src, "w") as f:
            f.write(source)
        includes = [a for d in options.include_dirs for a in ("-I", d)]
        cmd = [config.cpu_compiler, *HOST_FLAGS, *includes, src, "-o", out, "-pthread"]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            raise CompileError(f"building {options.name} failed\ncommand: {' '.join(cmd)}\n"
                               f"compiler log:\n{result.stderr[:8000]}")
        entry = cache.publish(key, {"library.cpp": src, HOST_LIBRARY: out}, move=True)
        return os.path.join(entry, HOST_LIBRARY), True, result.stderr
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
