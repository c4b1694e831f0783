"""Tests of the native runtime module warp_interactive._native (and _paths).

A tiny C library is compiled at test time; its entry point has the kernel ABI
    void entry(const void* args, const void* bounds, int64_t begin, int64_t end)
and counts, per index, how often it ran (atomically), so double or missing
runs are detected.
"""

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from warp_interactive import _native, _paths

C_SOURCE = r"""
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

typedef struct {
    int64_t* out;        /* out[i] = 2*i + *bounds */
    int32_t* counts;     /* counts[i] += 1, atomically */
    int64_t* tids;       /* tids[i] = thread that ran i (or NULL) */
    int64_t* stats;      /* [0] bad ranges, [1] calls, [2] bad chunk shapes */
    int64_t total;
    int64_t chunk;       /* > 0: check the fixed chunk layout */
    int64_t sleep_ns_per_index;
} args_t;

static void nap(int64_t ns) {
    struct timespec ts;
    ts.tv_sec = ns / 1000000000;
    ts.tv_nsec = ns % 1000000000;
    while (nanosleep(&ts, &ts) != 0) {}
}

void entry(const void* args_, const void* bounds, int64_t begin, int64_t end) {
    const args_t* a = (const args_t*)args_;
    const int64_t offset = *(const int64_t*)bounds;
    __atomic_fetch_add(&a->stats[1], 1, __ATOMIC_RELAXED);
    if (begin < 0 || end > a->total || begin >= end) {
        __atomic_fetch_add(&a->stats[0], 1, __ATOMIC_RELAXED);
        return;
    }
    if (a->chunk > 0) {
        int64_t expect_end = begin + a->chunk < a->total ? begin + a->chunk : a->total;
        if (begin % a->chunk != 0 || end != expect_end)
            __atomic_fetch_add(&a->stats[2], 1, __ATOMIC_RELAXED);
    }
    int64_t tid = a->tids ? (int64_t)syscall(SYS_gettid) : 0;
    for (int64_t i = begin; i < end; ++i) {
        if (a->sleep_ns_per_index) nap(a->sleep_ns_per_index);
        a->out[i] = 2 * i + offset;
        __atomic_fetch_add(&a->counts[i], 1, __ATOMIC_RELAXED);
        if (a->tids) a->tids[i] = tid;
    }
}

/* The cheapest possible kernel, for overhead measurements. */
void noop(const void* args, const void* bounds, int64_t begin, int64_t end) {
    (void)args; (void)bounds; (void)begin; (void)end;
}

int64_t gettid_(void) { return (int64_t)syscall(SYS_gettid); }
"""


class Args(ctypes.Structure):
    _fields_ = [
        ("out", ctypes.c_void_p),
        ("counts", ctypes.c_void_p),
        ("tids", ctypes.c_void_p),
        ("stats", ctypes.c_void_p),
        ("total", ctypes.c_int64),
        ("chunk", ctypes.c_int64),
        ("sleep_ns_per_index", ctypes.c_int64),
    ]


@pytest.fixture(scope="module")
def clib(tmp_path_factory):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("native_runtime")
    src = d / "kern.c"
    src.write_text(C_SOURCE)
    so = d / "libkern.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(so), str(src)], check=True)
    lib = ctypes.CDLL(str(so))
    lib.gettid_.restype = ctypes.c_int64
    return lib


def addr(fn):
    return ctypes.cast(fn, ctypes.c_void_p).value


class Run:
    """Buffers + args for one launch of `entry`."""

    def __init__(self, total, chunk=0, sleep_ns=0, offset=7, tids=False):
        n = max(total, 1)
        self.total = total
        self.offset = offset
        self.out = np.full(n, -1, dtype=np.int64)
        self.counts = np.zeros(n, dtype=np.int32)
        self.tids = np.zeros(n, dtype=np.int64) if tids else None
        self.stats = np.zeros(4, dtype=np.int64)
        self.bounds = ctypes.c_int64(offset)
        self.args = Args(
            self.out.ctypes.data,
            self.counts.ctypes.data,
            self.tids.ctypes.data if tids else None,
            self.stats.ctypes.data,
            total,
            chunk if chunk > 0 else 0,
            sleep_ns,
        )

    def launch(self, lib, nthreads=0, chunk=0):
        _native.launch(
            addr(lib.entry),
            ctypes.addressof(self.args),
            ctypes.addressof(self.bounds),
            self.total,
            nthreads,
            chunk,
        )

    def check_complete(self):
        t = self.total
        assert self.stats[0] == 0, "entry called with an invalid range"
        assert self.stats[2] == 0, "fixed chunk layout violated"
        if t > 0:
            assert self.counts[:t].min() == 1 and self.counts[:t].max() == 1
            np.testing.assert_array_equal(self.out[:t], 2 * np.arange(t) + self.offset)
        else:
            assert self.stats[1] == 0 and self.counts.max() == 0


