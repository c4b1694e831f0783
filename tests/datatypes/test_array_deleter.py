"""``wp.array(ptr=..., deleter=fn)`` and ``array.deleter`` (warp-lang 1.19's API): the deleter is
called once, as ``fn(ptr, capacity)``, when the last array viewing the memory goes; views and
arrays that do not own memory that way report None."""

import ctypes
import gc

import numpy as np
import pytest

import warp_interactive as wp


def _foreign(n):
    """Memory the test owns (a ctypes buffer) and a log of deleter calls."""
    buf = (ctypes.c_float * n)(*range(n))
    return buf, ctypes.addressof(buf), []


@pytest.mark.parametrize("capacity", [None, 64])
def test_deleter_called_once_with_ptr_and_capacity(capacity):
    buf, ptr, calls = _foreign(8)
    a = wp.array(ptr=ptr, shape=(8,), dtype=wp.float32, capacity=capacity,
                 deleter=lambda p, size: calls.append((p, size)))
    assert a.numpy().tolist() == list(range(8))
    assert a.deleter is not None
    del a
    gc.collect()
    assert calls == [(ptr, capacity if capacity is not None else 32)]


def test_views_keep_the_memory_and_report_no_deleter():
    buf, ptr, calls = _foreign(6)
    a = wp.array(ptr=ptr, shape=(6,), dtype=wp.float32, deleter=lambda p, s: calls.append(p))
    view = a[2:]
    assert view.deleter is None and a.reshape((2, 3)).deleter is None
    del a
    gc.collect()
    assert calls == [] and view.numpy().tolist() == [2.0, 3.0, 4.0, 5.0]
    del view
    gc.collect()
    assert calls == [ptr]


def test_setting_none_gives_the_memory_up_and_setting_a_deleter_takes_it():
    buf, ptr, calls = _foreign(4)
    a = wp.array(ptr=ptr, shape=(4,), dtype=wp.float32, deleter=lambda p, s: calls.append("first"))
    a.deleter = None
    del a
    gc.collect()
    b = wp.array(ptr=ptr, shape=(4,), dtype=wp.float32)
    assert b.deleter is None
    b.deleter = lambda p, s: calls.append(("second", p, s))
    del b
    gc.collect()
    assert calls == [("second", ptr, 16)]


def test_arrays_that_do_not_own_memory_that_way_report_none():
    assert wp.zeros(3).deleter is None
    assert wp.array(np.arange(3.0), copy=False).deleter is None
    assert wp.array([1.0, 2.0]).deleter is None


def test_deleter_errors():
    with pytest.raises(ValueError, match="deleter=.*pass ptr="):
        wp.array(np.zeros(3), deleter=lambda p, s: None)
    with pytest.raises(ValueError, match="deleter=.*pass ptr="):
        wp.zeros(3).__class__(shape=(3,), dtype=float, deleter=lambda p, s: None)
    with pytest.raises(TypeError, match="callable deleter"):
        wp.zeros(3).deleter = 5
