"""What a launch needs of one loaded kernel: ``LoadedModule.kernel(name) -> KernelEntry``.

Every target's LoadedModule (the CPU's units, build/cpu_build.py; a GPU's image, runtime/cuda/
modules.py) derives from ``LoadedKernels``, so launch code (runtime/launch.py, fastlaunch.py,
graph.py, interop/jax_ffi.py) reads a kernel's entry addresses, argument structs, ``wp.tid()``
arity, block width and error record from its entry alone, and never from the Kernel object or
the device's kind."""

import ctypes

from ..types import composite as comp
from ..types import scalars as sc
from ..types.array import array
from ..types.arraydesc import ArrayDesc, IndexedArrayDesc
from ..types.indexedarray import is_indexed

ADJ = "@adj"    # the backward struct's field of a by-value adjoint: not a Python identifier


def _ctype_of(t):
    if isinstance(t, array):
        return IndexedArrayDesc if is_indexed(t) else ArrayDesc
    if sc.is_scalar(t):
        return t._ctype
    if comp.is_composite(t):
        return t
    return t._wp_struct_.ctype


def args_struct(kernel):
    """A ctypes struct type for ``kernel``'s parameters (fields mirror the C++ ``K_args``)."""
    fields = [(name, _ctype_of(t)) for name, t in kernel.arg_types.items()]
    return type(f"{kernel.key}_args", (ctypes.Structure,), {"_fields_": fields or [("_unused", ctypes.c_int)]})


def backward_args_struct(kernel, base):
    """The struct an adjoint launch packs: ``base``'s fields (``args_struct``), then the
    adjoints of the scalar and composite parameters, by value (codegen/module_source.py
    `_backward_args`); ``base`` itself for kernels without such parameters."""
    values = [(name + ADJ, _ctype_of(t)) for name, t in kernel.arg_types.items()
              if comp.passes_adjoint_value(t)]
    if not values:
        return base
    return type(f"{kernel.key}_bargs", (ctypes.Structure,), {"_fields_": list(base._fields_) + values})


class KernelEntry:
    """One kernel of a loaded module: ``forward``/``backward`` (the target's entry handles:
    addresses on the CPU, CUfunctions on a GPU), ``args``/``backward_args`` (ctypes struct
    types), ``tid_arity``, ``block_width`` (lanes per cooperative block; 1: none),
    ``checks_errors`` (launches read the error record afterwards) and ``take_error()``."""

    __slots__ = ("kernel", "name", "key", "tid_arity", "block_width", "checks_errors", "_lm",
                 "_handles", "_args", "_backward_args")

    def __init__(self, lm, kernel, tid_arity):
        self._lm, self.kernel, self.name, self.key = lm, kernel, kernel.cpp, kernel.key
        self.tid_arity, self.block_width = tid_arity, kernel.block_width
        # debug mode, or a unit that may record a run-time error anyway (module_source.py)
        self.checks_errors = kernel.module.checks_bounds() or lm.records_errors
        self._handles = {}
        self._args = self._backward_args = None

    def entry(self, which):
        """The entry handle of ``which`` ("forward", "backward")."""
        h = self._handles.get(which)
        if h is None:
            h = self._handles[which] = self._lm.entry(self.name, which)
        return h

    @property
    def forward(self):
        return self.entry("forward")

    @property
    def backward(self):
        return self.entry("backward")

    @property
    def args(self):
        st = self._args
        if st is None:
            st = self._args = args_struct(self.kernel)
        return st

    @property
    def backward_args(self):
        st = self._backward_args
        if st is None:
            st = self._backward_args = backward_args_struct(self.kernel, self.args)
        return st

    @property
    def module(self):
        """The LoadedModule it belongs to."""
        return self._lm

    def take_error(self):
        """The first run-time error its module recorded since the last call, or None."""
        return self._lm.take_error()


class LoadedKernels:
    """The part of a LoadedModule every target shares: its kernels (``kernels``: {C++ name:
    Kernel}, set by the builder) and their entries."""

    records_errors = False    # a unit that records run-time errors outside debug mode says so
    quick = ()                # unfinished background optimised builds (build/quick_tier.py)
    compiled_kernels = None   # names of the kernels this load compiled; None: the whole module

    def __init__(self, kernels):
        self.kernels = kernels
        self._kernel_entries = {}

    def upgraded(self):
        """Whether an optimised build of some quick code it maps has finished (load again)."""
        return any(job.done for job in self.quick)

    def kernel(self, name):
        """The KernelEntry of the kernel whose C++ name is ``name``."""
        entries = self._kernel_entries
        e = entries.get(name)
        if e is None:
            try:
                k = self.kernels[name]
            except KeyError:
                raise KeyError(f"kernel {name} is not in this loaded module") from None
            e = entries[name] = KernelEntry(self, k, self.tid_arity_of(k))
        return e

    def tid_arity_of(self, kernel):
        return kernel.ir.tid_arity
