"""CPU build: generated C++ -> shared library, through the system C++ compiler.

The builtin library is compiled once into a precompiled header (per compiler, flags and
header contents), so a module's build parses only its own code.
"""

import hashlib
import os
import shutil
import threading
import time
from functools import lru_cache

from .. import _paths
from ..config import config
from ..errors import CompileError
from . import background as _background
from . import cache

BINARY = "module.so"
# Modules link against nothing (no start files, no libstdc++, not even libc/libm): the header
# library is self-contained, and the few C library functions it calls (printf, snprintf, the libm
# functions that are not a single instruction, memcpy) are bound when the module is loaded, from
# the libc and libm every Python process has loaded. Reading libc.so's linker script and the
# symbol tables of libc and libm was ~18 ms of a ~25 ms link.
LINK = ["-nostdlib"]
SOURCE = "module.cpp"


@lru_cache(maxsize=None)
def compiler_identity(cxx):
    """The compiler's resolved path, size and mtime: changes whenever the compiler does, and
    costs a stat rather than a subprocess (a warm-cache load must stay in milliseconds)."""
    path = shutil.which(cxx)
    if path is None:
        raise CompileError(f"the C++ compiler '{cxx}' was not found; install g++ or set "
                           "wp.config.cpu_compiler / the CXX environment variable")
    real = os.path.realpath(path)
    st = os.stat(real)
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


def headers_hash():
    """Hash of the builtin headers (cached; ``reset_caches`` after editing them in-process)."""
    return _headers_hash(_paths.include_dir())


