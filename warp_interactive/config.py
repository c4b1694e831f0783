"""``wp.config``: global options. Set them before the kernels they affect are built."""

import enum
import os


class DeterministicMode(enum.IntEnum):
    """``wp.config.deterministic`` / the module option ``deterministic`` (warp-lang 1.19):
    whether launches must give the same results run after run. Here any mode but
    NOT_GUARANTEED runs a CPU launch on one thread, in index order (float atomics then add in
    one order); CUDA launches refuse it (their atomics are not ordered)."""
    NOT_GUARANTEED = 0
    RUN_TO_RUN = 1
    GPU_TO_GPU = 2


class LaunchArrayAccessMode(enum.IntEnum):
    """``wp.config.launch_array_access_mode`` (warp-lang 1.19): how launches check that the
    launch device can reach each array argument. Here every mode refuses an array of another
    device (as STRICT: no peer or managed access is offered), so RELAXED and CHECKED behave as
    STRICT does."""
    RELAXED = 0
    CHECKED = 1
    STRICT = 2


def default_kernel_cache_dir():
    """``$WARP_INTERACTIVE_CACHE_DIR``, else ``$XDG_CACHE_HOME/warp_interactive``, else
    ``~/.cache/warp_interactive``: the folder used when ``kernel_cache_dir`` is not set."""
    env = os.environ.get("WARP_INTERACTIVE_CACHE_DIR")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "warp_interactive")


