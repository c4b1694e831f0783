"""The launch objects, one per kind of device (``Device.launcher``): what differs between running
a packed launch (runtime/launch.py's ``Launch``) on the host and on a GPU. ``CpuLauncher`` is
the host's; ``CudaLauncher`` (runtime/cuda/modules.py) a GPU's. runtime/launch.py asks the
launcher and never which kind of device it has.

The protocol: ``fast_plans`` (repeated forward launches get a fastlaunch.Plan), ``blocks(kernel,
block_dim)`` (the build and block size a launch runs), ``lane_width(block_dim)`` (the lanes of a
cooperative block a tiled launch runs), ``tiled(block_dim)`` (a tiled launch's grid lanes), ``configure(cmd, block_dim,
max_blocks, stream)``, ``threads(kernel, mode)`` (the thread count a deterministic mode needs),
``path(cmd)`` (the code path a launch ran, for timing results),
``bind(cmd)`` (after its KernelEntry is resolved: the size it counts and its release-mode
replay, ``cmd._run``) and ``run(cmd)`` (the launch when there is no such replay)."""

from functools import partial

from ..config import DeterministicMode, config
from ..errors import LaunchError

TILE_BLOCK_WIDTH = 1   # a tiled launch's block on the CPU (without enable_cpu_blocks): one thread


def _native():
    from .native import runtime_module
    return runtime_module()


def _adjoint_chunk(total, lanes=8, chunks=128):
    """A multiple of the CPU lane width giving about ``chunks`` chunks (load balance)."""
    return lanes * max(1, -(-total // (lanes * chunks)))


class CpuLauncher:
    fast_plans = True

    def blocks(self, kernel, block_dim):
        return kernel, block_dim

    def lane_width(self, block_dim):
        """``block_dim`` lanes with warp-lang's experimental ``wp.config.enable_cpu_blocks`` (at
        most 1024, as there), else 1."""
        if not block_dim or int(block_dim) <= 1:
            return TILE_BLOCK_WIDTH
        if int(block_dim) > 1024:
            raise ValueError(f"block_dim must be at most 1024 on CPU, got {block_dim}")
        return int(block_dim) if config.enable_cpu_blocks else TILE_BLOCK_WIDTH

    def tiled(self, block_dim):
        """(lanes: the grid's trailing dimension, the block_dim its launch passes on, whether
        the lanes cooperate as one CPU block) of a tiled launch."""
        width = self.lane_width(block_dim)
        if width > 1:
            return width, block_dim, True
        return TILE_BLOCK_WIDTH, block_dim if block_dim else None, False

    def configure(self, cmd, block_dim, max_blocks, stream):
        pass

    def threads(self, kernel, mode):
        """One thread runs the indices in order, so float atomics add in one order every run."""
        return 1

    def path(self, cmd):
        """The code path ``cmd`` ran (wp.ScopedTimer's timing results): lanes, vectorised,
        blocks or scalar (why), and whether its module still ran the quick tier's -O0 code."""
        from ..codegen.paths import describe
        from ..codegen.target import CPU
        m = cmd.kernel.module
        paths = describe(cmd.kernel, CPU, m.checks_bounds(), bool(m.option("cpu_lanes")), cmd.adjoint)
        path = str(paths.backward if cmd.adjoint else paths.forward)
        lm = getattr(cmd.entry, "_lm", None)
        if any(not job.done for job in getattr(lm, "quick", ())):
            path = f"quick tier (-O0 code until the optimised build is in), then {path}"
        return path

    def bind(self, cmd):
        # a kernel built for cooperative CPU blocks counts blocks of its lanes (codegen/target.py)
        cmd._size = -(-cmd.bounds.size // cmd.entry.block_width)
        cmd._run = None     # a release-mode replay is this one native call, its arguments bound once
        if cmd._debug:
            return
        if cmd.adjoint:
            # fixed chunks of whole lane blocks: backward lanes bodies (codegen/lanes_backward.py)
            # run 8 threads at once, which the timed automatic chunks (often 1 index for a heavy
            # adjoint) would never give them
            cmd._run = partial(_native().launch, cmd._entry, cmd._args_addr, cmd._bounds_addr,
                               cmd._size, chunk=_adjoint_chunk(cmd._size))
        else:
            cmd._run = partial(_native().launch_fast, cmd._entry, cmd._args_addr, cmd._bounds_addr,
                               cmd._size)

    def run(self, cmd):
        """Debug mode: launch, then read the module's error record (a failed bounds check)."""
        _native().launch_fast(cmd._entry, cmd._args_addr, cmd._bounds_addr, cmd._size,
                              cmd._threads or config.num_threads or 0)
        err = cmd.entry.take_error()
        if err:
            raise LaunchError(err)


cpu = CpuLauncher()


def cuda_block_dim(block_dim):
    """A CUDA launch's threads per block: ``block_dim``, by default ``wp.config.cuda_block_dim``
    (256, warp-lang's default), at most 1024 (the GPU's limit)."""
    width = int(block_dim) if block_dim else int(config.cuda_block_dim)
    if not 1 <= width <= 1024:
        raise ValueError(f"block_dim must be between 1 and 1024 on CUDA, got {block_dim}")
    return width


def cuda_blocks(kernel, block_dim):
    """(kernel, block_dim) of a CUDA launch. A kernel holding tiles runs its blocks cooperatively,
    as warp-lang does on a GPU: the kernel built for blocks of ``block_dim`` lanes (Kernel.
    with_block_width, the same build as cooperative CPU blocks), each GPU thread one lane
    (native cuda_blocks.h, runtime/cuda/modules.py block_launches). The threads of a kernel
    without tiles never meet: its one-lane build is the same program, and runs as it is."""
    if kernel.block_width > 1:          # already the build for its width (a tape's replay)
        return kernel, kernel.block_width
    if not kernel.uses_tiles:
        return kernel, block_dim
    width = cuda_block_dim(block_dim)
    return (kernel.with_block_width(width) if width > 1 else kernel), width


def deterministic_threads(kernel, device):
    """1 where the kernel's module asks for deterministic results (wp.DeterministicMode) and the
    device's launcher can give them; None otherwise (the configured thread count)."""
    from ..config import deterministic_mode
    mode = deterministic_mode(kernel.module.option("deterministic"))
    if mode == DeterministicMode.NOT_GUARANTEED:
        return None
    return device.launcher.threads(kernel, mode)
