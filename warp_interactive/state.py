"""Process-wide state with one owner: ``state`` (see docs/internals.md, "Where state lives").

What outlives one call lives here, and only here: the defined ``@wp.func``s, the modules, the
generation of function definitions, the build log, and what is active (tapes, timing
recorders, graph captures). It sits in the bottom layer so that every layer reads it without
importing the layer that changes it: ``lang`` defines functions and kernels, ``types`` reads the
capture count on its hot paths, the runtime builds and launches, the notebook reloads cells.

The few things that need a higher layer's knowledge go through hooks.py, like every other call
upward: ``new_module``, ``forget_callers`` and ``on_invalidate``.
"""

import itertools

from . import hooks


class FunctionSnapshot:
    """What ``ProcessState.snapshot`` saw of some function keys, for ``restore``."""

    def __init__(self, saved, missing):
        self.saved = saved        # key -> (Function, Function.save())
        self.missing = missing    # keys that had no function


class ProcessState:
    def __init__(self):
        self.functions = {}      # (module name, function name) -> lang.definitions.func.Function
        self.modules = {}        # module name -> lang.definitions.module.Module
        self.generation = [0]    # bumped when any @wp.func is (re)defined: modules check deps
        self.build_log = []      # one BuildRecord per module load (compiled or cached), in order
        self.capturing = [0]     # graph captures in progress, any device (hot paths: [0])
        self.tapes = []          # recording wp.Tapes, innermost last
        self.tape_writes = [0]   # 1 while a tape records or waits for backward (runtime/tape_keep.py)
        self.recorders = []      # wp.timing recorders, innermost last
        self.timer_history = []  # (name, ms) of every wp.ScopedTimer that ended, in order
        self._versions = itertools.count(1)   # a fresh number per (re)definition of a @wp.func

    # --- modules ---------------------------------------------------------------------------
    def module(self, name):
        """The module called ``name``, made on first use."""
        m = self.modules.get(name)
        if m is None:
            m = self.modules[name] = hooks.new_module(name)
        return m

    def replace_module(self, module):
        """Make ``module`` the registered module of its name (the notebook magic builds a cell's
        new module aside and swaps it in only when it built; kernels of the old one keep
        working)."""
        self.modules[module.name] = module

    # --- functions -------------------------------------------------------------------------
    def next_version(self):
        return next(self._versions)

    def invalidate(self):
        """A @wp.func was (re)defined or restored: modules re-check what their kernels reach,
        and every fast launch plan re-validates."""
        self.generation[0] += 1
        self.launches_stale()

    def launches_stale(self):
        """A module's kernels, options or binaries changed: every fast launch plan and recorded
        launch re-validates (runtime/launch_state.py registers itself in ``hooks.on_invalidate``)."""
        for fn in hooks.on_invalidate:
            fn()

    def redefine(self, function):
        """``function`` (already updated in place) changed: its callers re-translate, it gets a
        new version, and the generation moves on."""
        hooks.forget_callers(function)
        self.touch(function)

    def touch(self, function):
        """``function``'s generated code changed (a new definition, a custom adjoint): modules
        whose kernels call it rebuild."""
        function.version = self.next_version()
        self.invalidate()

    def snapshot(self, keys):
        """Save the functions defined under ``keys`` (and which keys have none)."""
        saved, missing = {}, []
        for key in keys:
            f = self.functions.get(key)
            if f is None:
                missing.append(key)
            else:
                saved[key] = (f, f.save())
        return FunctionSnapshot(saved, missing)

    def restore(self, snap):
        """Put the functions of ``snap`` back as they were (a failed notebook cell)."""
        for key in snap.missing:
            self.functions.pop(key, None)
        for key, (f, saved) in snap.saved.items():
            self.functions[key] = f
            f.load(saved)
            hooks.forget_callers(f)
        if snap.saved:
            self.invalidate()


state = ProcessState()
