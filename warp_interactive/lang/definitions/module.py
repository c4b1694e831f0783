"""Modules as the language defines them: a name, its kernels, its options and the notebook
module it falls back to. What a module's builds produced (loaded binaries, dependency record,
the last build) is its build record (build/driver.py), made through ``hooks.module_build``:
this layer never imports the build stage, and the module's build methods forward to it."""

import itertools

from ... import hooks
from ...config import config
from ...state import state
from ..analysis.deps import function_deps

MODULE_OPTIONS = ("enable_backward", "mode", "fast_math", "max_unroll", "cpu_lanes", "lineinfo",
                  "deterministic")
_retired = itertools.count(1)


class ModuleOptions(dict):
    """A module's option overrides; reading one it does not override gives the notebook
    parent's or ``wp.config``'s value (``module.options["enable_backward"]``, as the reference)."""

    def __init__(self, module, values=()):
        super().__init__(values)
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
        self._options = ModuleOptions(self)
        self.parent = None        # a notebook cell's module falls back to its notebook's options
        self.build = hooks.module_build(self)   # loaded binaries, deps, last build (build/driver.py)

    @property
    def options(self):
        return self._options

    @options.setter
    def options(self, values):
        """Assigning a mapping keeps the fallbacks: ``options["enable_backward"]`` of a key it
        does not hold still reads the parent's or ``wp.config``'s value."""
        self._options = ModuleOptions(self, values)

    # --- the build record (build/driver.py) -------------------------------------------------
    @property
    def loaded(self):
        return self.build.loaded

    @property
    def last_build(self):
        return self.build.last_build

    @last_build.setter
    def last_build(self, value):
        self.build.last_build = value

    @property
    def deps(self):
        return self.build.deps

    def load(self, device, backward=False, block_dim=None):
        """The loaded binary for ``device`` (building it if needed). ``block_dim`` is the
        reference's CUDA block size of the build; here a launch chooses it."""
        return self.build.load(device, backward)

    def source(self, target=None, backward=True):
        """The generated C++ of the module's kernels (CPU unless ``target``)."""
        return self.build.source(target, backward)

    def kernel_paths(self, target=None, backward=True):
        """Per kernel, the code path its CPU (or ``target``) launches take and why the faster
        paths were refused (codegen/paths.py): what ``%%wp.kernel --annotate`` shows."""
        return self.build.paths(target, backward)

    def get_module_hash(self, device=None):
        """The hash of the module's current source (what names its binary in the cache)."""
        return self.build.module_hash()

    def hash_module(self):
        """The reference's name for get_module_hash()."""
        return self.get_module_hash()

    # --- definitions ------------------------------------------------------------------------
    def add_kernel(self, kernel, entry=None):
        """Register ``kernel`` (under ``entry``, default its key). A kernel it replaces keeps
        working: it moves, with its specialisations, into a private module of its own, so a
        launch of the old object runs the old code (as in the reference)."""
        entry = entry or kernel.key
        old = self.kernels.get(entry)
        if old is not None and old is not kernel:
            self._retire(old)
        self.kernels[entry] = kernel
        self.unload()

    def _retire(self, old):
        private = Module(f"{self.name}#{old.key}.{next(_retired)}")
        private.options.update(self.options)
        private.parent = self.parent
        if getattr(old, "overloads", None) or getattr(old, "_block_variants", None):
            moved = [(e, k) for e, k in self.kernels.items()
                     if old in (k, getattr(k, "_generic", None), getattr(getattr(k, "_generic", None), "_generic", None))]
        else:   # nothing derived from it (the usual case): no scan of the module (a reload of N
            # kernels would retire each with a scan of N: quadratic)
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
        names = {f.module_name for f in function_deps([k.ir for k in self.build_kernels()])}
        return {state.module(n) for n in names if n != self.name}

    def build_kernels(self):
        """The kernels that go into the binary (generic kernels only through their
        specialisations)."""
        return [k for k in self.kernels.values() if not getattr(k, "is_generic", False)]

    def unload(self):
        """Forget the loaded binaries (the next launch loads again, from the cache)."""
        self.build.drop()

    def invalidate(self):
        """Options changed: every kernel translates again."""
        self.unload()
        for k in self.kernels.values():
            k.forget_ir()

    def mark_modified(self):
        """warp-lang's: hash and build the module again at its next use (its kernels translate
        again, so they see the current values of the names they read)."""
        self.invalidate()

    def option(self, name):
        return self.options[name]

    def checks_bounds(self):
        """Whether kernels check indices (debug mode, or the ``bounds_check`` option)."""
        return self.option("mode") == "debug" or bool(self.option("bounds_check"))


hooks.new_module = Module      # state.module(name) makes modules
