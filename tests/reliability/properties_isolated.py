"""Property tests run in a child process by test_reliability_properties.py (this file is not
collected directly: a case that killed the process would otherwise take the suite down).

The rule: for generated kernel sources and launch arguments, wp.launch either raises a
clear Python exception (TypeError, ValueError, CodegenError) or gives the correct result; the
process never dies. Budget: the Hypothesis profile named by WARP_INTERACTIVE_HYPOTHESIS_PROFILE,
"ci" (a few examples, the default) or "local" (many)."""

import importlib.util
import itertools
import os
import tempfile

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import warp_interactive as wp

settings.register_profile("ci", max_examples=12, deadline=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))
settings.register_profile("local", max_examples=300, deadline=None,
                          suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("WARP_INTERACTIVE_HYPOTHESIS_PROFILE", "ci"))

_TMP = tempfile.mkdtemp(prefix="wpi-prop-")
_count = itertools.count()


def _load(src):
    """The module defined by ``src`` (kernels need their source in a file)."""
    name = f"prop_mod_{next(_count)}"
    path = os.path.join(_TMP, name + ".py")
    with open(path, "w") as f:
        f.write("import warp_interactive as wp\n" + src)
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


# --- generated kernel sources: float32 expressions, checked against NumPy float32 ----------------
# every operation rounds once as IEEE (no fast_math, no FMA), so NumPy's float32 scalars, applied
# in the same order, give the same bits
_BIN = {"+": np.add, "-": np.subtract, "*": np.multiply}
_FN = {"wp.min": np.minimum, "wp.max": np.maximum}


def _exprs():
    leaf = st.one_of(st.sampled_from(["x", "y", "p"]),
                     st.floats(-8, 8, width=32, allow_nan=False).map(lambda v: repr(float(v))))

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(sorted(_BIN)), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(sorted(_FN)), inner, inner).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            inner.map(lambda e: f"wp.abs({e})"),
            inner.map(lambda e: f"(-{e})"))
    return st.recursive(leaf, extend, max_leaves=12)


def _reference(expr, x, y, p):
    env = {"x": np.float32(x), "y": np.float32(y), "p": np.float32(p), "np": np}
    code = expr
    for k, fn in _FN.items():
        code = code.replace(k, f"np.{fn.__name__}")
    code = code.replace("wp.abs", "np.abs")
    # Python literals are float64: make them float32 like the kernel's literal adoption
    import re
    code = re.sub(r"(?<![\w.])(\d+\.\d+(?:e[-+]?\d+)?)", r"np.float32(\1)", code)
    with np.errstate(all="ignore"):
        return np.float32(eval(code, env))


@given(expr=_exprs(), p=st.floats(-4, 4, width=32, allow_nan=False))
def test_generated_expression_kernels_match_numpy(expr, p):
    m = _load(f"""
@wp.kernel
def k(xs: wp.array(dtype=float), ys: wp.array(dtype=float), p: float, out: wp.array(dtype=float)):
    i = wp.tid()
    x = xs[i]
    y = ys[i]
    out[i] = {expr}
""")
    rng = np.random.default_rng(len(expr))
    xs = rng.uniform(-3, 3, 5).astype(np.float32)
    ys = rng.uniform(-3, 3, 5).astype(np.float32)
    out = wp.zeros(5)
    wp.launch(m.k, dim=5, inputs=[wp.array(xs), wp.array(ys), float(p), out])
    want = np.array([_reference(expr, a, b, p) for a, b in zip(xs, ys)], dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), want, err_msg=expr)


# --- launch arguments: exception or the right result ---------------------------------------------
KERNELS = _load("""
@wp.kernel
def fill(a: wp.array(dtype=float), n: int, x: float):
    i = wp.tid()
    a[i] = x * float(n)
""")
N = 16


def _arrays():
    def ro(x):
        x.setflags(write=False)
        return x
    return st.sampled_from([
        ("ok", lambda: wp.zeros(N)), ("ok", lambda: np.zeros(N, np.float32)),
        ("ok", lambda: wp.array(np.zeros(N, np.float32), copy=False)),
        ("bad", lambda: None), ("bad", lambda: ro(np.zeros(N, np.float32))),
        ("bad", lambda: wp.array(ro(np.zeros(N, np.float32)), copy=False)),
        ("bad", lambda: np.broadcast_to(np.zeros(1, np.float32), (N,))),
        ("bad", lambda: np.zeros(N, np.float64)), ("bad", lambda: wp.zeros(N, dtype=int)),
        ("bad", lambda: wp.zeros((4, 4))), ("bad", lambda: bytes(4 * N)), ("bad", lambda: "array"),
    ])


def _dims():
    # a multi-dimensional dim runs a 1-d kernel over the linear index (as the reference's tid())
    ok = st.one_of(st.integers(0, N), st.integers(0, N).map(lambda d: (d,)),
                   st.integers(0, N).map(np.int64), st.none(),
                   st.lists(st.integers(0, 2), min_size=2, max_size=4).map(tuple))
    bad = st.one_of(st.integers(max_value=-1), st.integers(min_value=2**31),
                    st.floats(0, N), st.booleans(), st.text(max_size=3),
                    st.just(()), st.lists(st.integers(1, 2), min_size=5, max_size=6).map(tuple),
                    st.tuples(st.integers(1, 2), st.floats(1, 2)))
    return st.one_of(ok.map(lambda d: ("ok", d)), bad.map(lambda d: ("bad", d)))


def _scalars():
    ints = st.one_of(st.integers(-1000, 1000).map(lambda v: ("ok", v)),
                     st.integers(min_value=2**31).map(lambda v: ("bad", v)),
                     st.sampled_from([("bad", 1.5), ("bad", "3"), ("bad", None)]))
    floats = st.one_of(st.floats(-100, 100, width=32).map(lambda v: ("ok", v)),
                       st.integers(-5, 5).map(lambda v: ("ok", v)),
                       st.sampled_from([("bad", "1.0"), ("bad", None), ("bad", [1.0])]))
    return ints, floats


_INTS, _FLOATS = _scalars()


@given(arr=_arrays(), dim=_dims(), n=_INTS, x=_FLOATS)
def test_launch_arguments_raise_or_run_correctly(arr, dim, n, x):
    (a_ok, make), (d_ok, d), (n_ok, nv), (x_ok, xv) = arr, dim, n, x
    a = make()
    try:
        wp.launch(KERNELS.fill, dim=d, inputs=[a, nv, xv])
    except (TypeError, ValueError) as e:
        assert str(e)          # a message, whatever was refused
        # it raised: something was wrong (a 2-d dim's failure is a ValueError about wp.tid)
        assert "bad" in (a_ok, d_ok, n_ok, x_ok) or (d_ok == "ok" and d == 0), (arr, dim, n, x, e)
        return
    bad = [what for what, ok in (("array", a_ok), ("dim", d_ok), ("n", n_ok), ("x", x_ok))
           if ok == "bad"]
    assert not bad, f"accepted a bad {bad}: {a!r} dim={d!r} n={nv!r} x={xv!r}"
    count = N if d is None else int(np.prod(d) if isinstance(d, tuple) else d)
    want = np.zeros(N, np.float32)
    want[:count] = np.float32(xv) * np.float32(nv)
    got = a.numpy() if hasattr(a, "numpy") else np.asarray(a)
    np.testing.assert_array_equal(got, want)
