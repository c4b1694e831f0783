"""Loading a module's CUBIN/PTX on a CUDA device and launching its kernels.

A kernel ``K`` has entry points ``K_cuda_forward(K_args, launch_bounds_t)`` (and ``_backward``):
the argument struct is passed by value (same layout as the CPU's), and each thread runs a
grid-stride loop over the launch's flat index, so any size works with a bounded grid. A kernel
built for cooperative blocks (tiles: runtime/launch.py cuda_blocks) loops over whole blocks
instead, its GPU blocks as wide as its lanes (block_launches).
"""

import ctypes
import os
import re

from ... import _paths
from ...build.entry import LoadedKernels
from ..launchers import cuda_block_dim, cuda_blocks
from ...config import config
from ...errors import LaunchError
from ...errors import CudaError, WarpDeterminismError
from .driver import call, drv

MAX_GRID = 2 ** 31 - 1
ERROR_GLOBAL = b"wpi_cuda_error"     # the debug-mode error record (native/include/warp_interactive/core/core.h)


class CudaLoadedModule(LoadedKernels):
    """A module's binary loaded into one device's context: kernel functions by name."""

    def __init__(self, device, path, kind, kernels):
        super().__init__(kernels)
        self.device, self.path, self.kind = device, path, kind
        self.hash, self.built, self.build_time = None, False, 0.0   # set by the builder
        with open(path, "rb") as f:
            image = f.read()
        if kind == "ptx" and not image.endswith(b"\0"):
            image += b"\0"
        with device.activated():
            self.handle = call(drv().cuModuleLoadData, image)
        self._entries = {}

    def entry(self, cpp_name, which):
        key = (cpp_name, which)
        fn = self._entries.get(key)
        if fn is None:
            with self.device.activated():
                fn = call(drv().cuModuleGetFunction, self.handle, f"{cpp_name}_cuda_{which}".encode())
            self._entries[key] = fn
        return fn

    def take_error(self):
        """The first bounds error recorded on the device since the last call (debug mode)."""
        return read_error_record(self)

    def __del__(self):
        try:
            drv().cuModuleUnload(self.handle)
        except Exception:   # interpreter shutdown
            pass


