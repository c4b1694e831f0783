"""lang layer (see docs/internals.md, Layers): definitions, translation, tiles, builtins and
analysis, over the typed IR (ir.py) and the meaning of annotations (annotations.py)."""
from . import moved as _moved

_moved.install()