@pytest.fixture
def restore_threads():
    yield
    _native.set_num_threads(0)


@pytest.mark.parametrize("pool_size", [None, 3])
@pytest.mark.parametrize("nthreads", [0, 1, 2, 8])
@pytest.mark.parametrize("chunk", [0, -5, 1, 3, 1000, 65536, 10**7])
@pytest.mark.parametrize("total", [0, 1, 7, 1000003])
def test_every_index_exactly_once(clib, restore_threads, total, chunk, nthreads, pool_size):
    if pool_size is not None:
        _native.set_num_threads(pool_size)
    run = Run(total, chunk=chunk)
    run.launch(clib, nthreads=nthreads, chunk=chunk)
    run.check_complete()
    if chunk > 0 and total > 0:
        assert run.stats[1] == -(-total // chunk)  # number of chunks


def test_back_to_back_parallel_launches(clib, restore_threads):
    _native.set_num_threads(4)  # more workers than cores is fine and stresses hand-offs
    for i in range(2000):
        total = 1 + (i * 7919) % 5000
        run = Run(total, chunk=1 + i % 64, offset=i)
        run.launch(clib, nthreads=0, chunk=1 + i % 64)
        run.check_complete()


def test_concurrent_launches_from_python_threads(clib, restore_threads):
    _native.set_num_threads(3)
    errors = []

    def worker(seed):
        try:
            for i in range(30):
                total = 10007 + 1000 * ((seed + i) % 5)
                chunk = [0, 1, 17, 4096][(seed + i) % 4]
                run = Run(total, chunk=chunk, offset=seed)
                run.launch(clib, nthreads=0, chunk=chunk)
                run.check_complete()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_num_threads(clib, restore_threads):
    n = _native.cpu_count()
    assert n >= 1
    assert _native.get_num_threads() == n
    _native.set_num_threads(3)
    assert _native.get_num_threads() == 3
    run = Run(100003, chunk=100)
    run.launch(clib, chunk=100)
    run.check_complete()
    _native.set_num_threads(1)
    assert _native.get_num_threads() == 1
    run = Run(100003, chunk=100, tids=True)
    run.launch(clib, chunk=100)
    run.check_complete()
    assert set(run.tids.tolist()) == {clib.gettid_()}
    _native.set_num_threads(0)
    assert _native.get_num_threads() == n
    _native.shutdown()
    run = Run(100003, chunk=100)
    run.launch(clib, chunk=100)
    run.check_complete()


def test_small_launches_run_on_calling_thread(clib, restore_threads):
    _native.set_num_threads(4)
    me = clib.gettid_()
    for total, chunk in [(1, 0), (1, 1), (7, 7), (500, 1000), (10, 0)]:
        # (10, 0) is cheap enough that the automatic mode never wakes the pool
        run = Run(total, chunk=chunk, tids=True)
        run.launch(clib, nthreads=0, chunk=chunk)
        run.check_complete()
        if chunk > 0 or total == 1:
            assert set(run.tids[:total].tolist()) == {me}
    run = Run(1000, tids=True)
    run.launch(clib, nthreads=1, chunk=1)
    run.check_complete()
    assert set(run.tids.tolist()) == {me}


def test_slow_small_launch_uses_the_pool(clib, restore_threads):
    # 16 indices of 2 ms each: automatic chunking measures the cost and spreads them out
    _native.set_num_threads(2)
    run = Run(16, sleep_ns=2_000_000, tids=True)
    run.launch(clib, nthreads=0, chunk=0)
    run.check_complete()
    assert len(set(run.tids.tolist())) == 2


def _interrupt_after(delay):
    main_ident = threading.main_thread().ident
    timer = threading.Timer(delay, signal.pthread_kill, args=(main_ident, signal.SIGINT))
    timer.daemon = True
    timer.start()
    return timer


@pytest.mark.parametrize("nthreads,chunk", [(0, 0), (0, 1), (0, 8), (1, 0), (1, 1), (2, 0)])
def test_long_launch_is_interruptible(clib, restore_threads, nthreads, chunk):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are only handled on the main thread")
    _native.set_num_threads(2)
    sleep_ns = 1_000_000
    total = 20000  # >= 10 s on 2 threads
    run = Run(total, chunk=chunk, sleep_ns=sleep_ns)
    # Python's own Ctrl-C handler (a shell may have set SIGINT to ignored, e.g. for `cmd &`)
    old_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        t0 = time.perf_counter()
        timer = _interrupt_after(0.2)
        try:
            with pytest.raises(KeyboardInterrupt):
                run.launch(clib, nthreads=nthreads, chunk=chunk)
        finally:
            timer.cancel()
    finally:
        signal.signal(signal.SIGINT, old_handler)
    dt = time.perf_counter() - t0
    # 0.2 s + at most ~20 ms until the check + the chunk in flight (chunk=8: 8 ms)
    assert dt < 2.0, dt
    assert run.stats[0] == 0 and run.stats[2] == 0
    assert run.counts.max() == 1  # nothing ran twice
    assert 0 < run.counts.sum() < total  # stopped early
    # the runtime still works afterwards
    run2 = Run(100003, chunk=chunk)
    run2.launch(clib, nthreads=nthreads, chunk=chunk)
    run2.check_complete()


def test_launch_errors():
    _native.launch(0, 0, 0, 0, 0, 0)  # nothing to run: the entry is never looked at
    with pytest.raises(ValueError):
        _native.launch(0, 0, 0, 10, 0, 0)
    with pytest.raises(TypeError):
        _native.launch(None, 0, 0, 10, 0, 0)


def test_memory():
    for alignment in (8, 16, 64, 256, 4096):
        p = _native.alloc(1000, alignment)
        assert p % alignment == 0
        _native.free(p)
    assert _native.alloc(100) % 64 == 0
    p0 = _native.alloc(0)
    assert p0 != 0
    _native.free(p0)
    _native.free(0)
    with pytest.raises(ValueError):
        _native.alloc(16, 48)
    with pytest.raises(MemoryError):
        _native.alloc(1 << 62)

    for n in (1, 1000, 1 << 22):  # small and GIL-releasing sizes
        a = _native.alloc(n)
        b = _native.alloc(n)
        _native.memset(a, 0xAB, n)
        va = np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(a))
        assert (va == 0xAB).all()
        src = np.arange(n, dtype=np.uint8)
        _native.memcpy(b, src.ctypes.data, n)
        vb = np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(b))
        np.testing.assert_array_equal(vb, src)
        _native.memcpy(a, b, n)
        np.testing.assert_array_equal(va, src)
        _native.free(a)
        _native.free(b)
    _native.memset(0, 0, 0)
    _native.memcpy(0, 0, 0)
    with pytest.raises(ValueError):
        _native.memset(0, 0, 10)


