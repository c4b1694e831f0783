"""Target differences as data: codegen reads these fields, never tests the device."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    name: str
    func_qualifier: str      # for generated helper functions
    suffix: str              # entry point name suffix: K_<suffix>_forward
    entry: str               # entry point template: {name}, {which}, {unit_stride_*}
    entry_plain: str = ""     # the one-loop entry (backward, and forward bodies that cannot vectorise); "" = `entry`
    lanes: int = 0            # threads per lane-blocked forward body (codegen/lanes.py); 0 = none
    entry_lanes: str = ""     # the entry of a kernel with a lanes body: {name}, {which}, {lanes}, {unit_stride_*}
    entry_own: str = ""       # a backward entry choosing plain own-index read adjoints: {own_check}; "" = `entry_plain`
    entry_blocks: str = ""    # the entry of a kernel built for cooperative blocks: {name}, {which}, {width}
    entry_lazy: str = ""      # `entry` whose plain loop is built on first use; "" = none (below)
    entry_strided: str = ""   # that plain loop's entry, alone in a unit of its own: {name}, {which}
    force_inline: str = ""    # the attribute that makes a body inline into its entry
    tid_rows: bool = False    # multi-dimensional bodies take their coordinates, stepped by the entry (tid_rows.py)


# The arguments are copied to locals (a store through a float* could otherwise alias them, which
# forces a reload per index). The first loop is the vectorisable shape: every array's innermost
# stride is set to its (equal) constant and the index range fits the int32 thread index, so the
# compiler sees unit-stride affine accesses; threads are independent, hence ivdep. Anything else
# takes the other branch: @OTHER@ is a template of its own, filled in below.
_CPU_ENTRY_TWO_WAY = """@DECL@WPI_QUICK_SLOT({name}_cpu_{which})
extern "C" WPI_EXPORT void {name}_cpu_{which}(const {args}* args, \
const wp::launch_bounds_t* dim, int64_t begin, int64_t end) {{
    WPI_QUICK_SWITCH({name}_cpu_{which}, {unbounded});
    {args} a = *args;
    const wp::launch_bounds_t d = *dim;
    if (begin >= 0 && end <= 2147483647{unit_stride_check}) {{{unit_stride_set}
#pragma GCC ivdep
        for (int64_t i = begin; i < end; ++i) {name}_{which}_body(a, d, i);
    }} else {{
        @OTHER@
    }}
}}"""

# the plain loop inline: the body compiled twice
_CPU_ENTRY = _CPU_ENTRY_TWO_WAY.replace("@DECL@", "").replace(
    "@OTHER@", "for (int64_t i = begin; i < end; ++i) {name}_{which}_body(a, d, i);")

# `_CPU_ENTRY` without its plain loop: a launch the unit-stride loop cannot take (a strided view,
# a transposed array, indices past int32) runs `_CPU_ENTRY_STRIDED`, which the runtime builds in
# a unit of its own the first time one is needed (build/strided.py, wpi_run_strided in core.h):
# a module that never sees such a launch compiles each body once instead of twice (~-40%).
_CPU_ENTRY_LAZY = _CPU_ENTRY_TWO_WAY.replace(
    "@DECL@", "static void* {name}_{which}_strided = nullptr;\n").replace(
    "@OTHER@", 'wpi_run_strided(&{name}_{which}_strided, "{name}", args, dim, begin, end);')

_CPU_ENTRY_STRIDED = """extern "C" WPI_EXPORT void {name}_cpu_{which}_strided(const {args}* args, \
const wp::launch_bounds_t* dim, int64_t begin, int64_t end) {{
    {args} a = *args;
    const wp::launch_bounds_t d = *dim;
    for (int64_t i = begin; i < end; ++i) {name}_{which}_body(a, d, i);
}}"""

# the plain entry: backward passes and bodies with loops or calls (one copy of the body compiles faster)
_CPU_ENTRY_PLAIN = """WPI_QUICK_SLOT({name}_cpu_{which})
extern "C" WPI_EXPORT void {name}_cpu_{which}(const {args}* args, \
const wp::launch_bounds_t* dim, int64_t begin, int64_t end) {{
    WPI_QUICK_SWITCH({name}_cpu_{which}, {unbounded});
    for (int64_t i = begin; i < end; ++i) {name}_{which}_body(*args, *dim, i);
}}"""

# Kernels with a lanes body (codegen/lanes.py): full blocks of LANES threads through it where the
# unit-stride conditions hold (the pinned strides reach it: it is inlined here), the rest one by one.
_CPU_ENTRY_LANES = """WPI_QUICK_SLOT({name}_cpu_{which})
extern "C" WPI_EXPORT void {name}_cpu_{which}(const {args}* args, \
const wp::launch_bounds_t* dim, int64_t begin, int64_t end) {{
    WPI_QUICK_SWITCH({name}_cpu_{which}, {unbounded});
    {args} a = *args;
    const wp::launch_bounds_t d = *dim;
    int64_t i = begin;
    if (begin >= 0 && end <= 2147483647{unit_stride_check}) {{{unit_stride_set}{lanes_pre}
        for (; i + {lanes} <= end; i += {lanes}) {name}_{which}_lanes(a, d, i{lanes_args});
    }}
    for (; i < end; ++i) {name}_{which}_body(a, d, i);
}}"""

# A backward whose own-index reads may take plain adjoints (codegen/own_index.py): where no other
# array parameter's gradient overlaps theirs (and the unit-stride conditions hold), the body runs
# with `_own` true; otherwise with the atomic adjoints. The two instances are the body twice.
_CPU_ENTRY_OWN = """WPI_QUICK_SLOT({name}_cpu_{which})
extern "C" WPI_EXPORT void {name}_cpu_{which}(const {args}* args, \
const wp::launch_bounds_t* dim, int64_t begin, int64_t end) {{
    WPI_QUICK_SWITCH({name}_cpu_{which}, {unbounded});
    {args} a = *args;
    const wp::launch_bounds_t d = *dim;
    if (begin >= 0 && end <= 2147483647{unit_stride_check}{own_check}) {{{unit_stride_set}
#pragma GCC ivdep
        for (int64_t i = begin; i < end; ++i) {name}_{which}_body(a, d, i, true);
    }} else {{
        for (int64_t i = begin; i < end; ++i) {name}_{which}_body(a, d, i, false);
    }}
}}"""

# A kernel built for cooperative CPU blocks (wp.config.enable_cpu_blocks, native cpu_blocks.h):
# [begin, end) counts blocks; each block runs its {width} lanes as fibers on this worker.
_CPU_ENTRY_BLOCKS = """static void {name}_{which}_lane(const void* a, const void* d, int64_t i) {{
    {name}_{which}_body(*(const {args}*)a, *(const wp::launch_bounds_t*)d, i);
}}
WPI_QUICK_SLOT({name}_cpu_{which})
extern "C" WPI_EXPORT void {name}_cpu_{which}(const {args}* args, \
const wp::launch_bounds_t* dim, int64_t begin, int64_t end) {{
    WPI_QUICK_SWITCH({name}_cpu_{which}, {unbounded});
    wp::cpu_blocks_launch({width}, &{name}_{which}_lane, args, dim, dim->size, begin, end);
}}"""

# 8 float32 lanes fill an AVX2 register; float64 bodies take two per operation
CPU_LANES = 8

# grid-stride loop: any launch size works with a fixed grid
_CUDA_ENTRY = """extern "C" __global__ void {name}_cuda_{which}({args} args, wp::launch_bounds_t dim) {{
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < dim.size;
         i += int64_t(gridDim.x) * blockDim.x) {name}_{which}_body(args, dim, i);
}}"""


# A kernel built for cooperative blocks on CUDA (native cuda_blocks.h): the GPU block is the block,
# thread x its lane x, so the block's {width} lanes meet at __syncthreads(). A grid-stride loop over
# whole blocks: the loop bound is the same for every thread of a block, so all of them reach each
# barrier equally often. A partial last block (dim.size not a multiple of {width}) runs in a launch
# of its own with blockDim.x = the lanes it has (runtime/cuda/modules.py block_launches); each
# launch runs only the blocks of its own width.
_CUDA_ENTRY_BLOCKS = """extern "C" __global__ void __launch_bounds__({width}) \
{name}_cuda_{which}({args} args, wp::launch_bounds_t dim) {{
    wp::cuda_block_begin({width});
    const int64_t blocks = (dim.size + {width} - 1) / {width};
    const int64_t first = int64_t(blockIdx.x) + (blockDim.x == {width} ? 0 : blocks - 1);
    for (int64_t b = first; b < blocks; b += gridDim.x) {{
        const int64_t left = dim.size - b * {width};
        if ((left < {width} ? left : {width}) != int64_t(blockDim.x)) continue;
        {name}_{which}_body(args, dim, b * {width} + threadIdx.x);
    }}
}}"""


CPU = Target(name="cpu", func_qualifier="static inline", suffix="cpu", entry=_CPU_ENTRY,
             entry_plain=_CPU_ENTRY_PLAIN, lanes=CPU_LANES, entry_lanes=_CPU_ENTRY_LANES,
             entry_own=_CPU_ENTRY_OWN, entry_blocks=_CPU_ENTRY_BLOCKS, entry_lazy=_CPU_ENTRY_LAZY,
             entry_strided=_CPU_ENTRY_STRIDED, force_inline="__attribute__((always_inline))",
             tid_rows=True)
CUDA = Target(name="cuda", func_qualifier="static inline __device__", suffix="cuda", entry=_CUDA_ENTRY,
              entry_blocks=_CUDA_ENTRY_BLOCKS)
