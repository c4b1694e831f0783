"""Where the C++ headers that generated kernel code includes live at run time.

Generated code does ``#include "warp_interactive/builtin.h"``, so the compiler
needs ``-I <include_dir()>``.  The headers are kept in the repository under
``native/include/warp_interactive/``; setup.py decides where they end up:

* regular install (``pip install .``, a wheel): copied into the package, so
  ``include_dir()`` is ``<site-packages>/warp_interactive/_include``;
* editable install (``pip install -e .``) or running from a source checkout:
  the package directory is the one in the repository and the headers are read
  from ``<repo>/native/include`` (edits take effect without reinstalling).

The environment variable ``WARP_INTERACTIVE_INCLUDE_DIR`` overrides both.
"""

import os
from functools import lru_cache

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

__all__ = ["include_dir", "include_dir_candidates"]


def include_dir_candidates():
    """The folders include_dir() looks at, in order."""
    candidates = []
    override = os.environ.get("WARP_INTERACTIVE_INCLUDE_DIR")
    if override:
        candidates.append(os.path.abspath(override))
    # regular install: headers copied into the package by setup.py
    candidates.append(os.path.join(_PACKAGE_DIR, "_include"))
    # editable install / source checkout: <repo>/warp_interactive/ -> <repo>/native/include
    candidates.append(os.path.join(os.path.dirname(_PACKAGE_DIR), "native", "include"))
    return candidates


@lru_cache(maxsize=None)
def include_dir():
    """Return the directory that contains the ``warp_interactive/`` header folder."""
    candidates = include_dir_candidates()
    for path in candidates:
        if os.path.isdir(os.path.join(path, "warp_interactive")):
            return path
    raise FileNotFoundError(
        "warp_interactive C++ headers not found; looked for a 'warp_interactive' folder in: "
        + ", ".join(candidates)
    )
