"""A module's build record and the load that fills it: ``ModuleBuild`` (one per lang.Module,
``module.build``) keeps the binaries loaded per device, the functions its kernels reached (a
redefinition of one rebuilds the module) and the last build; ``load`` asks the device's builder
(build/builders.py: the CPU's or a GPU's, one protocol) for a LoadedModule and records it."""

from .. import hooks
from ..compiler import nvrtc_check
from ..config import config
from ..lang.analysis.deps import function_deps
from ..state import state

_generation = state.generation     # bumped when any @wp.func is (re)defined (state.invalidate)


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


class ModuleBuild:
    """What the builds of ``module`` (a lang.Module) produced."""

    __slots__ = ("module", "loaded", "generation", "last_build", "deps")

    def __init__(self, module):
        self.module = module
        self.loaded = {}          # (device alias, with_backward) -> LoadedModule
        self.generation = -1
        self.last_build = None    # (hash, built?, seconds) of the last load, for reporting
        self.deps = {}            # Function -> version, of the functions the kernels call

    def drop(self):
        self.loaded.clear()
        state.launches_stale()    # fast launches and replays of its kernels re-validate

    def _sync_generation(self):
        """After a @wp.func was (re)defined: rebuild only if a function this module's kernels
        call (directly or through other functions) has changed since the last build."""
        if self.generation != _generation[0]:
            self.generation = _generation[0]
            if any(getattr(f, "version", 0) != v for f, v in self.deps.items()):
                self.module.invalidate()

    def source(self, target=None, backward=True):
        # codegen is imported here, not at package import: a warm load never generates code
        from ..codegen.module_source import generate_source
        from ..codegen.target import CPU
        from ..lang.definitions.lower import lower
        from .extras import of_module
        m = self.module
        target = target or CPU
        return generate_source(lower(m.build_kernels()), target, m.checks_bounds(), backward,
                               bool(m.option("cpu_lanes")), of_module(m, target.name).preamble)

    def paths(self, target=None, backward=True):
        """codegen/paths.py's KernelPaths of each kernel: the path its launches take and why."""
        from ..codegen.paths import describe
        from ..codegen.target import CPU
        m = self.module
        return [describe(k, target or CPU, m.checks_bounds(), bool(m.option("cpu_lanes")), backward)
                for k in m.build_kernels()]

    def module_hash(self):
        from ..compiler import cpu as cpu_compiler
        from ..compiler.cache import module_hash
        m = self.module
        from .extras import of_module
        source = self.source(None, bool(m.option("enable_backward")))
        return module_hash(source, cpu_compiler.build_key(m.option("mode") == "debug",
                                                          bool(m.option("fast_math")),
                                                          extra=of_module(m, "cpu").key))

    def load(self, device, backward=False):
        device = hooks.get_device(device)
        self._sync_generation()
        loaded = self.loaded
        key = (device.alias, backward)
        lm = loaded.get(key) or loaded.get((device.alias, True))
        if lm is not None and lm.quick and lm.upgraded():
            # its quickly compiled units have their optimised build now (quick_tier.py)
            for k in [k for k, v in loaded.items() if v.quick and v.upgraded()]:
                loaded.pop(k, None)
            lm = loaded.get(key) or loaded.get((device.alias, True))
        if lm is None:
            lm = self._build(device, backward)
        loaded[key] = lm      # a backward binary holds the forward entry points too
        return lm

    def _build(self, device, backward):
        m = self.module
        result = device.builder.load(m, backward)
        lm = result.loaded
        # the functions a warm load's key fingerprinted (a superset of those called) are the
        # dependencies; their versions now are the ones the key describes
        self.deps = {f: getattr(f, "version", 0) for f in result.reached} \
            if result.reached is not None else function_deps([k.ir for k in m.build_kernels()])
        if result.translated and nvrtc_check.record_dir():
            from .extras import of_module     # the no-GPU CUDA check (scripts/test.sh)
            nvrtc_check.record_module(m, of_module(m, "cuda").include_dirs)
        # every load is recorded, the warm-index one included (build_log, notebook reports)
        self.last_build = (lm.hash, lm.built, lm.build_time)
        state.build_log.append(BuildRecord(m.name, lm.hash, lm.built, lm.build_time,
                                           list(m.kernels), backward, lm.compiled_kernels))
        if lm.built and not config.quiet and config.verbose:
            print(f"Module {m.name} {lm.hash[:8]} built for {device} in {lm.build_time:.3f} s")
        return lm


hooks.module_build = ModuleBuild
