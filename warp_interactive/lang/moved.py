"""The module names lang/ had before it was divided into sub-packages, and where each now lives.

Code written against the earlier flat layout (``warp_interactive.lang.registry``) keeps
importing: the finder below answers an old name with the module that now holds it (the same
module object, so monkeypatching either name patches both). The package itself imports only the
new names (tests/project/test_layers.py checks it)."""

import importlib
import importlib.util
import sys

MOVED = {
    "decorators": "definitions.decorators",
    "kernel": "definitions.kernel",
    "func": "definitions.func",
    "func_native": "definitions.func_native",
    "custom_grad": "definitions.custom_grad",
    "module": "definitions.module",
    "source": "definitions.source",
    "generics": "definitions.generics",
    "definition_key": "definitions.definition_key",
    "translator": "translation.translator",
    "calls": "translation.calls",
    "expressions": "translation.expressions",
    "scope": "translation.scope",
    "checks": "translation.checks",
    "slicing": "translation.slicing",
    "starred": "translation.starred",
    "one_path": "translation.one_path",
    "array_views": "translation.array_views",
    "intrinsics": "translation.intrinsics",
    "intrinsics_transform": "translation.intrinsics_transform",
    "grad_of": "translation.grad_of",
    "block_funcs": "translation.block_funcs",
    "dispatch": "translation.dispatch",
    "static": "translation.static",
    "builtins_tile": "tiles.core",
    "builtins_tile_arange": "tiles.arange",
    "builtins_tile_arith": "tiles.arith",
    "builtins_tile_index": "tiles.index",
    "builtins_tile_linalg": "tiles.linalg",
    "builtins_tile_more": "tiles.more",
    "builtins_tile_ops": "tiles.ops",
    "tile_refs": "tiles.refs",
    "registry": "builtins.registry",
    "builtin_function": "builtins.function",
    "builtins_core": "builtins.core",
    "builtins_debug": "builtins.debug",
    "builtins_frames": "builtins.frames",
    "builtins_geometry": "builtins.geometry",
    "builtins_intersect": "builtins.intersect",
    "builtins_linalg": "builtins.linalg",
    "builtins_math": "builtins.math",
    "builtins_numeric": "builtins.numeric",
    "builtins_quat": "builtins.quat",
    "builtins_random": "builtins.random",
    "builtins_utility": "builtins.utility",
    "docgen": "builtins.docgen",
    "print_format": "builtins.print_format",
    "effects": "analysis.effects",
    "access": "analysis.access",
    "deps": "analysis.deps",
}
_PREFIX = __name__.rpartition(".")[0] + "."


class _Alias:
    """A loader (duck-typed: importlib.abc would cost the package's import a few ms)."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass    # the module under its new name is already executed


class MovedFinder:
    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX):
            return None
        new = MOVED.get(fullname[len(_PREFIX):])
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(_PREFIX + new))


def install():
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedFinder())