@lru_cache(maxsize=None)
def _headers_hash(include_dir):
    """The content hash of the headers (every file under the folder, by its path there),
    remembered in the cache under their paths, sizes and mtimes: a warm-cache load then stats the
    headers instead of reading and hashing them all."""
    folder = os.path.join(include_dir, "warp_interactive")
    names = header_files(folder)
    stats = [(n, os.stat(os.path.join(folder, n))) for n in names]
    sig = hashlib.sha256(repr([(folder, n, st.st_size, st.st_mtime_ns) for n, st in stats])
                         .encode()).hexdigest()[:32]
    memo = os.path.join(cache.cache_dir(), "headers", sig)
    try:
        with open(memo) as f:
            known = f.read().strip()
        if len(known) == 64:
            return known
    except OSError:
        pass
    h = hashlib.sha256()
    for name in names:
        with open(os.path.join(folder, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    digest = h.hexdigest()
    _remember(memo, digest)
    return digest


def header_files(folder):
    """The files under ``folder``, as sorted '/'-separated paths relative to it."""
    names = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        rel = os.path.relpath(root, folder)
        names += [f if rel == "." else f"{rel}/{f}".replace(os.sep, "/") for f in files]
    return sorted(names)


def _remember(path, text):
    """Write ``text`` to ``path`` atomically; a read-only cache only costs the shortcut."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        pass


def reset_caches():
    _headers_hash.cache_clear()


# libm functions whose plain name, as an unversioned reference from a module linked against
# nothing (LINK), binds to glibc's oldest version: a compatibility wrapper (errno, SVID error
# handling) around the same implementation. Their _FloatN aliases (glibc >= 2.27) have one
# version, the current one without the wrapper: `expf` went through `__expf_compat`, one more
# call and branch per element (a seventh of an elementwise backward's time).
_FLOATN_LIBM = ("expf32", "exp2f32", "logf32", "log2f32", "powf32",
                "expf64", "exp2f64", "logf64", "log2f64", "powf64")


@lru_cache(maxsize=None)
def _libm_floatn():
    """Whether this process's libm has every name of _FLOATN_LIBM (prelude.h then calls them)."""
    import ctypes       # here, not at import: a warm load never builds flags on other systems
    # the process's own symbols (dlopen(NULL)): the libm a module binds to when it is loaded;
    # ctypes.util.find_library ran ldconfig/gcc in subprocesses, ~70 ms of every warm load
    try:
        libm = ctypes.CDLL(None)
    except OSError:
        return False
    return all(hasattr(libm, fn) for fn in _FLOATN_LIBM)


def flags(debug, fast_math, quick=False):
    """The compiler flags. ``quick``: the first tier of a large cold build (build/quick_tier.py):
    -O0 with every flag that decides a floating-point result kept, so its code computes the same
    bits as the optimised build's (no fast_math: reassociation would differ)."""
    # no exceptions: generated code never throws, and without them a module needs nothing from
    # libstdc++ (see LINK), which keeps the link step to a few milliseconds
    base = ["-std=c++17", "-fPIC", "-fvisibility=hidden", "-w", "-fno-math-errno", "-fno-exceptions"]
    if _libm_floatn():
        base.append("-DWPI_LIBM_FLOATN=1")
    if debug:
        return base + ["-O0", "-g"]
    # -fopenmp-simd: the SIMD clones of host_math.h's libm fallbacks (no OpenMP runtime)
    level = 3 if config.optimization_level is None else config.optimization_level
    opt = ["-O0" if quick and not fast_math else f"-O{level}", *target_flags(), "-fno-trapping-math",
           "-fopenmp-simd"]
    if quick and not fast_math:     # its entries switch to the optimised ones (native quick.h)
        opt.append("-DWPI_QUICK_TIER")
    if fast_math:
        # hardware sqrt/div, not GCC's vectorised reciprocal estimates + Newton step: faster on
        # this kind of machine (n-body lanes 6.4-7.4 ms vs 9.5-10 ms per core) and more accurate
        opt += ["-ffast-math", "-mno-recip"]
    else:   # one IEEE rounding per operation: lane-blocked and scalar bodies agree bit for bit
        # (-mno-fma too: GCC 12's SLP add/sub pattern emits vfmaddsub despite fp-contract=off;
        # -mno-avx512f because on AVX-512 machines the same pattern uses the EVEX forms, which
        # -mno-fma leaves on: lane bodies then differed from scalar ones by 1 ulp)
        opt += ["-ffp-contract=off", "-mno-fma", "-mno-avx512f"]
    return base + opt


def target_flags(text=None):
    """The target/tuning flags: ``wp.config.cpu_compiler_flags`` (or ``text``) split, its
    LLVM-only ``-mllvm`` options dropped (warp-lang's default string has some; g++ has no
    such option); None: ``-march=native``."""
    text = config.cpu_compiler_flags if text is None else text
    if text is None:
        return ["-march=native"]
    import shlex
    out, words = [], shlex.split(text)
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w == "-mllvm":
            skip = True
        elif not w.startswith("-mllvm="):
            out.append(w)
    return out


def build_key(debug, fast_math, quick=False, extra=()):
    """Everything besides the source that decides the binary; ``extra``: the module's extra
    build inputs (build/extras.py: include directories, dependency files' hashes)."""
    cxx = config.cpu_compiler
    key = [compiler_identity(cxx), flags(debug, fast_math, quick), headers_hash()]
    return key + [list(extra)] if extra else key


def quick_pch_ready():
    """Whether the quick tier's precompiled header is built (without it a quick build would
    parse the whole builtin library: no quicker than the optimised one)."""
    return os.path.exists(os.path.join(_pch_dir(config.cpu_compiler, flags(False, False, True)),
                                       "warp_interactive", "builtin.h.gch"))


_quick_pch_thread = []


def _prepare_quick_pch(cxx):
    """After the optimised PCH was built: the quick tier's one too, in a background thread
    (compiler/background.py; not a daemon: a process ending meanwhile waits for it, no orphaned compiler)."""
    if _quick_pch_thread or quick_pch_ready():
        return
    thread = threading.Thread(target=_build_quick_pch, args=(cxx,), name="wp-quick-pch")
    _quick_pch_thread.append(thread)
    thread.start()


def _build_quick_pch(cxx):
    try:
        ensure_pch(cxx, flags(False, False, True), background=True)
    except Exception:   # noqa: BLE001 - an optimisation: quick builds just wait for it
        pass


def _pch_dir(cxx, fl):
    key = hashlib.sha256(repr([compiler_identity(cxx), fl, headers_hash()]).encode()).hexdigest()[:16]
    return os.path.join(cache.cache_dir(), "pch", key)


def ensure_pch(cxx, fl, background=False, procs=None, chain=True):
    """Build the precompiled builtin header once; returns the include dir holding it. Its SHA-256
    is recorded beside it and checked once per process: a truncated or damaged PCH (a full disk,
    a killed build) is rebuilt instead of failing every later compile. ``background``: built by a
    background compiler (compiler/background.py). A build of it already running in this process
    (``prepare_pch``'s) is waited for, not repeated; ``procs``: see run_compiler; ``chain``: the
    optimised PCH, once built, starts the quick tier's (``_prepare_quick_pch``)."""
    d = _pch_dir(cxx, fl)
    gch = os.path.join(d, "warp_interactive", "builtin.h.gch")
    while True:
        if _pch_found(gch):
            return d
        with _pch_lock:
            running = _pch_running.get(gch)
            # a build may have finished between the look above and this lock: look again
            if running is None and _pch_found(gch):
                return d
            if running is None:
                mine = _pch_running[gch] = threading.Event()
                break
        running.wait()      # then found, or failed: build it here
    try:
        return _build_pch(cxx, fl, d, gch, background, procs, chain)
    finally:
        with _pch_lock:
            _pch_running.pop(gch, None)
        mine.set()


def _pch_found(gch):
    try:
        if time.time() - os.stat(gch).st_mtime > cache.USE_STAMP_S:
            os.utime(gch)    # the garbage collector's "last used" (cache_gc.py)
        if gch in _pch_verified or _pch_intact(gch):
            _pch_verified.add(gch)
            return True
    except OSError:
        pass
    return False


def _build_pch(cxx, fl, d, gch, background, procs, chain):
    os.makedirs(os.path.dirname(gch), exist_ok=True)
    header = os.path.join(_paths.include_dir(), "warp_interactive", "builtin.h")
    tmp = f"{gch}.{os.getpid()}.{threading.get_ident()}.tmp"
    # the headers include each other by their path under the include folder
    cmd = [cxx, *fl, "-I", _paths.include_dir(), "-x", "c++-header", header, "-o", tmp]
    try:
        returncode, log = run_compiler(cmd, "the precompiled builtin header", background, procs)
    except CompileError as e:
        returncode, log = 1, str(e)
    if returncode != 0:
        # no PCH is slower, not wrong: compile without one
        _remove(tmp)
        if config.verbose:
            print(f"warp_interactive: precompiled header failed:\n{log}")
        return None
    digest = cache.file_sha256(tmp)
    os.replace(tmp, gch)
    cache.write_atomic(gch + ".sha256", digest)
    _pch_verified.add(gch)
    if chain and fl == flags(False, False):
        _prepare_quick_pch(cxx)
    return d


# --- both PCHs built from wp.init(), before any module needs them -----------------------------
_prepare_state = {"thread": None, "stopping": False, "used": False}
_prepare_procs = set()      # the compilers the thread runs


def prepare_pch():
    """Start building the optimised and the quick tier's precompiled headers in a background
    thread, where missing (``wp.init()``): the first module build then finds them ready, or
    waits for the running build instead of starting its own; with the quick PCH ready, a large
    first build takes the quick tier (build/quick_tier.py). A daemon thread: at exit its
    compilers are stopped, not waited for (a script that never compiles ends at once)."""
    if _prepare_state["thread"] is not None or not config.use_precompiled_headers:
        return
    import atexit
    thread = _prepare_state["thread"] = threading.Thread(target=_prepare, name="wp-pch", daemon=True)
    thread.start()
    atexit.register(_stop_prepare)


def _prepare():
    try:
        cxx = config.cpu_compiler
        for quick in (False, True):
            fl = flags(False, False, quick)
            if os.path.exists(os.path.join(_pch_dir(cxx, fl), "warp_interactive", "builtin.h.gch")):
                continue    # checked by the first build that uses it (hashing it here is ~50 ms)
            if _prepare_state["stopping"] or ensure_pch(cxx, fl, quick, _prepare_procs, chain=False) is None:
                return
    except Exception:   # noqa: BLE001 - an optimisation (no compiler: the first build says so)
        pass


def _stop_prepare():
    """At exit. After a build in this process, the PCHs are finished (as the quick PCH a build
    starts itself, ``_prepare_quick_pch``): the next run finds them. Without one, stopped."""
    import signal
    if _prepare_state["used"]:
        _prepare_state["thread"].join()
        return
    _prepare_state["stopping"] = True
    for proc in list(_prepare_procs):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    _prepare_state["thread"].join(timeout=5)     # it removes its temporary file


_pch_verified = set()   # PCH files whose content matched their recorded hash in this process
_pch_lock = threading.Lock()
_pch_running = {}       # PCH file -> Event set when this process's build of it ends


def _pch_intact(gch):
    try:
        with open(gch + ".sha256") as f:
            want = f.read().strip()
    except OSError:
        return False
    return len(want) == 64 and cache.file_sha256(gch) == want


def _discard_pch(pch):
    gch = os.path.join(pch, "warp_interactive", "builtin.h.gch")
    _pch_verified.discard(gch)
    _remove(gch)


def run_compiler(cmd, what, background=False, procs=None):
    """(return code, log) of one compiler run, limited to ``wp.config.compile_timeout`` seconds:
    past it the compiler and its children (cc1plus, as) are killed and CompileError says so.
    ``background``: stopped while this process loads a module (compiler/background.py);
    ``procs``: a set holding the compiler's process while it runs."""
    import signal
    import subprocess   # here, not at package import: only builds need it
    timeout = config.compile_timeout
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)   # its own process group, killed as one
    if background:
        _background.started(proc.pid)
    if procs is not None:
        procs.add(proc)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException as e:     # the timeout, or KeyboardInterrupt: stop the compiler
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:  # it had already finished (an interrupt just after it exited)
            pass
        proc.communicate()
        if isinstance(e, subprocess.TimeoutExpired):
            raise CompileError(f"compiling {what} did not finish within {timeout} s "
                               f"(wp.config.compile_timeout); the compiler was stopped\n"
                               f"command: {' '.join(cmd)}") from None
        raise
    finally:
        if background:
            _background.ended(proc.pid)
        if procs is not None:
            procs.discard(proc)
    return proc.returncode, (err or "") + (out or "")


def compile_module(source, module_hash, debug=False, fast_math=False, name="module", kernels=(),
                   include_dirs=()):
    """The path of the shared library for ``source`` (from the cache, or built now), and whether
    it was built. ``kernels``: the hashes of the kernels it provides (in its manifest);
    ``include_dirs``: extra include directories."""
    [(path, built)] = compile_units([(source, module_hash, kernels)], debug, fast_math, name,
                                    include_dirs=include_dirs)
    return path, built


def workers():
    """How many compilers run at once: ``wp.config.num_threads`` if set, else one per core."""
    return max(1, config.num_threads or os.cpu_count() or 1)


def compile_units(units, debug=False, fast_math=False, name="module", quick=False, background=False,
                  include_dirs=()):
    """[(path, built)] for ``units`` ([(source, hash, kernel hashes)]): cached ones are found,
    the others compiled in parallel (one compiler process per unit, ``workers()`` at a time).
    ``quick``: the flags of the quick tier; ``background``: background compilers (stopped while
    this process loads a module: compiler/background.py); ``include_dirs``: the module's extra
    include directories (searched after the package's headers)."""
    hits = [cache.lookup(h, BINARY, kernels) for _, h, kernels in units]
    todo = [u for u, hit in zip(units, hits) if hit is None]
    built = {}
    if todo:
        cxx = config.cpu_compiler
        fl = flags(debug, fast_math, quick)
        cache.writable_cache_dir()   # a read-only cache: a private one for this process (warned)
        _prepare_state["used"] = True
        pch = ensure_pch(cxx, fl, background) if config.use_precompiled_headers else None
        if len(todo) == 1:
            built[todo[0][1]] = _build(todo[0], cxx, fl, pch, name, background, include_dirs)
        else:   # threads only wait for compiler processes: the GIL is no bottleneck
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(min(len(todo), workers())) as pool:
                paths = pool.map(lambda u: _build(u, cxx, fl, pch, name, background, include_dirs), todo)
                built = {u[1]: p for u, p in zip(todo, paths)}
        from .cache_gc import maybe_collect
        maybe_collect()
    return [(hit, False) if hit is not None else (built[h], True)
            for (_, h, _), hit in zip(units, hits)]


def _build(unit, cxx, fl, pch, name, background=False, include_dirs=()):
    source, unit_hash, kernels = unit
    tmp = cache.build_dir()
    try:
        src = os.path.join(tmp, SOURCE)
        out = os.path.join(tmp, BINARY)
        with open(src, "w") as f:
            f.write(source)
        t0 = time.perf_counter()
        cmd, returncode, log = _compile(cxx, fl, pch, src, out, unit_hash, background, include_dirs)
        if returncode != 0 and pch:
            # a PCH the compiler rejects (damaged after its check, or by another compiler
            # build) would fail every build: drop it (the next build remakes it), retry without
            _discard_pch(pch)
            cmd, returncode, log = _compile(cxx, fl, None, src, out, unit_hash, background, include_dirs)
        if returncode != 0:
            raise CompileError(_compile_error_text(name, source, cmd, log))
        if config.verbose:
            print(f"warp_interactive: built {name} ({unit_hash[:8]}) in {time.perf_counter() - t0:.3f} s")
        entry = cache.publish(unit_hash, {SOURCE: src, BINARY: out}, move=True, kernels=kernels)
        return os.path.join(entry, BINARY)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _compile(cxx, fl, pch, src, out, unit_hash, background=False, include_dirs=()):
    includes = (["-I", pch] if pch else []) + ["-I", _paths.include_dir()]
    includes += [a for d in include_dirs for a in ("-I", d)]
    cmd = [cxx, *fl, "-shared", *includes, src, "-o", out, *LINK]
    returncode, log = run_compiler(cmd, f"unit {unit_hash[:8]}", background)
    return cmd, returncode, log


def _compile_error_text(name, source, cmd, log):
    """The compiler log with the numbered generated source around the first error line."""
    lines = source.splitlines()
    first = None
    for ln in log.splitlines():
        parts = ln.split(":")
        if len(parts) > 2 and parts[0].endswith(SOURCE) and parts[1].isdigit():
            first = int(parts[1])
            break
    excerpt = ""
    if first:
        lo, hi = max(1, first - 5), min(len(lines), first + 5)
        excerpt = "\n".join(f"{'>' if i == first else ' '}{i:5d} | {lines[i - 1]}" for i in range(lo, hi + 1))
    return (f"C++ compilation of module '{name}' failed (a bug in warp_interactive's code "
            f"generation or headers, please report it)\ncommand: {' '.join(cmd)}\n"
            f"{excerpt}\ncompiler log:\n{log[:8000]}")


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass
