"""Bad launches raise a clear error naming the argument; none kills the process or writes where it
must not. Each case runs in a fresh process (tests/support/isolated.py)."""

import re

import numpy as np
import pytest

import warp_interactive as wp
from isolated import outcome, run_snippet

KERNELS = '''
@wp.kernel
def fill(a: wp.array(dtype=float), n: int, x: float):
    i = wp.tid()
    a[i] = x

@wp.kernel
def last_tid(a: wp.array(dtype=wp.int64)):
    wp.atomic_max(a, 0, wp.int64(wp.tid()))

@wp.kernel
def reads(x: wp.array(dtype=float), a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = x[i] + 1.0

@wp.kernel
def shape_only(x: wp.array(dtype=float), a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = float(x.shape[0])

@wp.func
def put(b: wp.array(dtype=float), i: int):
    b[i] = 5.0

@wp.kernel
def writes_in_func(a: wp.array(dtype=float)):
    i = wp.tid()
    put(a, i)

@wp.kernel
def writes_view(a: wp.array2d(dtype=float)):
    i = wp.tid()
    row = a[i]
    row[0] = 1.0
'''

RO = "x = np.zeros(8, np.float32); x.setflags(write=False)\n"
WRITE_REFUSED = r"argument 'a'.*writes to this array, but it is read-only memory"

