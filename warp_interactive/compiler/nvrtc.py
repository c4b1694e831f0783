"""CUDA build: generated C++ -> CUBIN (or PTX) through NVRTC, from the ``cuda-bindings`` package.

NVRTC needs no CUDA toolkit and no GPU: the ``[cuda]`` extra brings ``cuda-bindings`` and the
``nvidia-cuda-nvrtc`` wheel (libnvrtc). Our headers use no CUDA or C++ standard headers under
NVRTC, so the bundled-headers install is not needed.

The output is a CUBIN for the device's architecture when this NVRTC knows that architecture,
otherwise PTX for the newest one it knows, which the driver compiles for a newer GPU (forward
compatibility). Binaries are cached by module hash like the CPU's shared libraries.
"""

import os
import re
import shutil
import time
from functools import lru_cache

from .. import _paths
from ..config import config
from ..errors import CompileError
from . import cache, nvrtc_run, nvrtc_worker

SOURCE = "module.cu"

MISSING_EXTRA = ("NVRTC is not available: install the CUDA extra "
                 "(pip install warp_interactive[cuda], which brings cuda-bindings and nvidia-cuda-nvrtc)")


def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise CompileError(f"{MISSING_EXTRA} ({e})") from None
    return nvrtc


def _check(result, what):
    err = result[0]
    if int(err) != 0:
        nvrtc = _nvrtc()
        msg = nvrtc.nvrtcGetErrorString(err)[1]
        raise CompileError(f"NVRTC {what} failed: {msg.decode() if isinstance(msg, bytes) else msg}")
    return result[1:] if len(result) > 2 else (result[1] if len(result) == 2 else None)


@lru_cache(maxsize=None)
def version():
    """(major, minor) of the loaded NVRTC."""
    major, minor = _check(_nvrtc().nvrtcVersion(), "nvrtcVersion")
    return int(major), int(minor)


@lru_cache(maxsize=None)
def supported_archs():
    """The SM architectures (e.g. 90 for sm_90) this NVRTC can build CUBINs for."""
    return tuple(int(a) for a in _check(_nvrtc().nvrtcGetSupportedArchs(), "nvrtcGetSupportedArchs"))


def target_for(arch):
    """("cubin", arch) when NVRTC knows ``arch``, else ("ptx", newest known arch <= ... )."""
    archs = supported_archs()
    if arch in archs and config.cuda_output != "ptx":
        return "cubin", arch
    if config.cuda_output == "cubin":
        raise CompileError(f"wp.config.cuda_output is 'cubin', but this NVRTC "
                           f"({'.'.join(map(str, version()))}) cannot build a CUBIN for sm_{arch}")
    ceiling = min(arch, config.ptx_target_arch or arch)
    older = [a for a in archs if a <= ceiling]
    if not older:
        raise CompileError(f"this NVRTC ({'.'.join(map(str, version()))}) cannot build for sm_{arch}; "
                           f"it supports {', '.join(f'sm_{a}' for a in archs)}")
    return "ptx", max(older)


def options(arch, kind, debug, fast_math, line_info=False):
    """The NVRTC command-line options for one build."""
    gpu = f"sm_{arch}" if kind == "cubin" else f"compute_{arch}"
    if config.cuda_arch_suffix and arch >= 90:   # architecture/family-specific features
        gpu += config.cuda_arch_suffix
    opts = [f"--gpu-architecture={gpu}", "-std=c++17", f"-I{_paths.include_dir()}",
            "--device-as-default-execution-space", "-DWPI_CUDA=1"]
    if debug:
        opts += ["--device-debug", "--generate-line-info"]
    elif line_info:
        opts.append("--generate-line-info")
    if fast_math:
        opts.append("--use_fast_math")
    return opts


def build_key(arch, debug, fast_math, extra=()):
    """Everything besides the source that decides the binary (for the module hash); ``extra``:
    the module's extra build inputs (build/extras.py)."""
    from .cpu import headers_hash
    kind, target_arch = target_for(arch)
    key = ["nvrtc", version(), kind, target_arch, options(target_arch, kind, debug, fast_math,
                                                          config.lineinfo), headers_hash()]
    return key + [list(extra)] if extra else key


def binary_name(kind, arch):
    return f"module.sm_{arch}.cubin" if kind == "cubin" else f"module.compute_{arch}.ptx"


