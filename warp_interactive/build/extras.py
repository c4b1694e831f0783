"""A module's ``extra_build_options`` (``wp.ModuleBuildOptions``) for one backend: checked, and
turned into what its build uses: the preamble (part of the generated source), the include
directories (compiler arguments) and the build-key entries of both of those and of the
dependency files' contents, so that changing any of them rebuilds."""

import hashlib
import os
from dataclasses import dataclass

from ..lang.definitions.build_options import ModuleBuildOptions, normalize_preamble


@dataclass(frozen=True)
class BuildExtras:
    preamble: str = ""
    include_dirs: tuple = ()
    key: tuple = ()          # appended to the build key; empty when there are no extras


NONE = BuildExtras()


def of_module(module, target="cpu"):
    """The BuildExtras of ``module``'s ``extra_build_options`` for ``target`` ("cpu" or "cuda")."""
    try:
        opts = module.option("extra_build_options")
    except KeyError:
        opts = None
    return resolve(opts, target)


def resolve(opts, target="cpu"):
    if opts is None:
        return NONE
    if not isinstance(opts, ModuleBuildOptions):
        raise TypeError("Module option 'extra_build_options' must be a ModuleBuildOptions instance, "
                        f"got {type(opts).__name__}.")
    cuda = target == "cuda"
    preamble = normalize_preamble(opts.extra_cuda_preamble if cuda else opts.extra_cpu_preamble)
    dirs = include_dirs(opts.extra_cuda_include_dirs if cuda else opts.extra_cpu_include_dirs)
    deps = dependencies(opts.extra_build_dependencies)
    if not (dirs or deps):      # a preamble is in the source, hashed with it
        return BuildExtras(preamble)
    return BuildExtras(preamble, dirs, ("extra_build_options", dirs, deps))


def include_dirs(entries):
    """The absolute, existing directories ``entries`` names, resolved; warp-lang's error else."""
    out, bad = [], []
    for entry in entries:
        path = os.fspath(entry)
        if not os.path.isabs(path):
            bad.append(f"{path!r} (not absolute)")
        elif not os.path.isdir(os.path.realpath(path)):
            bad.append(f"{path!r} (not a directory)")
        else:
            out.append(os.path.realpath(path))
    if bad:
        raise ValueError("extra_include_dirs entries must be absolute existing directories: " + ", ".join(bad))
    return tuple(out)


def dependencies(entries):
    """((path, sha256 of its contents), ...) of the files ``entries`` names; warp-lang's error
    for a relative path or a path that is not a file."""
    out, bad = [], []
    for entry in entries:
        path = os.fspath(entry)
        if not os.path.isabs(path):
            bad.append(f"{path!r} (not absolute)")
            continue
        path = os.path.realpath(path)
        if not os.path.isfile(path):
            bad.append(f"{path!r} (not a file)")
            continue
        with open(path, "rb") as f:
            out.append((path, hashlib.sha256(f.read()).hexdigest()))
    if bad:
        raise ValueError("extra_build_dependencies entries must be absolute existing files: " + ", ".join(bad))
    return tuple(out)
