"""``wp.print_diagnostics()``, ``wp.get_cpu_kernel_cache_key()``, ``wp.clear_lto_cache()``:
what the package runs on, for bug reports and for naming external kernel caches."""

import hashlib
import importlib.metadata
import platform
import sys

from ..config import config
from ..version import __version__


def _cpu_features():
    """The host CPU's ISA flags (``/proc/cpuinfo``), sorted; empty where unreadable."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return sorted(set(line.split(":", 1)[1].split()))
    except OSError:
        pass
    return []


def get_cpu_kernel_cache_key(*, cpu_compiler_flags=None):
    """A key naming the CPU compilation target ("<version>-<OS>-<machine>-<8 hex digits>"): the
    hash covers the compiler and the target flags (``cpu_compiler_flags``, else
    ``wp.config.cpu_compiler_flags``), and the host's ISA features when they contain
    ``-march=native``. Nothing is compiled. Do not parse it."""
    from ..compiler import cpu
    target = cpu.target_flags(cpu_compiler_flags)
    parts = [cpu.compiler_identity(config.cpu_compiler), target]
    if "-march=native" in target:
        parts.append(_cpu_features())
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:8]
    return f"{__version__}-{platform.system()}-{platform.machine()}-{digest}"


def clear_lto_cache():
    """warp-lang clears its libmathdx link-time-optimisation cache; this package builds no LTO
    objects (tile ops need no libmathdx), so there is nothing to clear."""
    return None


def _version_of(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _collect():
    from ..compiler import cpu
    from .cuda_backend import get_cuda_driver_version, probe
    from .cuda_queries import get_cuda_toolkit_version
    from .device import get_devices
    toolkit = get_cuda_toolkit_version()
    info = {"warp_python": config.version, "warp_interactive": __version__,
            "numpy": _version_of("numpy"), "torch": _version_of("torch"), "jax": _version_of("jax"),
            "jaxlib": _version_of("jaxlib"), "python": sys.version.split()[0],
            "platform": platform.platform(), "cpu_compiler": config.cpu_compiler,
            "cpu_compiler_path": cpu.compiler_identity(config.cpu_compiler).split(":")[0],
            "cpu_flags": " ".join(cpu.flags(config.mode == "debug", config.fast_math)),
            "nvrtc": f"{toolkit[0]}.{toolkit[1]}" if toolkit else None,
            "cuda_driver": get_cuda_driver_version() or None,
            "cuda_unavailable": probe(), "mode": config.mode, "fast_math": config.fast_math,
            "verify_fp": config.verify_fp, "kernel_cache_dir": config.kernel_cache_dir}
    info["devices"] = [{"alias": d.alias, "name": d.name, "is_cuda": d.is_cuda,
                        "arch": getattr(d, "arch", None) if d.is_cuda else None}
                       for d in get_devices()]
    return info


def print_diagnostics():
    """Prints what the package runs on (versions, compiler, CUDA, devices) and returns it as a
    dict (warp-lang's keys where they mean the same: ``warp_python``, ``numpy``, ``torch``,
    ``jax``, ``jaxlib``, ``python``; ours besides)."""
    info = _collect()
    print("Software")
    for key in ("warp_python", "warp_interactive", "numpy", "torch", "jax", "jaxlib", "python", "platform"):
        if info[key] is not None:
            print(f"  {key + ':':<20}{info[key]}")
    print("Build")
    for key in ("cpu_compiler", "cpu_compiler_path", "cpu_flags", "mode", "fast_math", "verify_fp",
                "kernel_cache_dir"):
        print(f"  {key + ':':<20}{info[key]}")
    print("CUDA")
    print(f"  {'nvrtc:':<20}{info['nvrtc'] or 'not installed'}")
    print(f"  {'driver:':<20}{info['cuda_driver'] or 'not available'}")
    if info["cuda_unavailable"]:
        print(f"  {'unavailable:':<20}{info['cuda_unavailable']}")
    print("Devices")
    for d in info["devices"]:
        arch = f" (sm_{d['arch']})" if d["arch"] else ""
        print(f"  {d['alias']:<20}{d['name']}{arch}")
    return info
