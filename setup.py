"""Build of the C++ extension warp_interactive._native and packaging of the C++ headers.

Everything declarative (name, version, dependencies, packages) is in pyproject.toml;
this file only adds what setuptools cannot express there.

How generated code finds the headers at run time (warp_interactive/_paths.py):
  * regular install (`pip install .`, wheels): build_py below copies
    native/include/**.h into the package as warp_interactive/_include/**.h,
    i.e. <site-packages>/warp_interactive/_include/warp_interactive/builtin.h;
  * editable install (`pip install -e .`) or a source checkout: nothing is copied,
    the package lives in the source tree and the headers are read from
    <repo>/native/include/warp_interactive/, so edits to them take effect at once.
_paths.include_dir() returns whichever of the two `include` folders exists.
"""

import re
from pathlib import Path

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
HEADER_SRC = "native/include"          # relative to HERE
HEADER_DST = "warp_interactive/_include"  # relative to build_lib
HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".inl")


def _version():
    text = (HERE / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^version\s*=\s*"([^"]+)"', text, re.M).group(1)


def _headers():
    root = HERE / HEADER_SRC
    return sorted(
        p.relative_to(root)
        for p in root.rglob("*")
        if p.is_file() and p.suffix in HEADER_SUFFIXES
    )


class build_py_with_headers(build_py):
    """build_py that also copies the C++ headers into the package (non-editable builds)."""

    def _header_targets(self):
        dst = Path(self.build_lib) / HEADER_DST
        return [(HERE / HEADER_SRC / rel, dst / rel) for rel in _headers()]

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # editable: _paths.py reads the headers from the source tree
        (Path(self.build_lib) / HEADER_DST / "warp_interactive").mkdir(parents=True, exist_ok=True)
        for src, dst in self._header_targets():
            dst.parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(src), str(dst))

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return outputs + [str(dst) for _, dst in self._header_targets()]


native_sources = sorted(str(p.relative_to(HERE)) for p in (HERE / "native/src").glob("*.cpp"))
native_depends = sorted(str(p.relative_to(HERE)) for p in (HERE / "native/src").glob("*.h"))

ext_modules = [
    Pybind11Extension(
        "warp_interactive._native",
        sources=native_sources,
        depends=native_depends,
        include_dirs=["native/src"],
        cxx_std=17,
        extra_compile_args=["-O2", "-pthread"],
        extra_link_args=["-pthread"],
        define_macros=[("WPI_NATIVE_VERSION", '"%s"' % _version())],
    ),
    # geometry builders (BVH, hash grid): a module of their own, see docs/geometry.md
    Pybind11Extension(
        "warp_interactive._geometry",
        sources=sorted(str(p.relative_to(HERE)) for p in (HERE / "native/src/geometry").glob("*.cpp")),
        depends=sorted(str(p.relative_to(HERE)) for p in (HERE / "native/src/geometry").glob("*.h")),
        include_dirs=["native/src/geometry"],
        cxx_std=17,
        extra_compile_args=["-O2", "-pthread"],
        extra_link_args=["-pthread"],
    ),
]

setup(ext_modules=ext_modules, cmdclass={"build_py": build_py_with_headers})
