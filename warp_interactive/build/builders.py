"""The builders: one per kind of device, one protocol. ``builder.load(module, backward)`` builds
(or finds in the cache) ``module``'s binary for the builder's device and returns a ``Built``:
the LoadedModule, the @wp.funcs the warm-load key reached (None when the kernels' IR is the
dependency record) and whether anything was translated. A device names its builder
(``Device.builder``); build/driver.py never asks which kind of device it has."""

import time

from . import extras
from .cpu_build import Load


class Built:
    __slots__ = ("loaded", "reached", "translated")

    def __init__(self, loaded, reached, translated):
        self.loaded, self.reached, self.translated = loaded, reached, translated


class CpuBuilder:
    """The host: separately cached units compiled by g++ (build/cpu_build.py)."""

    def load(self, module, backward):
        debug = module.option("mode") == "debug"
        load = Load(module.name, module.build_kernels(), backward, debug,
                    bool(module.option("fast_math")), bool(module.option("cpu_lanes")),
                    checks=module.checks_bounds(), extras=extras.of_module(module, "cpu"))
        lm = load.run()
        return Built(lm, load.reached, load.translated)


class CudaBuilder:
    """A GPU: the whole module as one NVRTC build (cached by the source's hash), loaded into the
    device's context by ``open_image(path, kind, kernels)`` (the runtime's loader, given by the device)."""

    def __init__(self, arch, open_image):
        self.arch, self.open_image = arch, open_image

    def load(self, module, backward):
        from ..codegen.target import CUDA
        from ..compiler.build import BuildOptions, compile
        t0 = time.perf_counter()
        source = module.source(CUDA, backward)
        more = extras.of_module(module, "cuda")
        options = BuildOptions("cuda", module.option("mode") == "debug",
                               bool(module.option("fast_math")), arch=self.arch, name=module.name,
                               include_dirs=more.include_dirs, key_extra=more.key)
        binary = compile(source, options)
        lm = self.open_image(binary.path, binary.kind, {k.cpp: k for k in module.build_kernels()})
        lm.hash, lm.built, lm.build_time = binary.hash, binary.built, time.perf_counter() - t0
        return Built(lm, None, True)


cpu = CpuBuilder()
