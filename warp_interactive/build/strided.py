"""Lazy strided entries: the plain loop of a kernel's CPU forward entry, built on the
first launch that needs it.

A straight-line kernel's forward entry runs a unit-stride loop (every array's innermost stride
pinned to its element size, so g++ vectorises it) or, for any other launch (a strided view, a
transposed or indexed array, indices past int32), a plain loop. Both loops inline the body,
and the plain one was ~40% of a module's compile time, for launches most modules never see. So
a kernel's unit holds only the unit-stride loop (codegen/target.py `_CPU_ENTRY_LAZY`); its other
branch calls ``wpi_run_strided`` (native core.h), whose first call per kernel asks this module's
resolver for the plain loop's entry, a unit of its own (`_CPU_ENTRY_STRIDED`) compiled here, or
found in the cache, and keeps its address in the kernel's slot. Every launch path (the fast
plans, ``record_cmd`` and graph replays, tapes, the JAX FFI) goes through the entry, so none
of them checks strides itself.

The resolver runs on whichever thread (a launch's pool worker, the launching thread) meets the
first strided chunk, with the GIL taken by ctypes; the launch's other threads wait on the slot's
lock. A kernel's strided unit is generated from the kernel's current IR and used only when that
IR still gives the unit's kernel hash (the unit's manifest lists them): a unit is never paired
with a body other than its own. When no entry can be had (no compiler any more, a kernel whose
definition changed under a still-running old binary) nothing runs on the strided memory (running
the unit-stride loop there would be a silently wrong result): the resolver keeps the reason and
answers NULL, the entry sets the launch's stopping flag (the one Ctrl-C sets), the native
launcher raises KeyboardInterrupt, and the launch site (``wp.launch``, ``Launch.launch``) turns it
into ``wp.LaunchError`` naming the kernel and the reason (``raise_failure``); the next launch
tries again. A launch from another Python thread has no stopping flag: there the reason is
printed and the process stops (``__builtin_trap``).
"""

import _thread
import ctypes
import importlib
import sys
import threading
import traceback

from ..compiler import cache
from ..compiler import cpu as cpu_compiler

_RESOLVER_T = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)

_lock = threading.RLock()
_units = {}        # ctx -> _Unit (one per loaded unit library)
_ctx_of = {}       # unit hash -> ctx
_entries = {}      # (ctx, kernel C++ name) -> address of its strided entry
_libs = []         # the strided libraries loaded (kept: their code stays mapped)
_failed = {}       # (ctx, kernel C++ name) -> why its entry could not be had (until raised)


class _Unit:
    """A loaded unit: its hash, the build options it was compiled with, its kernels by C++ name."""

    def __init__(self, unit_hash, options):
        self.hash, self.options, self.kernels = unit_hash, options, {}


class Options:
    """What a strided unit is built with: the options of the load that mapped the unit."""

    def __init__(self, name, checks, backward, lanes, debug, fast_math, build_key, extras):
        self.name, self.checks, self.backward, self.lanes = name, checks, backward, lanes
        self.debug, self.fast_math, self.build_key = debug, fast_math, build_key
        self.extras = extras     # build/extras.py


_HOOKS = []
_PLAIN = []


def interrupt_hooks():
    """The native launcher's (poll, stopping, arm) addresses, as ctypes arguments for a loaded
    unit's ``wpi_set_interrupt_hooks`` (NULLs from a native module built before it had them:
    its kernels' loops then never stop). The extension is loaded by name: import-linter would
    read ``from .. import _native`` as an import of the package's top namespace."""
    if not _HOOKS:
        hooks = getattr(importlib.import_module("warp_interactive._native"), "interrupt_hooks", None)
        _HOOKS.extend(ctypes.c_void_p(a) for a in (hooks() if hooks else (None, None, None)))
    return _HOOKS


def plain_flag():
    """The native launcher's plain-gradients flag (native/src/thread_pool.h), as the ctypes
    argument of a loaded unit's ``wpi_set_plain_flag``: NULL from a native module built before it
    had one (gradients are then always added atomically)."""
    if not _PLAIN:
        flag = getattr(importlib.import_module("warp_interactive._native"), "plain_gradients_flag", None)
        _PLAIN.append(ctypes.c_void_p(flag() if flag else None))
    return _PLAIN[0]


def open_unit(path, lazy=None):
    """The built CPU unit at ``path``, loaded as every loader needs it: its kernels' loops see
    Ctrl-C through the launcher's flag (native/src/interrupt.h) and, given ``lazy`` = (unit hash,
    its Kernels, Options), its lazy strided entries resolve here."""
    lib = ctypes.CDLL(path)
    lib.wpi_set_interrupt_hooks(*interrupt_hooks())
    lib.wpi_set_plain_flag(plain_flag())
    if lazy is not None:
        ctx = register(*lazy)
        lib.wpi_set_strided_resolver(RESOLVER_ADDRESS, ctypes.c_void_p(ctx))
    return lib


