"""The package's compiled extension modules, loaded on first use (they cost time to load).

``_native`` (allocator, CPU thread pool, launches) and ``_geometry`` (BVH, hash grid, NanoVDB
builders) are pybind11 modules that import nothing of the package. They are loaded by name here:
import-linter cannot see an extension module and would read ``from .. import _native`` as an
import of the package's top namespace (warp_interactive/__init__.py) from a lower layer.
"""

import importlib


def runtime_module():
    return importlib.import_module("warp_interactive._native")


def geometry_module():
    return importlib.import_module("warp_interactive._geometry")
