"""The public module functions (``wp.get_module``, ``wp.load_module``, ``wp.set_module_options``
...). A module's definition is lang/definitions/module.py's ``Module``; what its builds produced is its build
record (build/driver.py)."""

from ..build import driver as _driver  # noqa: F401  (registers the modules' build records)
from ..lang.definitions.module import MODULE_OPTIONS, Module  # noqa: F401  (wp.Module)
from .. import hooks
from ..state import state
from . import launch_state
from .device import get_device


def get_module(name):
    return state.module(name)


def _module_name(module, depth=2):
    """``module`` as a name; None means the module of the public function's caller."""
    if module is None:
        import sys
        # a frame lookup, not inspect.stack(): that reads the source of every frame
        return sys._getframe(depth).f_globals.get("__name__", "__main__")
    if isinstance(module, str):
        return module
    # a Python module, or a kernel's module (kernel.module, as warp-lang's examples pass)
    return getattr(module, "__name__", None) or module.name


def load_module(module=None, device=None, recursive=False, block_dim=None, max_workers=None):
    """Build (or fetch from the cache) and load a module now rather than at its first launch, as
    warp-lang's: ``module`` is a Python module, a ``wp.Module``, a name, or None for the caller's
    module; ``device`` one device, a list, or None for every device; ``recursive`` adds the
    registered modules under its name (``pkg.sub``). A notebook's cell modules load with their
    module. ``block_dim`` and ``max_workers`` are accepted as in ``force_load``. A name with no
    Warp kernels, functions or structs is refused, as warp-lang refuses it."""
    if module is not None and not isinstance(module, (str, Module)) and not hasattr(module, "__name__"):
        raise TypeError(f"Argument must be a module, got {type(module)}")
    name = _module_name(module)
    own = module if isinstance(module, Module) else state.modules.get(name)
    modules = [own] if own is not None else []
    if recursive:
        modules += [m for n, m in list(state.modules.items()) if n.startswith(name + ".")]
    modules += _children(name)          # a notebook's cell modules
    if not modules and not _nothing_to_build(name):
        raise RuntimeError(f"Module '{name}' does not contain any Warp kernels, functions, or structs, "
                           "or has not been imported yet.")
    force_load(device=device, modules=modules, block_dim=block_dim, max_workers=max_workers)


def _nothing_to_build(name):
    """An imported Python module with Warp code but nothing to build now is no error: one that
    defines only ``@wp.struct``s, or one of this package's libraries (``wp.utils``...), whose
    kernels are made on first use."""
    import sys
    from ..types.introspection import type_is_struct
    py = sys.modules.get(name)
    if py is None:
        return False
    if getattr(py, "__name__", "").split(".")[0] == __name__.split(".")[0]:
        return True
    return any(type_is_struct(v) for v in vars(py).values() if isinstance(v, type))


def force_load(device=None, modules=None, block_dim=None, max_workers=None):
    """Build (or fetch from the cache) and load ``modules`` (``wp.Module`` objects; None: every
    module that holds kernels) on ``device`` (a device, a name, a list of them; None: every
    device), as warp-lang's. ``block_dim`` is accepted as ``load_module``'s; the modules load
    one after another (``max_workers`` is accepted: a module's own build already compiles its
    units in parallel)."""
    from .device import get_devices
    if device is None:
        devices = get_devices()
    elif isinstance(device, (list, tuple)):
        devices = [get_device(d) for d in device]
    else:
        devices = [get_device(device)]
    if modules is None:
        modules = [m for m in list(state.modules.values()) if m.kernels]
    for m in modules:
        if not m.kernels:
            continue
        for d in devices:
            m.load(d)


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


hooks.on_invalidate.append(launch_state.invalidate)   # a (re)defined @wp.func: plans re-validate