def register(unit_hash, kernels, options):
    """Record that the unit ``unit_hash`` serves ``kernels`` (Kernel objects) built with
    ``options``; returns the context its library's resolver hook is given."""
    with _lock:
        ctx = _ctx_of.get(unit_hash)
        if ctx is None:
            ctx = _ctx_of[unit_hash] = len(_ctx_of) + 1
            _units[ctx] = _Unit(unit_hash, options)
        for k in kernels:
            _units[ctx].kernels[k.cpp] = k
        return ctx


def _resolve(ctx, name):
    """The C resolver (see the module doc): the strided entry's address, or None (the reason is
    kept for the launch site). ``name`` NULL: the launch cannot be stopped, print the reasons
    (the process stops). A Ctrl-C during the build is delivered after it, to the launching
    thread."""
    if name is None:
        for (_, cpp), (_, text) in list(_failed.items()):
            sys.stderr.write(f"warp_interactive: building the strided-array entry of kernel {cpp} "
                             f"failed:\n{text}")
        sys.stderr.flush()
        return None
    interrupted = False
    cpp = name.decode(errors="replace")
    try:
        while True:
            try:
                return _entry(ctx, cpp)
            except KeyboardInterrupt:
                interrupted = True
    except BaseException as e:   # noqa: B036 - the C caller cannot take an exception
        with _lock:
            _failed.setdefault((ctx, cpp), (e, traceback.format_exc()))
        return None
    finally:
        if interrupted:
            _thread.interrupt_main()


def raise_failure():
    """At a launch site that caught KeyboardInterrupt: raise ``wp.LaunchError`` for a strided
    entry that could not be had during the launch (then the next launch tries again); return
    when there is none (a real Ctrl-C)."""
    with _lock:
        failed = list(_failed.items())
        _failed.clear()
    if not failed:
        return
    from ..errors import LaunchError
    (ctx, cpp), (error, _) = failed[0]
    kernel = _units[ctx].kernels.get(cpp)
    name = kernel.key if kernel is not None else cpp
    raise LaunchError(
        f"kernel '{name}' was launched on strided memory (an array whose innermost stride is not "
        f"its element size, or more than 2**31 threads), which needs its strided-array entry, and "
        f"that could not be built, so nothing ran on it: {type(error).__name__}: {error}") from error


RESOLVER = _RESOLVER_T(_resolve)
RESOLVER_ADDRESS = ctypes.c_void_p(ctypes.cast(RESOLVER, ctypes.c_void_p).value)


def _entry(ctx, cpp):
    with _lock:
        addr = _entries.get((ctx, cpp))
        if addr is None and (ctx, cpp) in _failed:   # this launch's other chunks: no retry
            raise _failed[(ctx, cpp)][0]
        if addr is None:
            addr = _entries[(ctx, cpp)] = _build(_units[ctx], cpp)
        return addr


def _build(unit, cpp):
    """Compile (or find) the strided unit of kernel ``cpp`` of ``unit``; its entry's address."""
    from ..codegen.module_source import ModuleParts
    from ..codegen.target import CPU
    from ..compiler import build
    from ..lang.definitions.lower import lower
    kernel, o = unit.kernels[cpp], unit.options
    mir = lower([kernel])     # translated already: the kernel's unit was built from it
    own = ModuleParts(mir, CPU, o.checks, o.backward, o.lanes, preamble=o.extras.preamble).source([cpp])
    found = cache.lookup_entry(unit.hash, cpu_compiler.BINARY)
    if found is None or cache.module_hash(own, o.build_key) not in found[1]:
        raise RuntimeError(f"kernel '{kernel.key}' no longer has the code of its loaded unit "
                           f"{unit.hash[:12]} (a @wp.func it calls was redefined): launch it again "
                           f"after the redefinition rather than a launch recorded before it")
    source = ModuleParts(mir, CPU, o.checks, False, False, strided=True,
                         preamble=o.extras.preamble).source([cpp])
    options = build.BuildOptions("cpu", o.debug, o.fast_math, name=f"{o.name} (strided {kernel.key})",
                                 include_dirs=o.extras.include_dirs, key_extra=o.extras.key)
    binary, = build.compile_units([(source, cache.module_hash(source, o.build_key), [])], options)
    lib = open_unit(binary.path)
    _libs.append(lib)
    return ctypes.cast(getattr(lib, f"{cpp}_cpu_forward_strided"), ctypes.c_void_p).value
