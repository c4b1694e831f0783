"""A stand-in for ``cuda.bindings.driver`` that keeps "device" memory in host memory and runs
"CUDA" kernels through the same module's CPU build (the argument ABI is the same), so the CUDA
runtime's Python side (memory, copies, strided transfers, __cuda_array_interface__, streams,
events, graph capture, launch configuration) is exercised on machines without a GPU.

The NVRTC build is real: each "loaded" module is the CUBIN NVRTC made for sm_90, checked to be
an ELF image with the entry point being launched. Used by test_cuda_fake_driver.py only.
"""

import ctypes
import enum
import types


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_INVALID_CONTEXT = 201
    CUDA_ERROR_NO_DEVICE = 100
    CUDA_ERROR_NOT_FOUND = 500
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900


OK = CUresult.CUDA_SUCCESS


class Handle(int):
    """Driver handles are objects convertible with int(), like cuda-bindings' CUstream & co."""


class FakeDriver:
    def __init__(self, arch=90):
        self.arch = arch
        self.buffers = {}            # address -> ctypes buffer (the "device" memory)
        self.streams = {0: []}       # stream -> captured ops while capturing, else None
        self.capturing = {}
        self.launches = []           # (name, grid, block, stream) of every launch
        self.shared_bytes = []       # the dynamic shared memory of every launch
        self.modules = {}
        self.events = {}
        self.next_handle = 1000
        self.CUresult = CUresult
        self.CUdevice_attribute = types.SimpleNamespace(**{n: n for n in (
            "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR",
            "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED",
            "CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING", "CU_DEVICE_ATTRIBUTE_PCI_BUS_ID",
            "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")})
        self.CUstream_flags = types.SimpleNamespace(CU_STREAM_NON_BLOCKING=1)
        self.CUevent_flags = types.SimpleNamespace(CU_EVENT_DISABLE_TIMING=2, CU_EVENT_INTERPROCESS=4)
        self.CUstreamCaptureMode = types.SimpleNamespace(CU_STREAM_CAPTURE_MODE_GLOBAL=0, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL=1,
                                                     CU_STREAM_CAPTURE_MODE_RELAXED=2)
        self.CUstreamCaptureStatus = types.SimpleNamespace(CU_STREAM_CAPTURE_STATUS_ACTIVE=1)
        self.CUgraphInstantiate_flags = types.SimpleNamespace(CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH=1)
        self.CUpointer_attribute = types.SimpleNamespace(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL="ordinal")
        self.current = 0
        self.pool_sizes, self.pool_used, self.pool_high, self.pool_threshold = {}, 0, 0, 0
        self.CUmemPool_attribute = types.SimpleNamespace(**{n: n for n in (
            "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD", "CU_MEMPOOL_ATTR_USED_MEM_CURRENT",
            "CU_MEMPOOL_ATTR_USED_MEM_HIGH")})
        self.CUfunction_attribute = types.SimpleNamespace(**{n: n for n in (
            "CU_FUNC_ATTRIBUTE_NUM_REGS", "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES")})
        self.cuuint64_t = int

    def CUstream(self, value):
        return Handle(value)

    def _handle(self):
        self.next_handle += 1
        return Handle(self.next_handle)

    # --- errors, devices, contexts ----------------------------------------------------------
    def cuGetErrorName(self, err):
        return OK, CUresult(int(err)).name.encode()

    def cuGetErrorString(self, err):
        return OK, b"fake driver error"

    def cuDriverGetVersion(self):
        return OK, 13000

    def cuInit(self, flags):
        return (OK,)

    def cuDeviceGetCount(self):
        return OK, 1

    def cuDeviceGet(self, ordinal):
        return OK, Handle(ordinal)

    def cuDeviceGetName(self, n, dev):
        return OK, b"Fake GPU\0\0"

    def cuDeviceGetAttribute(self, attr, dev):
        return OK, {"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR": self.arch // 10,
                    "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR": self.arch % 10,
                    "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT": 4,
                    "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448}.get(attr, 1)

    def cuDeviceTotalMem(self, dev):
        return OK, 1 << 30

    def cuMemGetInfo(self):
        return OK, 1 << 29, 1 << 30

    def cuDevicePrimaryCtxRetain(self, dev):
        return OK, Handle(77)

    def cuCtxGetCurrent(self):
        return OK, self.current

    def cuCtxSetCurrent(self, ctx):
        self.current = ctx
        return (OK,)

    def cuCtxSynchronize(self):
        return (OK,)

    # --- streams, events ---------------------------------------------------------------------
    def cuStreamCreateWithPriority(self, flags, priority):
        h = self._handle()
        self.streams[int(h)] = []
        return OK, h

    def cuStreamDestroy(self, s):
        return (OK,)

    def cuStreamSynchronize(self, s):
        return (OK,)

    def cuStreamIsCapturing(self, s):
        return OK, int(int(s) in self.capturing)

    def cuEventCreate(self, flags):
        h = self._handle()
        self.events[int(h)] = None
        return OK, h

    def cuEventRecord(self, ev, s):
        import time
        self._run(s, lambda: self.events.__setitem__(int(ev), time.perf_counter()))
        return (OK,)

    def cuStreamWaitEvent(self, s, ev, flags):
        return (OK,)

    def cuEventSynchronize(self, ev):
        return (OK,)

    def cuEventQuery(self, ev):
        return (OK,)

    def cuEventElapsedTime(self, a, b):
        return OK, (self.events[int(b)] - self.events[int(a)]) * 1000.0

    def cuEventDestroy(self, ev):
        return (OK,)

    # --- memory ----------------------------------------------------------------------------------
    def _alloc(self, n):
        buf = ctypes.create_string_buffer(n)
        addr = ctypes.addressof(buf)
        self.buffers[addr] = buf
        return addr

    def cuMemAllocAsync(self, n, s):
        addr = self._alloc(n)
        self.pool_sizes[addr] = n           # the default memory pool's figures
        self.pool_used += n
        self.pool_high = max(self.pool_high, self.pool_used)
        return OK, Handle(addr)

    def cuDeviceGetDefaultMemPool(self, dev):
        return OK, Handle(55)

    def cuMemPoolGetAttribute(self, pool, attr):
        assert int(pool) == 55
        return OK, {"CU_MEMPOOL_ATTR_USED_MEM_CURRENT": self.pool_used,
                    "CU_MEMPOOL_ATTR_USED_MEM_HIGH": self.pool_high,
                    "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD": self.pool_threshold}[attr]

    def cuMemPoolSetAttribute(self, pool, attr, value):
        assert int(pool) == 55 and attr == "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD"
        self.pool_threshold = int(value)
        return (OK,)

    def cuFuncGetAttribute(self, attr, fn):
        assert isinstance(fn, str) and fn.endswith("_cuda_forward")
        return OK, {"CU_FUNC_ATTRIBUTE_NUM_REGS": 40, "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES": 16}[attr]

    def cuOccupancyMaxPotentialBlockSize(self, fn, size_fn, smem, limit):
        assert isinstance(fn, str) and fn.endswith("_cuda_forward")
        return OK, 8, 768             # (status, min grid size, block size): the driver's order

    def cuMemAlloc(self, n):
        return OK, Handle(self._alloc(n))

    def cuMemFreeAsync(self, p, s):
        self.pool_used -= self.pool_sizes.pop(int(p), 0)
        self.buffers.pop(int(p), None)
        return (OK,)

    def cuMemFree(self, p):
        return self.cuMemFreeAsync(p, 0)

    def cuMemHostAlloc(self, n, flags):
        if not self.current:        # as the real driver: page-locked memory needs a context
            return CUresult.CUDA_ERROR_INVALID_CONTEXT, None
        return OK, self._alloc(n)

    def cuMemFreeHost(self, p):
        self.buffers.pop(int(p), None)
        return (OK,)

    def _run(self, s, op):
        if int(s) in self.capturing:
            self.capturing[int(s)].append(op)
        else:
            op()

    def cuMemsetD8Async(self, p, v, n, s):
        self._run(s, lambda: ctypes.memset(int(p), v, n))
        return (OK,)

    def cuMemsetD16Async(self, p, v, n, s):
        self._run(s, lambda: ctypes.memmove(int(p), (ctypes.c_uint16 * n)(*([v] * n)), 2 * n))
        return (OK,)

    def cuMemsetD32Async(self, p, v, n, s):
        self._run(s, lambda: ctypes.memmove(int(p), (ctypes.c_uint32 * n)(*([v] * n)), 4 * n))
        return (OK,)

    def cuMemsetD8(self, p, v, n):
        ctypes.memset(int(p), v, n)
        return (OK,)

    def _copy(self, dst, src, n, s):
        self._run(s, lambda: ctypes.memmove(int(dst), int(src), n))
        return (OK,)

    def cuMemcpyHtoDAsync(self, dst, src, n, s):
        return self._copy(dst, src, n, s)

    def cuMemcpyDtoHAsync(self, dst, src, n, s):
        return self._copy(dst, src, n, s)

    def cuMemcpyAsync(self, dst, src, n, s):
        return self._copy(dst, src, n, s)

    def cuMemcpyDtoH(self, dst, src, n):
        return self._copy(dst, src, n, 0)

    def cuPointerGetAttribute(self, attr, p):
        return OK, 0

    # --- modules and launches ---------------------------------------------------------------------
    def cuModuleLoadData(self, image):
        assert image[:4] == b"\x7fELF", "a CUBIN is an ELF image"
        h = self._handle()
        self.modules[int(h)] = image
        return OK, h

    def cuModuleGetFunction(self, mod, name):
        if name not in self.modules[int(mod)]:
            return (CUresult.CUDA_ERROR_NOT_FOUND, None)
        return OK, name.decode()

    def cuModuleGetGlobal(self, mod, name):
        return (CUresult.CUDA_ERROR_NOT_FOUND, None, None)

    def cuModuleUnload(self, mod):
        return (OK,)

    def cuLaunchKernel(self, fn, gx, gy, gz, bx, by, bz, shmem, s, params, extra):
        ptrs = (ctypes.c_void_p * 2).from_address(params)
        bounds = ctypes.string_at(ptrs[1], 32)           # launch_bounds_t, copied as CUDA does
        size = ctypes.c_int64.from_buffer_copy(bounds, 24).value
        args = _ArgsCopy(ptrs[0], fn)
        self.launches.append((fn, gx, bx, int(s)))
        self.shared_bytes.append(shmem)
        width = getattr(_kernel_of(fn), "block_width", 1)
        if width > 1:
            # a cooperative kernel (runtime/cuda/modules.py block_launches): its CPU entry runs
            # whole blocks, all of them in the launch of the full ones (the partial last block's
            # launch then has fewer threads than lanes and runs nothing more here)
            if bx != width and size >= width:
                return (OK,)
            size = -(-size // width)
        self._run(s, lambda: _run_on_cpu(fn, args, bounds, size))
        return (OK,)

    # --- graphs ------------------------------------------------------------------------------------
    def cuStreamBeginCapture(self, s, mode):
        self.capturing[int(s)] = []
        return (OK,)

    def cuStreamEndCapture(self, s):
        return OK, self.capturing.pop(int(s))

    def cuGraphInstantiate(self, graph, flags):
        return OK, graph

    def cuGraphLaunch(self, exec_, s):
        for op in exec_:
            self._run(s, op)
        return (OK,)

    def cuGraphExecDestroy(self, g):
        return (OK,)

    def cuGraphDestroy(self, g):
        return (OK,)


class _ArgsCopy:
    """The kernel's argument struct, copied at launch (CUDA copies parameters when enqueued)."""

    def __init__(self, addr, fn):
        kernel = _kernel_of(fn)
        from warp_interactive.build.entry import args_struct
        st = args_struct(kernel)
        self.buf = ctypes.create_string_buffer(ctypes.string_at(addr, ctypes.sizeof(st)), ctypes.sizeof(st))


def _kernel_of(fn):
    from warp_interactive.state import state
    cpp = fn.rsplit("_cuda_", 1)[0]
    for m in state.modules.values():
        for k in m.kernels.values():
            if k.cpp == cpp:   # k.ir would translate every kernel, invalid test ones too
                return k
    raise LookupError(fn)


def _run_on_cpu(fn, args, bounds, size):
    """Run the kernel's CPU entry point on the copied arguments (same ABI as CUDA's)."""
    from warp_interactive import _native
    from warp_interactive.runtime.device import cpu
    kernel = _kernel_of(fn)
    which = fn.rsplit("_cuda_", 1)[1]
    lm = kernel.module.load(cpu, backward=(which == "backward"))
    entry = lm.entry(kernel.ir.name, which)
    b = ctypes.create_string_buffer(bounds, 32)
    if size:
        _native.launch(entry, ctypes.addressof(args.buf), ctypes.addressof(b), size, 0, 0)


def install(setattr_):
    """Make a new stand-in the driver, with its device as cuda:0; returns it. ``setattr_`` is
    ``monkeypatch.setattr`` (undone after the test) or the builtin ``setattr`` (for a session)."""
    import warp_interactive as wp
    from warp_interactive.runtime import cuda_backend, device as device_mod
    from warp_interactive.runtime.cuda import driver
    from warp_interactive.runtime.cuda.context import discover
    fake = FakeDriver()
    setattr_(driver, "_drv", [fake])
    setattr_(device_mod, "_devices", {"cpu": device_mod.cpu, "cuda:0": discover()[0]})
    setattr_(cuda_backend, "_state", {"probed": True, "reason": None})
    setattr_(wp.config, "enable_graph_capture_module_load_by_default", False)
    return fake


def stand_in(monkeypatch):
    """A test's stand-in GPU as cuda:0 (a generator for a fixture to ``yield from``): installed,
    no default device chosen yet; it yields the stand-in driver, and afterwards every module
    forgets what it loaded for cuda:0."""
    from warp_interactive.runtime import device as device_mod
    from warp_interactive.state import state
    fake = install(monkeypatch.setattr)
    monkeypatch.setattr(device_mod, "_default", [])
    monkeypatch.setattr(device_mod._local, "device", None, raising=False)  # set_device is undone
    yield fake
    for m in list(state.modules.values()):
        m.loaded.pop(("cuda:0", False), None)
        m.loaded.pop(("cuda:0", True), None)