class _Config:
    def __init__(self):
        self.mode = "release"            # "debug": bounds checks, -O0 -g
        self.verify_cuda = False         # check for CUDA errors after every launch
        self.verify_fp = False
        self.verbose = False             # print build commands and cache decisions
        self.quiet = False               # no build messages at all
        self.log_level = 20              # wp.LOG_INFO: messages below it are not shown (warp-lang's option)
        self.kernel_cache_dir = default_kernel_cache_dir()   # the effective folder, never None
        # the kernel cache's size cap: least recently used entries are removed above it
        # (compiler/cache_gc.py); 0 or None: no cap
        self.kernel_cache_max_bytes = _int_env("WARP_INTERACTIVE_CACHE_MAX_BYTES", 1 << 30)
        self.max_unroll = 16             # static range() loops up to this many iterations unroll
        # the most loop-body copies one function's unrolled loops may make (wp.static loops, loops
        # whose body reads wp.static(i)): past it, a loop that need not unroll runs as a loop, one
        # that must is an error (an unbounded unroll would build for minutes)
        self.max_static_unroll = 4096
        self.enable_backward = True      # generate adjoint code (compiled only when first needed)
        self.num_threads = None          # CPU launch threads; None = all cores
        self.fast_math = False
        # release builds check array and vector/matrix indices too, as debug mode does (a failed
        # check raises wp.LaunchError after the launch); off by default (see benchmarks/bounds_checks.py)
        self.bounds_check = False
        self.cpu_lanes = True            # lane-blocked CPU forward bodies for kernels with uniform loops
        # a CPU load that compiles at least this many kernels runs first from a quick build
        # (-O0, the same bits), the optimised one following in the background (build/quick_tier.py);
        # 0 or None: always the optimised build at once
        self.cpu_quick_build = _int_env("WARP_INTERACTIVE_CPU_QUICK_BUILD", 16)
        self.cpu_compiler = os.environ.get("CXX", "g++")
        self.compile_timeout = 600.0     # seconds one compiler run may take (None: no limit)
        self.cuda_block_dim = 256
        self.lineinfo = False            # CUDA: line info in release builds too (profilers)
        self.cuda_graph_cpu = True       # wp.capture_* on the CPU records and replays launches
        self.enable_graph_capture_module_load_by_default = True  # load every module before a capture
        self.print_launches = False
        self.cache_kernels = True
        self.enable_cpu_blocks = False   # the reference's CPU block launches (tile code): read by
                                         # its test helpers; CPU launches here run one thread per index
        # warn (stderr) when a launch or copy recorded on a tape writes an array an earlier
        # recorded launch read: its gradients would be wrong (runtime/overwrite.py)
        self.verify_autograd_array_access = False
        # a tape copies the arrays its recorded adjoints read before a later step overwrites
        # them, so backward() gives the fresh-buffer gradient (runtime/tape_keep.py); False:
        # warp-lang's behaviour (the adjoints read the last values)
        self.tape_copy_on_write = True
        # a tape waiting for backward() checksums the CPU arrays its adjoints read, so a write no
        # hook sees (a numpy() view, a kernel's repeated fast launch) raises (runtime/tape_watch.py)
        self.tape_check_contents = True
        self.deterministic = DeterministicMode.NOT_GUARANTEED    # see DeterministicMode
        # messages below this level are dropped (warp_interactive/logger.py; 20 = wp.LOG_INFO)
        self.log_level = 20
        self.verbose_warnings = False    # warnings name the file and line that raised them
        self.track_memory = False        # record every array allocation (runtime/memory_tracker.py)
        self._set_reference_options()

    def _set_reference_options(self):
        """warp-lang 1.19's other options (docs/config.md says what each does here)."""
        self.version = "1.19.0"          # the warp-lang version whose API this package follows
        self.optimization_level = None   # CPU: -O<level> for release builds (None: -O3)
        # CPU: the target/tuning part of the g++ command line (warp-lang's replaces its clang
        # flags); None: "-march=native"; "": a generic x86-64 target; LLVM-only -mllvm options
        # are dropped (g++ has none)
        self.cpu_compiler_flags = None
        self.use_precompiled_headers = True    # the builtin header's PCH for CPU builds
        self.cuda_output = None          # None / "ptx" / "cubin": NVRTC's output (None: cubin when known)
        self.ptx_target_arch = None      # PTX builds target at most this compute capability
        self.cuda_arch_suffix = None     # None / "a" / "f": sm_90a-style CUBIN targets
        self.launch_array_access_mode = LaunchArrayAccessMode.RELAXED
        self.enable_mempools_at_init = os.environ.get("WARP_ENABLE_MEMPOOLS_AT_INIT", "1").lower() \
            not in ("0", "false", "no")  # CUDA devices allocate from their memory pool from the start
        self.load_module_max_workers = 0   # wp.load_module's default max_workers (accepted)
        # accepted for warp-lang's code; nothing here reads them (docs/config.md says why)
        self.line_directives = True      # generated code has no #line directives here
        self.compile_time_trace = False  # NVRTC trace files: not written
        self.llvm_cuda = False           # CUDA is always compiled with NVRTC here
        self.legacy_cpu_linker = False   # CPU modules are shared libraries loaded by dlopen
        self.default_grid_stride = True  # CUDA launches here always loop grid-stride
        self.enable_mathdx_gemm = True   # no libmathdx: tile ops use their own implementations
        self.enable_mathdx_solver = True
        self.enable_mathdx_fft = True
        self.enable_tiles_in_stack_memory = True   # CPU tiles live on the stack here anyway
        self.enable_vector_component_overwrites = False   # component writes are always allowed
        self.legacy_scalar_return_types = False
        self.deterministic_max_records = 0   # deterministic CPU launches run in order: no records
        self.deterministic_debug = False

    def __setattr__(self, name, value):
        if name == "mode" and value not in ("release", "debug"):
            raise ValueError(f"wp.config.mode must be 'release' or 'debug', got {value!r}")
        if name == "deterministic":
            value = deterministic_mode(value)
        _check_option(name, value)
        object.__setattr__(self, name, value)
        if name in ("deterministic", "verify_fp", "print_launches"):
            for fn in on_change:     # the runtime's fast launch plans re-check (launch_state)
                fn()


on_change = []      # callbacks run when an option that running launches read changes


_CHOICES = {"cuda_output": (None, "ptx", "cubin"), "cuda_arch_suffix": (None, "a", "f"),
            "optimization_level": (None, 0, 1, 2, 3)}


def _check_option(name, value):
    """warp-lang's refusals of option values (ValueError, naming the option)."""
    if name in _CHOICES and (isinstance(value, bool) or value not in _CHOICES[name]):
        raise ValueError(f"wp.config.{name} must be one of {_CHOICES[name]}, got {value!r}")
    if name == "launch_array_access_mode" and not isinstance(value, LaunchArrayAccessMode):
        raise ValueError("warp.config.launch_array_access_mode must be a warp.config.LaunchArrayAccessMode "
                         f"value, got {value!r}")


def deterministic_mode(value):
    """``value`` as a DeterministicMode (an int or bool of one is taken); a ValueError else."""
    try:
        return DeterministicMode(int(value))
    except (TypeError, ValueError):
        raise ValueError(f"deterministic must be a wp.DeterministicMode (0, 1 or 2), got {value!r}") from None


def _int_env(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


config = _Config()
# the enums, as attributes of wp.config too (warp-lang's are module attributes of warp.config)
_Config.DeterministicMode = DeterministicMode
_Config.LaunchArrayAccessMode = LaunchArrayAccessMode
