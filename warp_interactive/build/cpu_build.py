"""A module's CPU binary, built from separately cached units, so that an edit rebuilds what
changed, not the whole module.

Every kernel has a *kernel hash*: the hash of a translation unit holding only that kernel and
the structs and functions it uses (codegen.module_source.ModuleParts). A *unit* is a shared
library holding one or more kernels, cached under the hash of its own source; the cache's
kernel records map each kernel hash to a unit that provides it (compiler/cache.py). A load:

1. the warm-load index (build/warm_index.py) maps the module's key to each kernel's unit:
   nothing is translated, each unit is checked and loaded;
2. otherwise each kernel's own key may name its kernel hash and unit: the kernels found that
   way are not translated either (after an edit, only the edited kernels are);
3. the rest are translated; a kernel whose kernel hash has a unit already uses it; the others
   are compiled, in groups (one kernel per unit when there are at most as many as compiler
   workers, else one group per worker), the groups in parallel.

A kernel's code is the same in any unit (functions and structs are ``inline`` in each), so a
group unit keeps serving its unedited kernels after one of them is edited and rebuilt alone.
"""

import ctypes
import hashlib
import threading
import time

from ..compiler import background, cache
from ..compiler import cpu as cpu_compiler
from ..config import config
from ..version import translator_signature
from . import quick_tier, strided, unit_merge, unit_plan, warm_index
from .entry import LoadedKernels
from .extras import NONE


class LoadedModule(LoadedKernels):
    """A module's built units, loaded: entry points by kernel name."""

    def __init__(self, units, kernels, arity, module_hash, built, build_time, compiled_kernels=(),
                 lazy=None, quick=()):
        """``units``: {kernel C++ name: path of the unit providing it}; ``kernels``: {C++ name:
        Kernel}; ``arity``: {C++ name: its wp.tid() arity} (known untranslated after a warm
        load); ``lazy``: (strided.Options, {path: (unit hash, [its kernels])}) for the units'
        lazy strided entries (strided.py); ``quick``: the background optimised builds
        (quick_tier.Job) of the quick units it maps."""
        super().__init__(kernels)
        self._arity = arity
        self.hash, self.built, self.build_time = module_hash, built, build_time
        self.quick = quick
        self.compiled_kernels = list(compiled_kernels)
        libs = {path: strided.open_unit(path, None if lazy is None else (*lazy[1][path], lazy[0]))
                for path in dict.fromkeys(units.values())}
        self._lib_of = {cpp: libs[path] for cpp, path in units.items()}
        self.paths = list(libs)
        self.path = self.paths[0] if len(self.paths) == 1 else None
        self._entries = {}
        self._get_errors = []
        # a unit that may record a run-time error outside debug mode says so (module_source.py)
        self.records_errors = any(hasattr(lib, "wpi_records_errors") for lib in libs.values())
        for lib in libs.values():
            fn = lib.wpi_get_error
            fn.restype = ctypes.c_char_p
            self._get_errors.append(fn)

    def tid_arity_of(self, kernel):
        return self._arity[kernel.cpp]

    def entry(self, cpp_name, which):
        key = (cpp_name, which)
        addr = self._entries.get(key)
        if addr is None:
            fn = getattr(self._lib_of[cpp_name], f"{cpp_name}_cpu_{which}")
            addr = self._entries[key] = ctypes.cast(fn, ctypes.c_void_p).value
        return addr

    def take_error(self):
        """The first run-time error recorded since the last call (debug mode), or None."""
        for get_error in self._get_errors:
            msg = get_error()
            if msg:
                return msg.decode()
        return None


def plan_hash(unit_hashes):
    """A module's identity: its unit's hash when it is one unit, else a hash of the units'."""
    units = sorted(set(unit_hashes))
    if len(units) == 1:
        return units[0]
    return hashlib.sha256(" ".join(units).encode()).hexdigest()


