"""Lazy strided entries (issue 21): the plain loop of a kernel's CPU forward entry, built on the
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
definition changed under a still-running old binary) the message is printed and the process
stops (``__builtin_trap``): running the unit-stride loop on strided memory would be a silently
wrong result.
"""

import _thread
import ctypes
import sys
import threading
import traceback

from ..compiler import cache
from ..compiler import cpu as cpu_compiler
from .native import interrupt_hooks

_RESOLVER_T = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)

_lock = threading.RLock()
_units = {}        # ctx -> _Unit (one per loaded unit library)
_ctx_of = {}       # unit hash -> ctx
_entries = {}      # (ctx, kernel C++ name) -> address of its strided entry
_libs = []         # the strided libraries loaded (kept: their code stays mapped)


class _Unit:
    """A loaded unit: its hash, the build options it was compiled with, its kernels by C++ name."""

    def __init__(self, unit_hash, options):
        self.hash, self.options, self.kernels = unit_hash, options, {}


class Options:
    """What a strided unit is built with: the options of the load that mapped the unit."""

    def __init__(self, name, checks, backward, lanes, debug, fast_math, build_key):
        self.name, self.checks, self.backward, self.lanes = name, checks, backward, lanes
        self.debug, self.fast_math, self.build_key = debug, fast_math, build_key


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
    """The C resolver (see the module doc): the strided entry's address, or None (the process
    stops). A Ctrl-C during the build is delivered after it, to the launching thread."""
    interrupted = False
    try:
        while True:
            try:
                return _entry(ctx, name.decode())
            except KeyboardInterrupt:
                interrupted = True
    except BaseException:   # noqa: B036 - the C caller cannot take an exception
        sys.stderr.write(f"warp_interactive: building the strided-array entry of kernel "
                         f"{name.decode(errors='replace')} failed:\n{traceback.format_exc()}")
        sys.stderr.flush()
        return None
    finally:
        if interrupted:
            _thread.interrupt_main()


RESOLVER = _RESOLVER_T(_resolve)
RESOLVER_ADDRESS = ctypes.c_void_p(ctypes.cast(RESOLVER, ctypes.c_void_p).value)


def _entry(ctx, cpp):
    with _lock:
        addr = _entries.get((ctx, cpp))
        if addr is None:
            addr = _entries[(ctx, cpp)] = _build(_units[ctx], cpp)
        return addr


def _build(unit, cpp):
    """Compile (or find) the strided unit of kernel ``cpp`` of ``unit``; its entry's address."""
    from ..codegen.module_source import ModuleParts
    from ..codegen.target import CPU
    from ..compiler import build
    kernel, o = unit.kernels[cpp], unit.options
    own = ModuleParts([kernel], CPU, o.checks, o.backward, o.lanes).source([kernel])
    found = cache.lookup_entry(unit.hash, cpu_compiler.BINARY)
    if found is None or cache.module_hash(own, o.build_key) not in found[1]:
        raise RuntimeError(f"kernel '{kernel.key}' no longer has the code of its loaded unit "
                           f"{unit.hash[:12]} (a @wp.func it calls was redefined): launch it again "
                           f"after the redefinition rather than a launch recorded before it")
    source = ModuleParts([kernel], CPU, o.checks, False, False, strided=True).source([kernel])
    options = build.BuildOptions("cpu", o.debug, o.fast_math, name=f"{o.name} (strided {kernel.key})")
    binary, = build.compile_units([(source, cache.module_hash(source, o.build_key), [])], options)
    lib = ctypes.CDLL(binary.path)
    lib.wpi_set_interrupt_hooks(*interrupt_hooks())
    _libs.append(lib)
    return ctypes.cast(getattr(lib, f"{cpp}_cpu_forward_strided"), ctypes.c_void_p).value
