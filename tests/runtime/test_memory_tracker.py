"""wp.ScopedMemoryTracker, wp.print_memory_report and wp.config.track_memory (warp-lang 1.19):
which allocations are recorded, their sizes, scopes, call sites and frees, and the errors."""

import gc
import io
import re

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.runtime.memory_tracker import tracker


def _live_bytes(text, where="cpu"):
    m = re.search(rf"^{re.escape(where)}: (\d+) live allocations", text, re.M)
    return int(m.group(1)) if m else 0


# (how an array is made, its logical bytes, its label)
MAKERS = [
    (lambda: wp.zeros(100, dtype=wp.float32), 400, "array[float32, 100]"),
    (lambda: wp.empty((4, 8), dtype=wp.vec3), 384, "array[vec3f, 4, 8]"),
    (lambda: wp.array(np.arange(6, dtype=np.int64)), 48, "array[int64, 6]"),
    (lambda: wp.full(5, 2.0, dtype=wp.float64), 40, "array[float64, 5]"),
    (lambda: wp.clone(wp.ones(3, dtype=wp.mat22)), 48, "array[mat22f, 3]"),
]


@pytest.mark.parametrize("make,nbytes,label", MAKERS, ids=[m[2] for m in MAKERS])
def test_each_allocation_is_recorded(make, nbytes, label):
    with wp.ScopedMemoryTracker("t", print=False) as t:
        t.clear()
        a = make()
        buf = io.StringIO()
        t.report(file=buf)
    text = buf.getvalue()
    assert "Allocation Tracking Report" in text
    live = [r for r in tracker.live.values() if r.label == label]
    assert live and live[-1].nbytes == nbytes and live[-1].scope == "t"
    assert "test_memory_tracker.py" in live[-1].site      # the user's line, not the package's
    assert label in text
    del a


def test_scopes_nest_and_frees_are_seen():
    with wp.ScopedMemoryTracker("outer", print=False) as t:
        t.clear()
        a = wp.zeros(10, dtype=wp.float32)
        with wp.ScopedMemoryTracker("inner", print=False):
            b = wp.zeros(20, dtype=wp.float32)
            c = wp.zeros(30, dtype=wp.float32)
        assert sorted(r.scope for r in tracker.live.values()) == ["outer", "outer/inner", "outer/inner"]
        del c
        gc.collect()
        assert tracker.freed_count == 1 and len(tracker.live) == 2
        assert tracker.live_bytes == 120 and tracker.total_bytes == 240 and tracker.peak_bytes == 240
        text = io.StringIO()
        t.report(file=text)
    assert "Total allocations: 3" in text.getvalue() and "Live allocations: 2" in text.getvalue()
    assert "outer/inner" in text.getvalue()
    del a, b


def test_report_sort_orders_and_item_limit():
    with wp.ScopedMemoryTracker("s", print=False) as t:
        t.clear()
        keep = [wp.zeros(n, dtype=wp.float32) for n in (5, 50, 20)]
        by_size, by_time = io.StringIO(), io.StringIO()
        t.report(file=by_size, max_items=2)
        t.report(file=by_time, sort="chronological")
    sizes = re.findall(r"array\[float32, (\d+)\]", by_size.getvalue())
    assert sizes == ["50", "20"] and "1 more" in by_size.getvalue()
    assert re.findall(r"array\[float32, (\d+)\]", by_time.getvalue()) == ["5", "50", "20"]
    del keep


def test_report_func_and_printing_at_exit(capsys):
    got = []
    with wp.ScopedMemoryTracker("f", report_func=got.append) as t:
        t.clear()
        a = wp.zeros(7)
    assert len(got) == 1 and "array[float32, 7]" in got[0]
    with wp.ScopedMemoryTracker("p"):
        b = wp.zeros(3)
    assert "Allocation Tracking Report" in capsys.readouterr().out
    del a, b


def test_inactive_tracker_and_no_tracking_outside():
    with wp.ScopedMemoryTracker("off", active=False, print=False) as t:
        t.clear()
        a = wp.zeros(9)
    assert not any(r.label == "array[float32, 9]" for r in tracker.live.values())
    assert not tracker.enabled()
    b = wp.zeros(11)
    assert not any(r.label == "array[float32, 11]" for r in tracker.live.values())
    del a, b


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: wp.print_memory_report(), RuntimeError, "Allocation tracking is not active"),
    (lambda: wp.print_memory_report(sort="name"), ValueError, "Invalid sort order 'name'"),
])
def test_print_memory_report_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_config_track_memory_records_globally():
    saved = wp.config.track_memory
    try:
        wp.config.track_memory = True
        tracker.reset()
        a = wp.zeros(13)
        out = io.StringIO()
        wp.print_memory_report(file=out)
        assert "array[float32, 13]" in out.getvalue()
        assert [r.scope for r in tracker.live.values()] == ["global"]
        assert _live_bytes(out.getvalue()) == 1
    finally:
        wp.config.track_memory = saved
    del a
