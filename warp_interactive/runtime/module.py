"""Modules: the unit of loading. A Python module's kernels (or a notebook cell's) build into
one binary per device (on the CPU from separately cached units: runtime/cpu_build.py)."""

import itertools

from ..compiler import nvrtc_check
from ..config import config
from ..lang.deps import function_deps
from ..state import state
from . import launch_state
# imported with the package, not at the first load: a warm load stays a few file reads
from .cpu_build import Load as _CpuLoad

_generation = state.generation     # bumped when any @wp.func is (re)defined (state.invalidate)


def get_module(name):
    return state.module(name)


class BuildRecord:
    """One module load: ``compiled`` is True when the C++ compiler ran (a cache miss);
    ``backward`` when the binary holds the adjoint kernels too (the load ``tape.backward`` needs,
    a different binary from the forward-only one); ``compiled_kernels``: the names of the kernels
    it compiled (CPU: an edit recompiles only the kernels whose code changed; None where the
    whole module compiles as one, CUDA)."""

    __slots__ = ("module", "hash", "compiled", "seconds", "kernels", "backward", "compiled_kernels")

    def __init__(self, module, module_hash, compiled, seconds, kernels, backward=False,
                 compiled_kernels=None):
        self.module, self.hash, self.compiled = module, module_hash, compiled
        self.seconds, self.kernels, self.backward = seconds, kernels, backward
        self.compiled_kernels = compiled_kernels

    @property
    def detail(self):
        """"forward, compiled", "backward, cache hit"..."""
        return (f"{'backward' if self.backward else 'forward'}, "
                f"{'compiled' if self.compiled else 'cache hit'}")

    def __repr__(self):
        return f"<build {self.module} {self.hash[:8]} {self.detail} {self.seconds:.3f} s>"


MODULE_OPTIONS = ("enable_backward", "mode", "fast_math", "max_unroll", "cpu_lanes", "lineinfo",
                  "deterministic")
_retired = itertools.count(1)


class ModuleOptions(dict):
    """A module's option overrides; reading one it does not override gives the notebook
    parent's or ``wp.config``'s value (``module.options["enable_backward"]``, as the reference)."""

    def __init__(self, module):
        super().__init__()
        self._module = module

    def __missing__(self, name):
        parent = state.modules.get(self._module.parent) if self._module.parent else None
        if parent is not None and name in parent.options:
            return dict.__getitem__(parent.options, name)
        try:
            return getattr(config, name)
        except AttributeError:
            raise KeyError(name) from None