class Load:
    """One CPU load of ``kernels`` with these options; ``run()`` returns the LoadedModule and
    sets ``reached`` (the @wp.funcs the key walk described) or None (no keys: translated)."""

    def __init__(self, name, kernels, backward, debug, fast_math, lanes, checks=None, extras=NONE):
        """``extras``: the module's extra build inputs (build/extras.py)."""
        self.t0 = time.perf_counter()
        self.name, self.kernels, self.backward = name, kernels, backward
        self.debug, self.fast_math, self.lanes = debug, fast_math, lanes
        self.checks = debug if checks is None else checks   # index checks in the generated code
        self.extras = extras
        self.build_key = cpu_compiler.build_key(debug, fast_math, extra=extras.key)
        self.units = {}       # kernel C++ name -> unit hash
        self.hashes = {}      # kernel C++ name -> kernel hash
        self.arity = {}       # kernel C++ name -> tid arity
        self.indexed = set()  # kernels found by their own key (their index entry is current)
        self.paths = {}       # unit hash -> path of its binary
        self.provided = {}    # unit hash -> the kernel hashes it provides (checked entries)
        self.reached = []
        self.compiled = []    # names of the kernels compiled by this load
        self.translated = False   # whether any kernel was translated (no full index hit)

    def run(self):
        # the cache's shared lock from the first lookup until the units are loaded: the garbage
        # collector never renames a unit away in between (compiler/cache_gc.py)
        # background compilers (the quick tier's optimised builds) stop meanwhile
        with cache.in_use(), background.paused():
            return self._run()

    def _run(self):
        t0 = self.t0
        options = (self.backward, self.debug, self.fast_math, config.max_unroll, self.lanes,
                   self.checks)
        if self.extras.preamble:    # (only then: the keys of modules without one stay as they were)
            options += (self.extras.preamble,)
        keys = warm_index.kernel_keys(self.kernels, options, self.build_key, translator_signature(), self.reached)
        if keys is None:
            self.reached = None
        elif self._from_module_index(keys[0]):
            return self._loaded(False, t0)
        else:
            self._from_kernel_index(keys[1])
        self._translate_and_build(keys)
        loaded = self._loaded(bool(self.compiled), t0)
        if self.translated:     # an edit: too many small units are compiled again, grouped
            unit_merge.maybe_merge(self, keys)
        return loaded

    # --- the index: no translation ---------------------------------------------------------
    def _from_module_index(self, key):
        entry = quick_tier.lookup(key)
        try:
            found = {k.cpp: tuple(entry["kernels"][k.cpp]) for k in self.kernels}
            units = {unit for unit, _ in found.values()}
            if any(type(arity) is not int for _, arity in found.values()):
                return False                        # a damaged entry
        except (KeyError, TypeError, ValueError):   # no entry, or not one of ours
            return False
        paths = {}
        for unit in units:
            paths[unit] = cache.lookup(unit, cpu_compiler.BINARY) if isinstance(unit, str) else None
            if paths[unit] is None:
                return False
        for cpp, (unit, arity) in found.items():
            self.units[cpp], self.arity[cpp] = unit, arity
        self.paths = paths
        return True

    def _from_kernel_index(self, keys):
        for k, key in zip(self.kernels, keys):
            entry = quick_tier.lookup(key)
            if entry is None or type(entry.get("tid_arity")) is not int or \
                    not self._use(k, entry.get("unit"), entry.get("kernel_hash")):
                continue
            self.arity[k.cpp] = entry.get("tid_arity")
            self.indexed.add(k.cpp)

    def _use(self, kernel, unit, kernel_hash):
        """Take ``unit`` for ``kernel`` if it is a valid entry that provides ``kernel_hash``."""
        if not isinstance(unit, str) or not isinstance(kernel_hash, str):
            return False
        if unit not in self.provided:
            found = cache.lookup_entry(unit, cpu_compiler.BINARY)
            if found is None:
                return False
            self.paths[unit], self.provided[unit] = found
        if kernel_hash not in self.provided[unit]:
            return False
        self.units[kernel.cpp] = unit
        self.hashes[kernel.cpp] = kernel_hash
        return True

    # --- translation and compilation ----------------------------------------------------------
    def _translate_and_build(self, keys):
        todo = [k for k in self.kernels if k.cpp not in self.units]
        if not todo:
            if keys is not None:
                self._store(keys, [])
            return
        self.translated = True
        # codegen is imported here, not at package import: a warm load never generates code
        from ..codegen.module_source import ModuleParts
        from ..codegen.target import CPU
        from ..lang.definitions.lower import lower
        parts = ModuleParts(lower(todo), CPU, self.checks, self.backward, self.lanes,
                            preamble=self.extras.preamble)
        missing, sizes = [], {}
        for k in todo:
            h, size = unit_plan.kernel_hash(parts, k, self.build_key)
            self.arity[k.cpp] = k.ir.tid_arity
            if not self._use(k, cache.kernel_unit(h), h):
                self.hashes[k.cpp], sizes[k.cpp] = h, size
                missing.append(k)
        groups = unit_plan.groups(missing, cpu_compiler.workers(), sizes)
        units = unit_plan.unit_sources(parts, groups, self.hashes, self.build_key)
        # a large build runs first from quickly compiled units, the optimised ones follow
        job = None
        if quick_tier.wanted(len(missing), self.debug, self.fast_math):
            quick_key = cpu_compiler.build_key(self.debug, self.fast_math, quick=True,
                                               extra=self.extras.key)
            optimised = units
            units = [(src, cache.module_hash(src, quick_key), khs) for src, _, khs in units]
            job = quick_tier.begin(self.name, [unit for _, unit, _ in units])
        for group, (_, unit, _) in zip(groups, units):
            for k in group:
                self.units[k.cpp] = unit
        # the cache's records are written while the compilers run (a cold build of 100 kernels
        # writes ~200 small files); one that names a unit not published yet is only a miss
        writer = threading.Thread(target=self._store, args=(keys, units, job is None))
        writer.start()
        try:
            from ..compiler import build   # only on a miss: its dataclasses cost ~1 ms to define
            options = build.BuildOptions("cpu", self.debug, self.fast_math, name=self.name,
                                         quick=job is not None, **self.build_options())
            built = [(b.path, b.built) for b in build.compile_units(units, options)]
        finally:
            writer.join()
        for group, (_, unit, _), (path, was_built) in zip(groups, units, built):
            self.paths[unit] = path
            if was_built:
                self.compiled += [k.key for k in group]
        if job is not None:
            self._optimise(job, keys, groups, optimised)

    def _optimise(self, job, keys, groups, units):
        """Start the background optimised build of the quick ``units`` of ``groups``, with the
        index entries it records once they exist."""
        from ..compiler import build
        final = {k.cpp: unit for group, (_, unit, _) in zip(groups, units) for k in group}
        index = []
        if keys is not None:
            for k, key in zip(self.kernels, keys[1]):
                if k.cpp in final:
                    index.append((key, {"kernel_hash": self.hashes[k.cpp], "unit": final[k.cpp],
                                        "tid_arity": self.arity[k.cpp]}))
            mapped = {k.cpp: final.get(k.cpp, self.units[k.cpp]) for k in self.kernels}
            if not quick_tier.jobs_of([u for cpp, u in mapped.items() if cpp not in final]):
                index.append((keys[0], {"kernels": {cpp: [u, self.arity[cpp]] for cpp, u in mapped.items()}}))
        options = build.BuildOptions("cpu", self.debug, self.fast_math, name=self.name,
                                     **self.build_options())
        quick = [(self.paths[self.units[group[0].cpp]], group) for group in groups]
        quick_tier.start(job, units, index, options, quick, self._strided_options())

    def _store(self, keys, units, record=True):
        """Kernel records of the new ``units`` (not ``record``: quick units, which get none);
        the index entries of the kernels not found by their own key, and the module's entry
        (in this process only while they name quick units: quick_tier.store)."""
        for _, unit, kernel_hashes in units if record else ():
            cache.record_kernels(unit, kernel_hashes)
        if keys is None:
            return
        module_key, kernel_keys = keys
        for k, key in zip(self.kernels, kernel_keys):
            if k.cpp in self.indexed:
                continue
            quick_tier.store(key, {"kernel_hash": self.hashes[k.cpp], "unit": self.units[k.cpp],
                                   "tid_arity": self.arity[k.cpp]})
        quick_tier.store(module_key, {"kernels": {k.cpp: [self.units[k.cpp], self.arity[k.cpp]]
                                                  for k in self.kernels}})

    def build_options(self):
        """The extras' part of compiler.build.BuildOptions."""
        return {"include_dirs": self.extras.include_dirs, "key_extra": self.extras.key}

    def _strided_options(self):
        return strided.Options(self.name, self.checks, self.backward, self.lanes, self.debug,
                               self.fast_math, self.build_key, self.extras)

    def _loaded(self, built, t0):
        units = {k.cpp: self.paths[self.units[k.cpp]] for k in self.kernels}
        h = plan_hash(self.units.values()) if self.units else cache.module_hash("", self.build_key)
        lazy = {}
        for k in self.kernels:
            unit = self.units[k.cpp]
            lazy.setdefault(self.paths[unit], (unit, []))[1].append(k)
        return LoadedModule(units, {k.cpp: k for k in self.kernels}, dict(self.arity), h, built, time.perf_counter() - t0, self.compiled,
                            (self._strided_options(), lazy),
                            quick_tier.jobs_of(self.units.values()))