# (id, snippet, expected outcome regex)
CASES = [
    ("none_array_indexed", "wp.launch(fill, dim=8, inputs=[None, 1, 2.0])",
     r"RAISED TypeError: kernel 'fill' argument 'a'.*is None, but kernel 'fill' indexes it"),
    ("none_array_read", "wp.launch(reads, dim=8, inputs=[None, wp.zeros(8)])",
     r"RAISED TypeError: .*argument 'x'.*is None"),
    ("none_array_shape_only", "a = wp.zeros(4); wp.launch(shape_only, dim=4, inputs=[None, a]); return a.numpy().tolist()",
     r"OK \[0\.0, 0\.0, 0\.0, 0\.0\]"),
    ("dim_2_40", "wp.launch(fill, dim=2**40, inputs=[wp.zeros(8), 1, 2.0])",
     r"RAISED ValueError: wp.launch: each dim must be between 0 and 2\*\*31-1"),
    ("dim_2_31_8", "a = wp.zeros(1, dtype=wp.int64); wp.launch(last_tid, dim=2**31 + 8, inputs=[a])",
     r"RAISED ValueError: .*2\*\*31-1.*2147483656"),
    ("dim_str", "wp.launch(fill, dim='12', inputs=[wp.zeros(20), 1, 2.0])",
     r"RAISED TypeError: wp.launch: dim must be an int .*'12' \(str\)"),
    ("dim_2_64_3", "wp.launch(fill, dim=2**64 + 3, inputs=[wp.zeros(20), 1, 2.0])",
     r"RAISED ValueError: .*18446744073709551619"),
    ("dim_true", "wp.launch(fill, dim=True, inputs=[wp.zeros(20), 1, 2.0])",
     r"RAISED TypeError: .*True \(bool\)"),
    ("dim_float", "wp.launch(fill, dim=3.0, inputs=[wp.zeros(20), 1, 2.0])",
     r"RAISED TypeError: .*3\.0 \(float\)"),
    # after a dim was learned, equal values of other types still go to the checks (the native
    # fast path found the record of 1 for True or 1.0 by equality and ran one thread)
    ("dim_true_after_dim_1", "a = wp.zeros(20)\nfor _ in range(3): wp.launch(fill, dim=1, inputs=[a, 1, 2.0])\n"
     "wp.launch(fill, dim=True, inputs=[a, 1, 2.0])", r"RAISED TypeError: .*True \(bool\)"),
    ("dim_float_after_dim_1", "a = wp.zeros(20)\nfor _ in range(3): wp.launch(fill, dim=1, inputs=[a, 1, 2.0])\n"
     "wp.launch(fill, dim=1.0, inputs=[a, 1, 2.0])", r"RAISED TypeError: .*1\.0 \(float\)"),
    ("dim_tuple_bool_after_tuple", "a = wp.zeros(20)\nfor _ in range(3): wp.launch(fill, dim=(1,), inputs=[a, 1, 2.0])\n"
     "wp.launch(fill, dim=(True,), inputs=[a, 1, 2.0])", r"RAISED TypeError: .*\(True,\) \(bool\)"),
    ("dim_tuple_str", "wp.launch(fill, dim=(2, '3'), inputs=[wp.zeros(20), 1, 2.0])",
     r"RAISED TypeError: .*\(str\)"),
    ("dim_too_many_threads", "wp.launch(fill, dim=(2**31 - 1,) * 3, inputs=[wp.zeros(20), 1, 2.0])",
     r"RAISED ValueError: .*more than 2\*\*63-1"),
    # no dim (or None): over the first array's shape, as the reference's examples do
    ("dim_none", "a = wp.zeros(5); wp.launch(fill, dim=None, inputs=[a, 1, 2.0]); return a.numpy().tolist()",
     r"OK \[2\.0, 2\.0, 2\.0, 2\.0, 2\.0\]"),
    ("dim_numpy_int", "a = wp.zeros(6); wp.launch(fill, dim=np.int64(3), inputs=[a, 1, 2.0]); return a.numpy().tolist()",
     r"OK \[2\.0, 2\.0, 2\.0, 0\.0, 0\.0, 0\.0\]"),
    ("readonly_numpy", RO + "wp.launch(fill, dim=8, inputs=[x, 1, 2.0])", "RAISED TypeError: .*" + WRITE_REFUSED),
    ("readonly_numpy_after_warm", "wp.launch(fill, dim=8, inputs=[wp.zeros(8), 1, 2.0])\n" + RO +
     "wp.launch(fill, dim=8, inputs=[wp.array(x, copy=False), 1, 2.0])", "RAISED TypeError: .*" + WRITE_REFUSED),
    ("readonly_wp_array_no_copy", RO + "wp.launch(fill, dim=8, inputs=[wp.array(x, copy=False), 1, 2.0])",
     "RAISED TypeError: .*" + WRITE_REFUSED),
    ("readonly_copied", RO + "y = wp.array(x); wp.launch(fill, dim=8, inputs=[y, 1, 2.0]); return (x.tolist(), y.numpy().tolist())",
     r"OK \(\[0\.0(, 0\.0){7}\], \[2\.0(, 2\.0){7}\]\)"),
    ("readonly_read_is_fine", RO + "a = wp.zeros(8); wp.launch(reads, dim=8, inputs=[x, a]); return a.numpy().tolist()",
     r"OK \[1\.0(, 1\.0){7}\]"),
    ("readonly_written_by_func", RO + "wp.launch(writes_in_func, dim=8, inputs=[x])", "RAISED TypeError: .*" + WRITE_REFUSED),
    ("readonly_written_through_view", "x = np.zeros((2, 2), np.float32); x.setflags(write=False)\n"
     "wp.launch(writes_view, dim=2, inputs=[x])", "RAISED TypeError: .*" + WRITE_REFUSED),
    ("bytes_buffer", "b = bytes(32); wp.launch(fill, dim=8, inputs=[wp.array(np.frombuffer(b, np.float32), copy=False), 1, 2.0])",
     "RAISED TypeError: .*" + WRITE_REFUSED),
    ("bytes_object", "b = bytes(32); wp.launch(fill, dim=8, inputs=[b, 1, 2.0])", r"RAISED TypeError: .*argument 'a'"),
    ("readonly_mmap", "import mmap, tempfile\nf = tempfile.TemporaryFile(); f.write(bytes(32)); f.flush()\n"
     "m = mmap.mmap(f.fileno(), 32, access=mmap.ACCESS_READ)\n"
     "wp.launch(fill, dim=8, inputs=[np.frombuffer(m, np.float32), 1, 2.0])", "RAISED TypeError: .*" + WRITE_REFUSED),
    ("broadcast_view", "x = np.broadcast_to(np.zeros(1, np.float32), (8,)); wp.launch(fill, dim=8, inputs=[x, 1, 2.0])",
     "RAISED TypeError: .*argument 'a'.*writes to this array"),
    ("writable_stride_0", "x = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), (8,), (0,))\n"
     "wp.launch(fill, dim=8, inputs=[x, 1, 2.0])", r"RAISED TypeError: .*argument 'a'.*stride-0"),
    ("readonly_recorded_launch", RO + "cmd = wp.launch(fill, dim=8, inputs=[wp.zeros(8), 1, 2.0], record_cmd=True)\n"
     "cmd.set_param_at_index(0, x)", "RAISED TypeError: .*writes to this array"),
]


