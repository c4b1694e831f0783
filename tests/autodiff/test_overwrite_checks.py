"""``wp.config.verify_autograd_array_access`` (warp-lang 1.19's documented overwrite check): while
a tape records, a launch or copy that writes an array an earlier recorded launch read warns on
stderr with warp-lang's text; reads mark arrays (through views: their parents too), an atomic
``a[i] += v`` is a write only, a tape's backward()/reset() clears its arrays' flags. Off by
default: nothing is marked or printed then."""

import numpy as np
import pytest

import warp_interactive as wp

WARNING = ("is being written to but has already been read from in a previous launch. "
           "This may corrupt gradient computation in the backward pass.")


@pytest.fixture
def verify():
    saved = wp.config.verify_autograd_array_access
    wp.config.verify_autograd_array_access = True
    yield
    wp.config.verify_autograd_array_access = saved


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def overwrite(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = src[i]


@wp.kernel
def accumulate(dst: wp.array(dtype=float), src: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] += src[i]


@wp.kernel
def write_then_read(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = c[i] * c[i]
    b[i] = a[i]


@wp.func
def load_one(a: wp.array(dtype=float), i: int):
    return a[i]


@wp.func
def store_one(a: wp.array(dtype=float), i: int):
    a[i] = 1.0


@wp.kernel
def through_funcs(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    store_one(b, i)
    out[i] = load_one(a, i)


@wp.kernel
def through_views(x: wp.array3d(dtype=float), y: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    row = x[i, j]
    dst = y[i, j]
    dst[k] = row[k]


def arrays(n=3):
    a = wp.array(np.arange(1.0, n + 1.0), dtype=float, requires_grad=True)
    return a, wp.zeros_like(a), wp.zeros_like(a)


# (what each argument is marked after one recorded launch): (kernel, inputs, {index: is_read})
MARKS = [
    ("square", lambda a, b, c: [a, b], {0: True, 1: False}),
    ("accumulate", lambda a, b, c: [a, b], {0: False, 1: True}),        # += writes, does not read
    ("write_then_read", lambda a, b, c: [a, b, c], {0: True, 1: False, 2: True}),
    ("through_funcs", lambda a, b, c: [a, b, c], {0: True, 1: False, 2: False}),
]


@pytest.mark.parametrize("name,make,expect", MARKS, ids=[m[0] for m in MARKS])
def test_launches_mark_what_they_read(verify, name, make, expect):
    args = make(*arrays())
    with wp.Tape():
        wp.launch(globals()[name], dim=3, inputs=args)
    assert {i: args[i]._is_read for i in expect} == expect


def test_reads_through_views_mark_the_viewed_array(verify):
    x = wp.array(np.ones((2, 2, 3)), dtype=float, requires_grad=True)
    y = wp.zeros_like(x)
    with wp.Tape():
        wp.launch(through_views, dim=(2, 2, 3), inputs=[x, y])
    assert (x._is_read, y._is_read) == (True, False)
    v = wp.zeros((3, 3), dtype=float).view(dtype=wp.int32).flatten()
    v.mark_read()
    assert v._ref._ref._is_read      # flatten -> view -> the allocated array


def test_write_after_read_warns_with_the_kernel_and_argument(verify, capsys):
    a, b, c = arrays()
    with wp.Tape():
        wp.launch(square, dim=3, inputs=[a, b])
        wp.launch(overwrite, dim=3, inputs=[c, a])
    err = capsys.readouterr().err
    assert WARNING in err
    assert "passed to argument dst in kernel overwrite at " in err and __file__ in err


def test_copy_after_read_warns_at_the_users_line(verify, capsys):
    a, b, _ = arrays()
    with wp.Tape():
        wp.launch(square, dim=3, inputs=[a, b])
        import inspect
        line = inspect.currentframe().f_lineno + 1
        wp.copy(a, b)
    assert f"is being written to by an array copy at {__file__}:{line} but has already been read" in \
        capsys.readouterr().err


def test_write_before_any_read_and_after_backward_is_silent(verify, capsys):
    a, b, c = arrays()
    for _ in range(2):      # a training loop: each backward consumes its tape's reads
        tape = wp.Tape()
        with tape:
            wp.launch(overwrite, dim=3, inputs=[a, b])     # writes b before anything reads it
            wp.launch(square, dim=3, inputs=[b, c])
        tape.backward(grads={c: wp.ones_like(c)})
        assert not b._is_read
    assert capsys.readouterr().err == ""


def test_reset_clears_the_flags(verify):
    a, b, _ = arrays()
    tape = wp.Tape()
    with tape:
        wp.launch(square, dim=3, inputs=[a, b])
    assert a._is_read
    tape.reset()
    assert not a._is_read


def test_off_by_default_marks_nothing(capsys):
    assert wp.config.verify_autograd_array_access is False
    a, b, c = arrays()
    with wp.Tape():
        wp.launch(square, dim=3, inputs=[a, b])
        wp.launch(overwrite, dim=3, inputs=[c, a])
    assert not a._is_read and capsys.readouterr().err == ""


def test_a_write_after_a_read_in_one_kernel_warns_once(verify, capsys):
    @wp.func
    def store_two(x: wp.array(dtype=float), i: int):
        x[i] = 2.0

    @wp.kernel(module="unique")
    def read_then_write(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        a = x[i]
        store_two(x, i)       # the write, through a function, after the read
        y[i] += a             # an accumulation without an earlier read: fine

    @wp.kernel(module="unique")
    def write_then_read_ok(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = 1.0
        y[i] = x[i]

    a, b, _ = arrays()
    for _ in range(2):
        with wp.Tape():
            wp.launch(read_then_write, dim=3, inputs=[a, b])
            wp.launch(write_then_read_ok, dim=3, inputs=[b, a])
    err = capsys.readouterr().err
    with open(__file__) as f:
        line = 1 + next(n for n, text in enumerate(f) if "store_two(x, i)       # the write" in text)
    assert err.count("within the same kernel") == 1
    assert (f"Array passed to argument x in kernel read_then_write at {__file__}:{line} is being "
            "written to after it has been read from within the same kernel") in err
