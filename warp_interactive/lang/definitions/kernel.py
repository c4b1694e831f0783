"""``wp.Kernel``: a function compiled for launch over a grid (what ``@wp.kernel`` makes).

A kernel whose signature has ``typing.Any`` in it (``x: Any``, ``wp.array(dtype=Any)``) is
generic: it is never built itself; each set of concrete argument types (from a launch's
arguments, or ``wp.overload``) gets a specialised Kernel, cached on the generic one by type
signature and built into the same module."""

import itertools
import re

from . import generics
from ..analysis.walk import reached_irs
from ..translation import static
from ..translation.block_funcs import uses_tiles
from ...errors import CodegenError
from ...state import state
from ..annotations import _hash, annotations_of, canonical_type, is_concrete, not_a_type, type_key
from .source import source_of

_unique = itertools.count(1)


def _cpp_identifier(key):
    return re.sub(r"\W", "_", key)


class Kernel:
    """``wp.Kernel(func, key=None, module=None, options=None)``: as ``@wp.kernel`` makes.
    ``module`` is a Module, a module name, ``"unique"`` (a module of its own) or None (the
    function's Python module); ``options`` are per-kernel options (``enable_backward``)."""

    _wp_kernel_ = True

    def __init__(self, func, key=None, module=None, options=None, code_transformers=None,
                 source=None, enable_backward=None, _generic=None, _arg_types=None, _block_width=1):
        if code_transformers:
            raise NotImplementedError("wp.Kernel(code_transformers=...) is not supported")
        self.func = func
        self.key = key or func.__name__
        self.options = dict(options or {})
        if enable_backward is not None:
            self.options["enable_backward"] = enable_backward
        self.src = _generic.src if _generic is not None else source_of(func)
        if _generic is None:
            self.src.statics = static.pre_resolve(self.src, func.__globals__)
        self.arg_types = _arg_types or annotations_of(func, self.src, "kernel")
        self._check_annotations()
        self.is_generic = any(generics.is_generic(t) for t in self.arg_types.values())
        self.overloads = {}            # a generic kernel's specialisations, by type signature
        self._generic = _generic
        # lanes per block: above one, a build for cooperative CPU blocks (see with_block_width)
        self.block_width = _block_width
        self._block_variants = {}
        self._uses_tiles, self._uses_tiles_of = False, None    # (the answer, the IR it is of)
        sig = [type_key(t) for t in self.arg_types.values()]
        self.cpp = f"{_cpp_identifier(self.key)}_{_hash(self.src.text, sig)}"
        if _block_width > 1:
            self.cpp += f"_b{_block_width}"
        self.__doc__ = func.__doc__
        self.__name__ = func.__name__
        self._ir = None
        self.module = _generic.module if _generic is not None else _resolve_module(func, module)
        self.module.add_kernel(self, self._module_entry())

    def _check_annotations(self):
        for name, t in self.arg_types.items():
            if not (is_concrete(t) or generics.is_generic(t)):
                a = next(a for a in self.src.tree.args.args if a.arg == name)
                raise CodegenError(not_a_type("kernel", name, t), self.src.filename,
                                   self.src.first_line + a.lineno - 1, a.col_offset,
                                   self.src.lines[a.lineno - 1], self.key)

    def _module_entry(self):
        """The name this kernel has among its module's kernels (specialisations add their types)."""
        if self._generic is None:
            return self.key
        if self.block_width > 1:
            return f"{self._generic._module_entry()}[block_dim={self.block_width}]"
        return f"{self.key}[{', '.join(generics.describe(t) for t in self.arg_types.values())}]"

    def forget_ir(self):
        """Translate again on next use (its module was invalidated)."""
        self._ir = None

    def is_registered(self):
        """False once the module no longer holds this object (a module swapped by the notebook)."""
        return self.module.kernels.get(self._module_entry()) is self

    @property
    def enable_backward(self):
        return self.options.get("enable_backward")

    @property
    def ir(self):
        if self.is_generic:
            raise TypeError(f"kernel {self.key} is generic: it is built for the argument types "
                            "of each launch (or of wp.overload)")
        if self._ir is None:
            from ...config import config
            from ..translation.translator import Translator
            tr = Translator(self.src, self.func.__globals__, config.max_unroll)
            tr.block_width = self.block_width
            fir = tr.translate(self.cpp, self.arg_types, is_kernel=True)
            err = _backward_error(fir)
            if err is not None and self.backward_enabled():
                raise err
            self._ir = fir
        return self._ir

    @property
    def array_access(self):
        """(read, written): the names of the arguments whose memory the kernel's code loads
        from and stores to (directly, through views and struct fields, or in @wp.func calls),
        in argument order. The tape graph draws its data flow from this."""
        from ..analysis.effects import array_effects
        read, written = array_effects(self.ir)
        order = list(self.arg_types)
        return tuple(n for n in order if n in read), tuple(n for n in order if n in written)

    # --- generic kernels ---------------------------------------------------------------------
    def specialise(self, arg_types):
        """The specialisation for ``arg_types`` (a dict by parameter name), made once."""
        sig = tuple(type_key(t) for t in arg_types.values())
        k = self.overloads.get(sig)
        if k is None:
            k = Kernel(self.func, self.key, options=self.options, _generic=self,
                       _arg_types=dict(arg_types))
            try:
                k.ir    # a specialisation that cannot be built must not break its module
            except Exception:
                k.module.kernels.pop(k._module_entry(), None)
                raise
            self.overloads[sig] = k
        return k

    def for_launch(self, values):
        """The kernel a launch with these argument values runs (self unless generic)."""
        if not self.is_generic:
            return self
        arg_types = generics.specialise(self.key, self.arg_types, values)
        return self.specialise(arg_types)

    def with_block_width(self, width):
        """This (concrete) kernel built for cooperative CPU blocks of ``width`` lanes
        (``wp.config.enable_cpu_blocks``): made once per width, in the same module."""
        k = self._block_variants.get(width)
        if k is None:
            k = Kernel(self.func, self.key, options=self.options,
                       _generic=self, _arg_types=dict(self.arg_types), _block_width=width)
            try:
                k.ir
            except Exception:
                k.module.kernels.pop(k._module_entry(), None)
                raise
            self._block_variants[width] = k
        return k

    @property
    def uses_tiles(self):
        """Whether the kernel, or a @wp.func it calls, holds tiles or tile stacks: on CUDA its
        blocks then run cooperatively (runtime/launch.py); the threads of any other kernel never
        meet, so its one-lane build is the same program."""
        ir = self.ir
        if self._uses_tiles_of is not ir:
            self._uses_tiles, self._uses_tiles_of = uses_tiles(ir), ir
        return self._uses_tiles

    def get_overload(self, arg_types):
        """warp-lang's name: the specialisation for a list of concrete types."""
        return self.specialise(generics.check_overload(self.key, self.arg_types, arg_types))

    def backward_enabled(self):
        """@wp.kernel(enable_backward=...) if given, else the module's option (default: wp.config)."""
        if self.enable_backward is not None:
            return bool(self.enable_backward)
        return bool(self.module.option("enable_backward"))

    def __call__(self, *args, **kwargs):
        raise TypeError(f"kernel {self.key} is launched with wp.launch({self.key}, dim=..., "
                        "inputs=[...]), not called")

    def __repr__(self):
        return f"<wp.kernel {self.key}>"


