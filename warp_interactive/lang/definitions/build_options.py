"""``wp.ModuleBuildOptions``: extra build inputs of a module (include directories, a preamble,
files its binary depends on), set as the module option ``extra_build_options``. This is the
user's description only; build/extras.py checks it and turns it into what a build uses."""

import os


def normalize_preamble(preamble):
    """A preamble ends with a newline, so ``"#define X 1"`` and ``"#define X 1\\n"`` build the
    same source (and hash the same)."""
    if preamble and not preamble.endswith("\n"):
        return preamble + "\n"
    return preamble


class ModuleBuildOptions:
    """Extra build options for a Warp module, as warp-lang's (experimental there too)::

        opts = wp.ModuleBuildOptions(extra_cpu_include_dirs=["/abs/include"],
                                     extra_cpu_preamble='#include "addon.h"')
        wp.set_module_options({"extra_build_options": opts})

    ``extra_cpu_include_dirs``/``extra_cuda_include_dirs``: absolute paths of existing
    directories searched by that backend's compiler; ``extra_cpu_preamble``/
    ``extra_cuda_preamble``: source inserted after the builtin headers and before the generated
    code; ``extra_build_dependencies``: absolute paths of files whose contents are part of the
    module's hash (re-read when the module is built or loaded again, e.g. after
    ``wp.set_module_options``). Changing an instance takes effect when it is passed to
    ``wp.set_module_options`` again. Every one of them is part of the module's hash: a change
    rebuilds."""

    def __init__(self, *, extra_cuda_include_dirs=None, extra_cpu_include_dirs=None,
                 extra_cuda_preamble="", extra_cpu_preamble="", extra_build_dependencies=None):
        for name, value in (("extra_cuda_preamble", extra_cuda_preamble),
                            ("extra_cpu_preamble", extra_cpu_preamble)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a str, got {type(value).__name__}")
        self.extra_cuda_include_dirs = list(extra_cuda_include_dirs or [])
        self.extra_cpu_include_dirs = list(extra_cpu_include_dirs or [])
        self.extra_cuda_preamble = extra_cuda_preamble
        self.extra_cpu_preamble = extra_cpu_preamble
        self.extra_build_dependencies = list(extra_build_dependencies or [])

    def merged(self, *others):
        """A new instance: ``self``'s options followed by each of ``others``'. Include
        directories and dependencies keep their first occurrence; preambles are joined in order
        (a newline between non-empty ones). The inputs are not modified."""
        dirs_cuda, dirs_cpu = list(self.extra_cuda_include_dirs), list(self.extra_cpu_include_dirs)
        deps = list(self.extra_build_dependencies)
        pre_cuda, pre_cpu = self.extra_cuda_preamble, self.extra_cpu_preamble
        for other in others:
            if not isinstance(other, ModuleBuildOptions):
                raise TypeError(f"others must contain ModuleBuildOptions instances, got {type(other).__name__}")
            _append_unique(dirs_cuda, other.extra_cuda_include_dirs)
            _append_unique(dirs_cpu, other.extra_cpu_include_dirs)
            _append_unique(deps, other.extra_build_dependencies)
            pre_cuda = _join_preambles(pre_cuda, other.extra_cuda_preamble)
            pre_cpu = _join_preambles(pre_cpu, other.extra_cpu_preamble)
        return ModuleBuildOptions(extra_cuda_include_dirs=dirs_cuda, extra_cpu_include_dirs=dirs_cpu,
                                  extra_cuda_preamble=pre_cuda, extra_cpu_preamble=pre_cpu,
                                  extra_build_dependencies=deps)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if v)
        return f"ModuleBuildOptions({fields})"


def _append_unique(target, additions):
    seen = {os.fspath(v) for v in target}
    for v in additions:
        if os.fspath(v) not in seen:
            target.append(v)
            seen.add(os.fspath(v))


def _join_preambles(first, second):
    if not first:
        return second
    if not second:
        return first
    return normalize_preamble(first) + second