@pytest.mark.parametrize("case,snippet,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_launch_is_a_clear_error(case, snippet, expected):
    got = outcome(run_snippet(KERNELS + "\n" + "def _case():\n" +
                              "\n".join("    " + ln for ln in snippet.splitlines()) + "\nreturn _case()"))
    assert re.search(expected, got), got


def test_dlpack_view_outliving_the_exporter_at_exit():
    """A NumPy view of an export kept in a module that is cleared after the exporter's module
    (the deleter runs during interpreter shutdown)."""
    proc = run_snippet("""
        import numpy as np
        import warp_interactive as wp
        import warp_interactive.interop.dlpack as d
        np.KEEP = np.from_dlpack(wp.full(4, 3.0))
        d.KEEP = np.from_dlpack(wp.zeros(3))
        d.CAPSULE = wp.to_dlpack(wp.zeros(2))
        print("OK", float(np.KEEP.sum()))
    """, raw=True)
    assert proc.returncode == 0, proc.stderr
    assert "OK 12.0" in proc.stdout


def test_readonly_array_interface_is_readonly():
    x = np.arange(4, dtype=np.float32)
    x.setflags(write=False)
    a = wp.array(x, copy=False)
    view = a.numpy()
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        a.fill_(1.0)
    np.testing.assert_array_equal(x, np.arange(4, dtype=np.float32))
    assert wp.array(x).numpy().flags.writeable   # a copy is the user's own memory


def test_release_bounds_check_option():
    """``bounds_check``: a release (-O3) build with debug mode's index checks; an out-of-bounds
    index raises LaunchError on the general and the fast launch path alike."""
    got = outcome(run_snippet('''
        wp.set_module_options({"bounds_check": True})

        @wp.kernel
        def put(a: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), k: int):
            i = wp.tid()
            a[i] = 1.0
            w = wp.vec3()
            w[k] = 2.0
            v[0] = w

        a, v = wp.zeros(4), wp.zeros(1, dtype=wp.vec3)
        wp.launch(put, dim=4, inputs=[a, v, 1])
        wp.launch(put, dim=4, inputs=[a, v, 2])      # the fast path
        errors = []
        for dim, k in ((5, 0), (5, 0), (4, 3), (4, 3)):
            try:
                wp.launch(put, dim=dim, inputs=[a, v, k])
            except wp.LaunchError as e:
                errors.append(str(e).split(":", 1)[1].strip())
        return a.numpy().tolist(), v.numpy().tolist(), errors
    '''))
    # (the out-of-bounds launches with k=0 still ran their other threads: w[0] = 2 reached v)
    assert got.startswith("OK ([1.0, 1.0, 1.0, 1.0], [[2.0, 0.0, 0.0]]"), got
    assert got.count("array 'a' indexed with [4], shape (4,)") == 2, got
    assert got.count("array 'w (vec3f)' indexed with [3], shape (3,)") == 2, got
