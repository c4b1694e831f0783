"""warp-lang 1.19's logging API (wp.LOG_*, wp.Logger, set/get_logger, ScopedLogger, ScopedLogLevel,
wp.config.log_level), the generic annotations wp.Scalar / wp.Float / wp.Int, and comparisons of
mixed scalar types in kernels (C++'s usual arithmetic conversions, as warp-lang compiles them)."""

import io
import sys
import warnings
from typing import Any

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive import logger as wlog


class Recorder:
    def __init__(self):
        self.seen = []

    def debug(self, message):
        self.seen.append(("debug", message))

    def info(self, message):
        self.seen.append(("info", message))

    def warning(self, message, category=None, stacklevel=1):
        self.seen.append(("warning", message))

    def error(self, message):
        self.seen.append(("error", message))


@pytest.fixture
def restore_logging():
    level, logger = wp.config.log_level, wp.get_logger()
    yield
    wp.config.log_level = level
    wp.set_logger(logger)


@pytest.mark.parametrize("name,value", [("LOG_DEBUG", 10), ("LOG_INFO", 20), ("LOG_WARNING", 30), ("LOG_ERROR", 40)])
def test_log_level_constants(name, value):
    assert getattr(wp, name) == value


def test_default_level_is_info():
    assert wp.config.log_level == wp.LOG_INFO


# level set -> which of debug/info/warning/error reach the logger (errors always do)
@pytest.mark.parametrize("level,expected", [
    (wp.LOG_DEBUG, ["debug", "info", "warning", "error"]),
    (wp.LOG_INFO, ["info", "warning", "error"]),
    (wp.LOG_WARNING, ["warning", "error"]),
    (wp.LOG_ERROR, ["error"]),
    (wp.LOG_ERROR + 10, ["error"]),
])
def test_level_gates_messages(restore_logging, level, expected):
    rec = Recorder()
    wp.set_logger(rec)
    wp.config.log_level = level
    wlog.log_debug("d")
    wlog.log_info("i")
    wlog.log_warning("w", category=UserWarning, once=False)
    wlog.log_error("e")
    assert [kind for kind, _ in rec.seen] == expected


@pytest.mark.parametrize("bad,why", [
    ("not a logger", "str"),
    (object(), "object"),
    (type("NoError", (), {"debug": print, "info": print, "warning": print})(), "NoError"),
    (type("NotCallable", (), {"debug": None, "info": print, "warning": print, "error": print})(), "NotCallable"),
])
def test_set_logger_rejects_non_loggers(restore_logging, bad, why):
    with pytest.raises(TypeError, match=f"Logger protocol.*{why}"):
        wp.set_logger(bad)
    with pytest.raises(TypeError, match="Logger protocol"):
        wp.ScopedLogger(bad)


def test_logger_protocol_is_not_instantiable_and_checks_duck_types():
    with pytest.raises(TypeError):
        wp.Logger()
    assert isinstance(Recorder(), wp.Logger)
    assert not isinstance(object(), wp.Logger)


def test_set_logger_none_restores_default(restore_logging):
    wp.set_logger(Recorder())
    wp.set_logger(None)
    assert type(wp.get_logger()).__name__ == "LoggerBasic"


def test_scoped_logger_and_level_restore_on_exception(restore_logging):
    outer, inner = Recorder(), Recorder()
    wp.set_logger(outer)
    wp.config.log_level = wp.LOG_INFO
    with pytest.raises(RuntimeError, match="boom"):
        with wp.ScopedLogger(inner), wp.ScopedLogLevel(wp.LOG_ERROR):
            assert wp.get_logger() is inner and wp.config.log_level == wp.LOG_ERROR
            raise RuntimeError("boom")
    assert wp.get_logger() is outer and wp.config.log_level == wp.LOG_INFO
    with wp.ScopedLogger(None):
        assert type(wp.get_logger()).__name__ == "LoggerBasic"
    assert wp.get_logger() is outer