def grid_size(size, block_dim, max_blocks=0):
    """Blocks for ``size`` threads: enough for one index each, capped (the kernel loops)."""
    blocks = max(1, (size + block_dim - 1) // block_dim)
    if max_blocks and max_blocks > 0:
        blocks = min(blocks, max_blocks)
    return min(blocks, MAX_GRID)


def block_launches(size, width, max_blocks=0):
    """The launches of a kernel built for cooperative blocks of ``width`` lanes over ``size``
    threads, each (blocks, threads per block, dynamic shared memory bytes): the full blocks with
    ``width`` threads each (a grid of at most ``max_blocks``: the entry loops over the rest), and a
    partial last block in a launch of its own with as many threads as it has lanes (its missing
    lanes take no part, as on the CPU: codegen/target.py). Every block gets the scratch its lanes
    exchange values through (native cuda_blocks.h); a launch of a one-lane kernel gets none."""
    full, rest = divmod(size, width)
    launches = []
    if full:
        launches.append((min(full, max_blocks if max_blocks and max_blocks > 0 else full, MAX_GRID), width,
                         block_scratch_bytes()))
    if rest:
        launches.append((1, rest, block_scratch_bytes()))
    return launches


_scratch = []


def block_scratch_bytes():
    """``WPI_CUDA_BLOCK_SCRATCH`` of native/include/warp_interactive/exec/cuda_blocks.h (read once)."""
    if not _scratch:
        with open(os.path.join(_paths.include_dir(), "warp_interactive", "exec", "cuda_blocks.h")) as f:
            _scratch.append(int(re.search(r"#define WPI_CUDA_BLOCK_SCRATCH (\d+)", f.read()).group(1)))
    return _scratch[0]


def launch_config(cmd):
    """[(blocks, threads per block, dynamic shared memory bytes)] of the packed launch ``cmd``."""
    width = cmd.entry.block_width
    if width > 1:
        return block_launches(cmd.bounds.size, width, getattr(cmd, "max_blocks", 0))
    block = int(getattr(cmd, "block_dim", 0) or config.cuda_block_dim)
    return [(grid_size(cmd.bounds.size, block, getattr(cmd, "max_blocks", 0)), block, 0)]


def launch(cmd):
    """Queue the packed launch ``cmd`` (runtime/launch.py's Launch) on its stream."""
    device = cmd.device
    stream = getattr(cmd, "stream", None) or device.stream
    params = getattr(cmd, "_cuda_params", None)
    if params is None:
        params = cmd._cuda_params = (ctypes.c_void_p * 2)(ctypes.addressof(cmd.args),
                                                        ctypes.addressof(cmd.bounds))
    d = drv()
    with device.activated():
        for blocks, block, shared in launch_config(cmd):
            call(d.cuLaunchKernel, cmd._entry, blocks, 1, 1, block, 1, 1, shared, stream.handle,
                 ctypes.addressof(params), 0)
        if device.captures:
            return
        if config.verify_cuda:
            err = d.cuStreamSynchronize(stream.handle)[0]
            if int(err) != 0:
                from .driver import error_text
                raise CudaError(f"CUDA error after launching kernel '{cmd.kernel.key}' on {device}: "
                                f"{error_text(err)}")
        if cmd.entry.checks_errors:
            msg = cmd.entry.take_error()
            if msg:
                raise LaunchError(msg)


class CudaLauncher:
    """A GPU's launch object (runtime/launchers.py has the protocol): kernels holding tiles run
    their blocks cooperatively, a launch is queued on a stream."""

    fast_plans = False

    def blocks(self, kernel, block_dim):
        return cuda_blocks(kernel, block_dim)

    def lane_width(self, block_dim):
        return 1     # a GPU block's threads are the lanes (blocks); no CPU-style lanes

    def tiled(self, block_dim):
        """A GPU block of ``width`` threads, one lane each (cuda_blocks), as warp-lang on a GPU."""
        width = cuda_block_dim(block_dim)
        return width, width, False

    def configure(self, cmd, block_dim, max_blocks, stream):
        cmd.block_dim, cmd.max_blocks, cmd.stream = block_dim, max_blocks, stream

    def threads(self, kernel, mode):
        raise WarpDeterminismError(
            f"kernel '{kernel.key}': deterministic={mode.name} is not supported on CUDA devices here "
            f"(atomics there are not ordered); it is supported on the CPU, which then runs the "
            f"launch on one thread")

    def bind(self, cmd):
        cmd._size, cmd._run = cmd.bounds.size, None

    def path(self, cmd):
        return "cuda"

    def run(self, cmd):
        return launch(cmd) if cmd._size else None


launcher = CudaLauncher()


# --- the debug-mode error record --------------------------------------------------------------------
class _ErrorRecord(ctypes.Structure):
    """Mirrors ``wp::cuda_error_record_t`` in native/include/warp_interactive/core/core.h."""
    _fields_ = [("set", ctypes.c_int32), ("line", ctypes.c_int32), ("n", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("idx", ctypes.c_int64 * 4), ("shape", ctypes.c_int32 * 4),
                ("array", ctypes.c_char * 64), ("kernel", ctypes.c_char * 128)]


def read_error_record(lm):
    """Reads (and clears) the module's device-side error record; the message, or None."""
    d = drv()
    with lm.device.activated():
        try:
            ptr, size = call(d.cuModuleGetGlobal, lm.handle, ERROR_GLOBAL)
        except CudaError:
            return None
        rec = _ErrorRecord()
        call(d.cuStreamSynchronize, lm.device.stream.handle)
        call(d.cuMemcpyDtoH, ctypes.addressof(rec), ptr, ctypes.sizeof(rec))
        if not rec.set:
            return None
        call(d.cuMemsetD8, ptr, 0, ctypes.sizeof(rec))
    return format_error(rec)


def format_error(rec):
    """The same message the CPU's record_bounds_error writes (core.h)."""
    idx = ", ".join(str(rec.idx[i]) for i in range(rec.n))
    shape = ", ".join(str(rec.shape[i]) for i in range(rec.ndim))
    comma = "," if rec.ndim == 1 else ""
    return (f"index out of bounds in kernel '{rec.kernel.decode(errors='replace')}' (line {rec.line}): "
            f"array '{rec.array.decode(errors='replace')}' indexed with [{idx}], shape ({shape}{comma})")