def compile_source(source, arch, debug=False, fast_math=False, name="module", kind=None,
                   include_dirs=(), extra=()):
    """Compile ``source`` with NVRTC; returns the CUBIN/PTX bytes. No cache, no GPU needed.
    ``include_dirs``: extra include directories (after the package's headers).
    Under ``wp.config.compile_timeout`` (the default) in a worker process that is stopped past
    it (compiler/nvrtc_worker.py); with no timeout, in this process. ``extra``: options that
    change how NVRTC works, not what it makes (the no-GPU check's precompiled header)."""
    _nvrtc()   # a missing extra is said here, in this process
    if kind is None:
        kind, arch = target_for(arch)
    opts = (options(arch, kind, debug, fast_math, config.lineinfo)
            + [f"-I{d}" for d in include_dirs] + list(extra))
    t0 = time.perf_counter()
    timeout = config.compile_timeout
    try:
        if timeout is None:
            ok, out = nvrtc_run.compile_program(source, SOURCE, opts, kind)
        else:
            ok, out = nvrtc_worker.compile_program(source, SOURCE, opts, kind, timeout, name)
    except RuntimeError as e:    # an NVRTC call besides the compile failed
        raise CompileError(str(e)) from None
    if not ok:
        raise CompileError(error_text(name, source, opts, out))
    if config.verbose:
        print(f"warp_interactive: NVRTC built {name} for {kind} {arch} in "
              f"{time.perf_counter() - t0:.3f} s")
    return out


def compile_module(source, module_hash, arch, debug=False, fast_math=False, name="module",
                   include_dirs=()):
    """(path, kind, built) of the cached CUBIN/PTX for ``source`` on ``arch`` (built on a
    miss). Called by compiler/build.py's ``compile``."""
    kind, target_arch = target_for(arch)
    bname = binary_name(kind, target_arch)
    hit = cache.lookup(module_hash, bname)
    if hit is not None:
        return hit, kind, False
    data = compile_source(source, target_arch, debug, fast_math, name, kind, include_dirs)
    tmp = cache.build_dir()
    try:
        src, out = os.path.join(tmp, SOURCE), os.path.join(tmp, bname)
        with open(src, "w") as f:
            f.write(source)
        with open(out, "wb") as f:
            f.write(data)
        entry = cache.publish(module_hash, {SOURCE: src, bname: out}, move=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return os.path.join(entry, bname), kind, True


# --- errors against the user's Python line -------------------------------------------------------
_LOG_LINE = re.compile(r"^(?P<file>[^\s(]+)\((?P<line>\d+)\): (?P<kind>error|catastrophic error)")
_PY_MARK = re.compile(r"  // py:(?:(?P<file>.+):)?(?P<line>\d+)$")
_FUNC_HEAD = re.compile(r"^(?:static inline __device__|extern \"C\" __global__)\s.*?(\w+)\(")


def python_location(source, cu_line):
    """(python file, line, generated function) of generated line ``cu_line``, from the nearest
    ``// py:[FILE:]LINE`` marker above it (codegen/body.py writes them; the file is named on a
    function's first marker), or None."""
    lines = source.splitlines()
    line, file, func = None, None, None
    for i in range(min(cu_line, len(lines)) - 1, -1, -1):
        text = lines[i]
        m = _PY_MARK.search(text)
        if m:
            if line is None:
                line = int(m.group("line"))
            if m.group("file"):
                file = m.group("file")
        h = _FUNC_HEAD.match(text)
        if h:
            func = h.group(1)
            break
    if line is None or file is None:
        return None
    return file, line, func


def error_text(name, source, opts, log):
    """The NVRTC log, led by the user's Python line and the generated source around the error."""
    lines = source.splitlines()
    first = None
    for ln in log.splitlines():
        m = _LOG_LINE.match(ln.strip())
        if m and m.group("file").endswith(SOURCE):
            first = int(m.group("line"))
            break
    head = [f"CUDA compilation (NVRTC) of module '{name}' failed"]
    excerpt = ""
    if first:
        loc = python_location(source, first)
        if loc is not None:
            head.append(f'  File "{loc[0]}", line {loc[1]}' + (f" (generated function {loc[2]})" if loc[2] else ""))
            py = _read_line(loc[0], loc[1])
            if py:
                head.append(f"    {py.strip()}")
        lo, hi = max(1, first - 5), min(len(lines), first + 5)
        excerpt = "\n".join(f"{'>' if i == first else ' '}{i:5d} | {lines[i - 1]}" for i in range(lo, hi + 1))
    return "\n".join(head) + (f"\noptions: {' '.join(opts)}\n{excerpt}\nNVRTC log:\n{log[:8000]}")


def _read_line(filename, lineno):
    import linecache
    return linecache.getline(filename, lineno)
