"""Modules: the unit of compilation. A Python module's kernels (or a notebook cell's) build
into one shared library, content-addressed by the module hash."""

import ctypes
import hashlib
import re
import time

from ..codegen.module_source import generate_source
from ..codegen.target import CPU
from ..compiler import cpu as cpu_compiler
from ..compiler import nvrtc_check
from ..config import config
from ..version import __version__

_modules = {}
generation = [0]     # bumped when any @wp.func is (re)defined: kernels re-translate


def get_module(name):
    m = _modules.get(name)
    if m is None:
        m = _modules[name] = Module(name)
    return m


def bump_generation():
    generation[0] += 1


class LoadedModule:
    """A built binary, loaded: entry points by kernel name."""

    def __init__(self, path, module_hash, built, build_time):
        self.path, self.hash, self.built, self.build_time = path, module_hash, built, build_time
        self.lib = ctypes.CDLL(path)
        self._entries = {}
        self._get_error = self.lib.wpi_get_error
        self._get_error.restype = ctypes.c_char_p

    def entry(self, cpp_name, which):
        key = (cpp_name, which)
        addr = self._entries.get(key)
        if addr is None:
            fn = getattr(self.lib, f"{cpp_name}_cpu_{which}")
            addr = self._entries[key] = ctypes.cast(fn, ctypes.c_void_p).value
        return addr

    def take_error(self):
        """The first run-time error recorded since the last call (debug mode), or None."""
        msg = self._get_error()
        return msg.decode() if msg else None


class Module:
    def __init__(self, name):
        self.name = name
        self.kernels = {}
        self.options = {}
        self.loaded = {}          # (device alias, with_backward) -> LoadedModule
        self.generation = -1
        self.last_build = None    # (hash, built?, seconds) of the last load, for reporting

    def add_kernel(self, kernel):
        self.kernels[kernel.key] = kernel
        self.invalidate()

    def invalidate(self):
        self.loaded.clear()
        for k in self.kernels.values():
            k._ir = None

    def option(self, name):
        return self.options.get(name, getattr(config, name))

    def _sync_generation(self):
        if self.generation != generation[0]:
            self.generation = generation[0]
            self.invalidate()

    def source(self, target=CPU, backward=True):
        debug = self.option("mode") == "debug"
        return generate_source(list(self.kernels.values()), target, debug, backward)

    def load(self, device, backward=False):
        """The loaded binary for ``device`` (building it if needed)."""
        self._sync_generation()
        key = (device.alias, backward)
        lm = self.loaded.get(key)
        if lm is not None:
            return lm
        if device.is_cuda:
            from . import cuda_backend
            lm = cuda_backend.load_module(self, device, backward)
        else:
            lm = self._load_cpu(backward)
        self.loaded[key] = lm
        return lm

    def _load_cpu(self, backward):
        debug = self.option("mode") == "debug"
        fast_math = bool(self.option("fast_math"))
        t0 = time.perf_counter()
        source = self.source(CPU, backward)
        h = module_hash(source, cpu_compiler.build_key(debug, fast_math))
        path, built = cpu_compiler.compile_module(source, h, debug, fast_math, self.name)
        lm = LoadedModule(path, h, built, time.perf_counter() - t0)
        if nvrtc_check.record_dir():
            nvrtc_check.record_module(self)      # the no-GPU CUDA check (scripts/test.sh)
        self.last_build = (h, built, lm.build_time)
        if built and not config.quiet and config.verbose:
            print(f"Module {self.name} {h[:8]} built in {lm.build_time:.3f} s")
        return lm


_LINE_MARKERS = re.compile(r"  // py:[^\n]*")


def module_hash(source, build_key):
    # codegen's `// py:FILE:LINE` comments only map compiler errors back to Python: a kernel that
    # moved (lines added above it, a re-run notebook cell) keeps its binary
    if "// py:" in source:
        source = _LINE_MARKERS.sub("", source)
    h = hashlib.sha256()
    h.update(source.encode())
    h.update(repr(build_key).encode())
    h.update(__version__.encode())
    return h.hexdigest()


def _module_name(module, depth=2):
    """``module`` as a name; None means the module of the public function's caller."""
    if module is None:
        import sys
        # a frame lookup, not inspect.stack(): that reads the source of every frame
        return sys._getframe(depth).f_globals.get("__name__", "__main__")
    return module if isinstance(module, str) else module.__name__


def load_module(module=None, device=None):
    """Build (or fetch from the cache) and load a module now rather than at its first launch."""
    from .device import get_device
    name = _module_name(module)
    return get_module(name).load(get_device(device))


def set_module_options(options, module=None):
    """Per-module options (``enable_backward``, ``mode``, ``fast_math``, ``max_unroll``)."""
    name = _module_name(module)
    m = get_module(name)
    m.options.update(options)
    m.invalidate()


def get_module_options(module=None):
    name = _module_name(module)
    return dict(get_module(name).options)