class Module:
    def __init__(self, name):
        self.name = name
        self.kernels = {}
        self.options = ModuleOptions(self)
        self.loaded = {}          # (device alias, with_backward) -> LoadedModule
        self.generation = -1
        self.last_build = None    # (hash, built?, seconds) of the last load, for reporting
        self.deps = {}            # Function -> version, of the functions the kernels call
        self.parent = None        # a notebook cell's module falls back to its notebook's options

    def add_kernel(self, kernel, entry=None):
        """Register ``kernel`` (under ``entry``, default its key). A kernel it replaces keeps
        working: it moves, with its specialisations, into a private module of its own, so a
        launch of the old object runs the old code (as in the reference)."""
        entry = entry or kernel.key
        old = self.kernels.get(entry)
        if old is not None and old is not kernel:
            self._retire(old)
        self.kernels[entry] = kernel
        self._drop_binaries()

    def _retire(self, old):
        private = Module(f"{self.name}#{old.key}.{next(_retired)}")
        private.options.update(self.options)
        private.parent = self.parent
        if getattr(old, "overloads", None) or getattr(old, "_block_variants", None):
            moved = [(e, k) for e, k in self.kernels.items()
                     if old in (k, getattr(k, "_generic", None), getattr(getattr(k, "_generic", None), "_generic", None))]
        else:   # nothing derived from it (the usual case): no scan of the module (a reload of N
            # kernels retired each with a scan of N: quadratic, issue 21)
            moved = [(old._module_entry(), old)] if self.kernels.get(old._module_entry()) is old else \
                [(e, k) for e, k in self.kernels.items() if k is old]
        for e, k in moved:
            del self.kernels[e]
            k.module = private
            private.kernels[e] = k

    @property
    def references(self):
        """The other modules whose @wp.funcs this module's kernels call (directly, through a
        local name, or through other functions): reloading one of them rebuilds this one."""
        from ..state import state
        names = {f.module_name for f in function_deps([k.ir for k in self.build_kernels()])}
        return {state.module(n) for n in names if n != self.name}

    def build_kernels(self):
        """The kernels that go into the binary (generic kernels only through their
        specialisations)."""
        return [k for k in self.kernels.values() if not getattr(k, "is_generic", False)]

    def _drop_binaries(self):
        self.loaded.clear()
        launch_state.invalidate()    # fast launches and replays of its kernels re-validate

    def unload(self):
        """Forget the loaded binaries (the next launch loads again, from the cache)."""
        self._drop_binaries()

    def hash_module(self):
        """The reference's name for get_module_hash()."""
        return self.get_module_hash()

    def get_module_hash(self, device=None):
        """The hash of the module's current source (what names its binary in the cache)."""
        from ..codegen.target import CPU
        from ..compiler import cpu as cpu_compiler
        from ..compiler.cache import module_hash
        source = self.source(CPU, bool(self.option("enable_backward")))
        return module_hash(source, cpu_compiler.build_key(self.option("mode") == "debug",
                                                          bool(self.option("fast_math"))))

    def invalidate(self):
        """Options changed: every kernel translates again."""
        self._drop_binaries()
        for k in self.kernels.values():
            k.forget_ir()

    def mark_modified(self):
        """warp-lang's: hash and build the module again at its next use (its kernels translate
        again, so they see the current values of the names they read)."""
        self.invalidate()

    def option(self, name):
        if name in self.options:
            return self.options[name]
        parent = state.modules.get(self.parent) if self.parent else None
        if parent is not None and name in parent.options:
            return parent.options[name]
        return getattr(config, name)

    def checks_bounds(self):
        """Whether kernels check indices (debug mode, or the ``bounds_check`` option)."""
        return self.option("mode") == "debug" or bool(self.option("bounds_check"))

    def _sync_generation(self):
        """After a @wp.func was (re)defined: rebuild only if a function this module's kernels
        call (directly or through other functions) has changed since the last build."""
        if self.generation != _generation[0]:
            self.generation = _generation[0]
            if any(getattr(f, "version", 0) != v for f, v in self.deps.items()):
                self.invalidate()

    def source(self, target=None, backward=True):
        # codegen is imported here, not at package import: a warm load never generates code
        from ..codegen.module_source import generate_source
        from ..codegen.target import CPU
        debug = self.checks_bounds()    # codegen's "debug": the index checks
        return generate_source(self.build_kernels(), target or CPU, debug, backward,
                               bool(self.option("cpu_lanes")))

    def load(self, device, backward=False, block_dim=None):
        """The loaded binary for ``device`` (building it if needed). ``block_dim`` is the
        reference's CUDA block size of the build; here a launch chooses it."""
        from .device import get_device
        device = get_device(device)
        self._sync_generation()
        key = (device.alias, backward)
        lm = self.loaded.get(key) or self.loaded.get((device.alias, True))
        if lm is not None and getattr(lm, "quick", None) and lm.upgraded():
            # its quickly compiled units have their optimised build now (quick_tier.py)
            for k in [k for k, v in self.loaded.items() if getattr(v, "quick", None) and v.upgraded()]:
                self.loaded.pop(k, None)
            lm = self.loaded.get(key) or self.loaded.get((device.alias, True))
        if lm is not None:   # a backward binary holds the forward entry points too
            self.loaded[key] = lm
            return lm
        if device.is_cuda:
            from . import cuda_backend
            lm = cuda_backend.load_module(self, device, backward)
            self.deps = function_deps([k.ir for k in self.build_kernels()])
            h, built, seconds = self.last_build
            state.build_log.append(BuildRecord(self.name, h, built, seconds, list(self.kernels), backward))
        else:
            lm = self._load_cpu(backward)     # records self.deps itself (a warm load translates nothing)
        self.loaded[key] = lm
        return lm

    def _load_cpu(self, backward):
        kernels = self.build_kernels()
        load = _CpuLoad(self.name, kernels, backward, self.option("mode") == "debug",
                        bool(self.option("fast_math")), bool(self.option("cpu_lanes")),
                        checks=self.checks_bounds())
        lm = load.run()
        if load.reached is not None:
            # the functions the key fingerprinted (a superset of those called) are the
            # dependencies; their versions now are the ones the key describes
            self.deps = {f: getattr(f, "version", 0) for f in load.reached}
        else:
            self.deps = function_deps([k.ir for k in kernels])
        if load.translated and nvrtc_check.record_dir():
            nvrtc_check.record_module(self)      # the no-GPU CUDA check (scripts/test.sh)
        # every load is recorded, the warm-index one included (build_log, notebook reports)
        self.last_build = (lm.hash, lm.built, lm.build_time)
        state.build_log.append(BuildRecord(self.name, lm.hash, lm.built, lm.build_time,
                                           list(self.kernels), backward, lm.compiled_kernels))
        if lm.built and not config.quiet and config.verbose:
            print(f"Module {self.name} {lm.hash[:8]} built in {lm.build_time:.3f} s")
        return lm


def entry_name(kernel):
    """The C++ name of ``kernel``'s entry points (known without translating it)."""
    return kernel.cpp


def tid_arity(kernel):
    """How many indices ``kernel`` unpacks from ``wp.tid()`` (from the warm-load index when the
    kernel has not been translated in this process)."""
    arity = getattr(kernel, "_tid_arity", None)
    return arity if arity is not None else kernel.ir.tid_arity


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
    device = get_device(device)
    for child in _children(name):     # a notebook's cell modules load with it
        child.load(device)
    return get_module(name).load(device)


def _children(name):
    return [m for m in list(state.modules.values()) if m.parent == name]


def set_module_options(options, module=None):
    """Per-module options (``enable_backward``, ``mode``, ``fast_math``, ``max_unroll``,
    ``cpu_lanes``, ``bounds_check``)."""
    name = _module_name(module)
    m = get_module(name)
    m.options.update(options)
    m.invalidate()
    for child in _children(name):
        child.invalidate()


def get_module_options(module=None):
    """Every module option's value for ``module`` (its own, else the notebook's or wp.config's)."""
    name = _module_name(module)
    m = get_module(name)
    return {k: m.option(k) for k in MODULE_OPTIONS} | dict(m.options)


state.new_module = Module      # state.module(name) makes runtime modules
state.on_invalidate.append(launch_state.invalidate)   # a (re)defined @wp.func: plans re-validate