def test_basic_logger_streams(restore_logging, monkeypatch):
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    wp.set_logger(None)
    wp.config.log_level = wp.LOG_DEBUG
    wlog.log_debug("to stdout")
    wlog.log_error("bad thing")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        wlog.log_warning("careful", category=UserWarning)
    assert out.getvalue() == "to stdout\n"
    assert "Warp Error: bad thing\n" in err.getvalue()
    assert "Warp UserWarning: careful\n" in err.getvalue()


def test_warnings_once_and_user_filters(restore_logging, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    wp.set_logger(None)
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for _ in range(3):
            wlog.log_warning("only once, test_api_logging", category=UserWarning, once=True)
            wlog.log_warning("deprecated once, test_api_logging", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=FutureWarning)
        wlog.log_warning("filtered away", category=FutureWarning)
    text = err.getvalue()
    assert text.count("only once, test_api_logging") == 1
    assert text.count("deprecated once, test_api_logging") == 1
    assert "filtered away" not in text


@wp.kernel
def _logged_kernel(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


def test_print_launches_go_to_the_active_logger(restore_logging, capsys):
    a = wp.zeros(4, dtype=float)
    wp.launch(_logged_kernel, 4, [a])     # a fast plan exists: print_launches must still see launches
    wp.launch(_logged_kernel, 4, [a])
    rec = Recorder()
    wp.set_logger(rec)
    try:
        wp.config.print_launches = True
        wp.launch(_logged_kernel, 4, [a])
        wp.launch(_logged_kernel, 4, [a])
    finally:
        wp.config.print_launches = False
    wp.launch(_logged_kernel, 4, [a])
    infos = [m for kind, m in rec.seen if kind == "info"]
    assert len(infos) == 2 and all("kernel: _logged_kernel dim: 4" in m for m in infos)
    assert capsys.readouterr().out == ""
    assert np.all(a.numpy() == 1.0)


# --- wp.Scalar / wp.Float / wp.Int as generic annotations ----------------------------------------
@wp.func
def _twice(x: wp.Float):
    return x + x


@wp.kernel
def _generic_scale(a: wp.array(dtype=wp.Scalar), v: wp.array(dtype=wp.types.vector(3, wp.Float)),
                   n: wp.Int, out: wp.array(dtype=wp.Float)):
    i = wp.tid()
    out[i] = _twice(v[i][0]) + out.dtype(a[i]) * out.dtype(n)


@pytest.mark.parametrize("st,ft,it", [(wp.int32, wp.float32, wp.int32), (wp.float64, wp.float64, wp.int64),
                                      (wp.uint8, wp.float16, wp.uint16)])
def test_type_variables_specialise(st, ft, it):
    a = wp.array(np.arange(3), dtype=st)
    v = wp.array(np.full((3, 3), 1.5), dtype=wp.types.vector(3, ft))
    out = wp.zeros(3, dtype=ft)
    wp.launch(_generic_scale, 3, [a, v, it(2), out])
    np.testing.assert_allclose(out.numpy(), 3.0 + np.arange(3) * 2.0)


@pytest.mark.parametrize("arg,value,declared", [
    (0, lambda: wp.zeros(3, dtype=wp.vec3), "array(dtype=Scalar, ndim=1)"),
    (1, lambda: wp.zeros(3, dtype=wp.vec3i), "array(dtype=vector(length=3, dtype=Float), ndim=1)"),
    (2, lambda: wp.float32(2.0), "Int"),
    (3, lambda: wp.zeros(3, dtype=wp.int32), "array(dtype=Float, ndim=1)"),
])
def test_type_variables_refuse_other_types(arg, value, declared):
    args = [wp.zeros(3, dtype=wp.int32), wp.zeros(3, dtype=wp.vec3), wp.int32(1), wp.zeros(3, dtype=float)]
    args[arg] = value()
    with pytest.raises(TypeError, match=f"is declared {declared.replace('(', '[(]').replace(')', '[)]')}"):
        wp.launch(_generic_scale, 3, args)


@pytest.mark.parametrize("var,members,non_members", [
    (wp.Float, [wp.float16, wp.float32, wp.float64, float], [wp.int32, wp.uint8]),
    (wp.Int, [wp.int8, wp.uint64, wp.int32, int], [wp.float32]),
    (wp.Scalar, [wp.int8, wp.float64, int, float], [wp.vec3, wp.bool]),
])
def test_type_variable_constraints(var, members, non_members):
    cons = var.__constraints__
    assert all(m in cons for m in members) and not any(m in cons for m in non_members)


def test_device_like_and_function_names():
    import typing
    assert set(typing.get_args(wp.DeviceLike)) == {wp.Device, str, type(None)}
    assert isinstance(_twice, wp.Function)


# --- comparisons of mixed scalar types --------------------------------------------------------------
@wp.kernel
def _compare(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array2d(dtype=wp.int32)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i, 0] = wp.where(x < y, 1, 0)
    out[i, 1] = wp.where(x <= y, 1, 0)
    out[i, 2] = wp.where(x > y, 1, 0)
    out[i, 3] = wp.where(x >= y, 1, 0)
    out[i, 4] = wp.where(x == y, 1, 0)
    out[i, 5] = wp.where(x != y, 1, 0)


# (left type, right type, the type C++ compares them in): unsigned wins at equal width
_MIXED = [
    (np.float32, np.int32, np.float32), (np.int32, np.float32, np.float32), (np.float64, np.int64, np.float64),
    (np.float32, np.float64, np.float64), (np.float16, np.int32, np.float32), (np.int16, np.float16, np.float32),
    (np.int32, np.uint32, np.uint32), (np.uint32, np.int64, np.int64), (np.int64, np.uint64, np.uint64),
    (np.int8, np.uint8, np.int32), (np.uint16, np.int32, np.int32), (np.int32, np.int64, np.int64),
]


@pytest.mark.parametrize("ta,tb,common", _MIXED)
def test_mixed_scalar_comparisons(ta, tb, common):
    def values(t):
        if np.issubdtype(t, np.unsignedinteger):
            return np.array([0, 1, 2, 3, 1, 7], dtype=t)
        if np.issubdtype(t, np.integer):
            return np.array([-1, 1, 2, -3, 1, 7], dtype=t)
        return np.array([-1.0, 1.0, 2.5, -3.0, 0.5, 7.0], dtype=t)
    a, b = values(ta), values(tb)[::-1].copy()
    out = wp.zeros((len(a), 6), dtype=wp.int32)
    wp.launch(_compare, len(a), [wp.array(a), wp.array(b), out])
    # the reference: both converted to the common type first, with C's wrap-around for unsigned
    ca, cb = a.astype(common), b.astype(common)
    expected = np.stack([ca < cb, ca <= cb, ca > cb, ca >= cb, ca == cb, ca != cb], axis=1).astype(np.int32)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_example_fluid_style_comparison():
    """A float distance against an int radius parameter (warp-lang's core/example_fluid)."""
    out = wp.zeros(8, dtype=wp.int32)
    wp.launch(_within_radius, 8, [3, out])
    np.testing.assert_array_equal(out.numpy(), (np.arange(8) * 0.5 < 3).astype(np.int32))


@wp.kernel
def _within_radius(radius: int, out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    d = float(i) * 0.5
    if d < radius:
        out[i] = 1


@wp.kernel
def _bool_order(x: int, out: wp.array(dtype=wp.int32)):
    # not a chain: two bools compared, as ints (C++)
    if (x > 0) < (-2 < x):
        out[0] = 1
    else:
        out[0] = 2


@pytest.mark.parametrize("x,expected", [(-5, 2), (-1, 1), (3, 2)])
def test_bools_compare_as_ints(x, expected):
    out = wp.zeros(1, dtype=wp.int32)
    wp.launch(_bool_order, 1, [x, out])
    assert out.numpy()[0] == expected == (1 if int(x > 0) < int(-2 < x) else 2)


def test_chained_comparison_of_unequal_types_is_a_type_error():
    @wp.kernel(module="unique")
    def unequal_chain():
        x = wp.int32(10)
        y = 10
        z = True
        if x == y == z:
            pass

    with pytest.raises(TypeError, match="Cannot chain comparisons of unequal types: int32 Eq bool"):
        wp.launch(unequal_chain, dim=1, inputs=[])