def test_version():
    v = _native.version()
    assert isinstance(v, str) and v
    assert _native.__version__ == v


def test_include_dir():
    d = _paths.include_dir()
    assert os.path.isabs(d)
    assert os.path.isdir(os.path.join(d, "warp_interactive"))
    assert d in _paths.include_dir_candidates()


def _run_python(code, timeout=60):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


PRELUDE = """
import ctypes, sys
import numpy as np
from warp_interactive import _native
lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else LIB)
noop = ctypes.cast(lib.noop, ctypes.c_void_p).value
"""


def test_workers_do_not_keep_process_alive(clib):
    code = PRELUDE.replace("LIB", repr(clib._name)) + """
_native.set_num_threads(4)
_native.launch(noop, 0, 0, 1000000, 0, 10)   # starts the pool
print("done")
"""
    t0 = time.perf_counter()
    r = _run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "done"
    assert time.perf_counter() - t0 < 30


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_launch_after_fork(clib):
    code = PRELUDE.replace("LIB", repr(clib._name)) + """
import os
_native.set_num_threads(3)
_native.launch(noop, 0, 0, 1000000, 0, 10)   # parent pool running
pid = os.fork()
if pid == 0:
    counts = np.zeros(100000, dtype=np.int32)
    _native.launch(noop, 0, 0, 1000000, 0, 10)  # child: fresh pool
    os._exit(0)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""
    r = _run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0"