def _resolve_module(func, module):
    """A Module object as given; a name (``"unique"``: a fresh one), or the function's Python
    module when None, through the process state (the decorator resolves notebook cells first)."""
    if module is not None and not isinstance(module, str):
        return module
    if module == "unique":
        module = f"{func.__module__}.{func.__qualname__}#{next(_unique)}"
    return state.module(module or func.__module__)


def overload(kernel_or_func, arg_types=None):
    """``wp.overload(generic, [types])`` / ``wp.overload(generic, {"name": type})``: build the
    specialisation of a generic kernel or @wp.func for those concrete types now. As a decorator
    on a function with concrete annotations and the generic's name, the same."""
    if isinstance(kernel_or_func, Kernel):
        if arg_types is None:
            raise TypeError("wp.overload(kernel, arg_types) needs the argument types")
        return kernel_or_func.get_overload(arg_types)
    if getattr(kernel_or_func, "_wp_function_", False):
        if arg_types is None:
            raise TypeError("wp.overload(func, arg_types) needs the argument types")
        return kernel_or_func.add_generic_overload(arg_types)
    return _overload_decorator(kernel_or_func)


def _overload_decorator(fn):
    """``@wp.overload`` on a function: the generic kernel or @wp.func of that name in the same
    Python scope, specialised for the decorated function's annotations."""
    import inspect
    frame = inspect.currentframe().f_back.f_back
    generic = frame.f_locals.get(fn.__name__, fn.__globals__.get(fn.__name__))
    if not (isinstance(generic, Kernel) or getattr(generic, "_wp_function_", False)):
        raise TypeError(f"@wp.overload {fn.__name__}: no generic @wp.kernel or @wp.func of that "
                        "name is defined before it")
    src = source_of(fn)
    types = annotations_of(fn, src, "kernel")
    types = {k: canonical_type(v) for k, v in types.items()}
    if isinstance(generic, Kernel):
        generic.get_overload(types)
    else:
        generic.add_generic_overload(types)
    return generic


def _backward_error(fir):
    """The first construct, in the kernel or the @wp.funcs it calls, whose adjoint would be
    wrong (FunctionIR.backward_error), or None."""
    return next((f.backward_error for f in reached_irs(fir) if f.backward_error is not None), None)
