"""lang layer (see docs/internals.md, Layers): definitions, translation, tiles, builtins and
analysis, over the typed IR (ir.py) and the meaning of annotations (annotations.py).
``lower(kernels) -> ir.ModuleIR`` is what the build stage hands codegen."""
from . import moved as _moved
from .definitions.lower import lower  # noqa: F401

_moved.install()
