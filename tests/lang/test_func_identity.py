"""Two @wp.funcs with the same name and the same text in different Python modules read
different globals, so they translate differently: each must run its own body (were they to
share one C++ name, a unit holding both would run the first one's code for both: a silently
wrong result). Checked against NumPy, with the twins called from one kernel and from separate
kernels of one module (one unit and separate units)."""

import importlib
import re
import sys
import textwrap

import numpy as np
import pytest

import warp_interactive as wp

TWIN = '''
import warp_interactive as wp

SCALE = wp.constant({scale})
OFFSET = {offset}

{decorator}
def f(x: float):
    return x * SCALE + float(OFFSET)
'''


@pytest.fixture
def twins(tmp_path, request):
    """Import modules twin_<test>_<n> whose ``f`` differ only by their globals' values."""
    made = []

    def make(scale, offset, decorator="@wp.func"):
        name = f"twin_{re.sub(r'[^0-9A-Za-z_]', '_', request.node.name)}_{len(made)}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(TWIN.format(scale=scale, offset=offset, decorator=decorator)))
        made.append(name)
        return importlib.import_module(name).f

    sys.path.insert(0, str(tmp_path))
    yield make
    sys.path.remove(str(tmp_path))
    for name in made:
        sys.modules.pop(name, None)


def _run(kernel, a):
    out = wp.zeros(len(a), dtype=float, device="cpu")
    wp.launch(kernel, dim=len(a), inputs=[wp.array(a, dtype=float, device="cpu"), out], device="cpu")
    return out.numpy()


@pytest.mark.parametrize("decorator", ["@wp.func", '@wp.func(module="unique")'])
@pytest.mark.parametrize("first, second", [
    ((2.0, 0), (3.0, 0)),        # the constants differ
    ((2.0, 1), (2.0, 5)),        # a plain global differs
    ((1.5, 2), (1.5, 2)),        # identical twins: still correct (may share code)
])
def test_twin_funcs_keep_their_own_globals(twins, first, second, decorator):
    """Also with ``module="unique"`` (each definition its own function in warp-lang): the
    second module's ``f`` must not join the first's as an overload and replace its body."""
    fa, fb = twins(*first, decorator), twins(*second, decorator)
    assert fa is not fb

    @wp.kernel
    def both(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = fa(a[i]) + 10.0 * fb(a[i])

    @wp.kernel
    def only_a(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = fa(a[i])

    @wp.kernel
    def only_b(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = fb(a[i])

    a = np.linspace(-1.0, 2.0, 7).astype(np.float32)
    ref_a, ref_b = a * first[0] + first[1], a * second[0] + second[1]
    np.testing.assert_allclose(_run(only_a, a), ref_a, rtol=1e-6)
    np.testing.assert_allclose(_run(only_b, a), ref_b, rtol=1e-6)
    np.testing.assert_allclose(_run(both, a), ref_a + 10.0 * ref_b, rtol=1e-5)


def _make_scaled(scale):
    S = wp.constant(scale)

    @wp.func
    def scaled(x: float):
        return x * S
    return scaled


def test_closures_of_one_factory_are_separate_functions():
    """``def make(s): @wp.func ...`` called twice: two functions (as warp-lang), each with its
    own closure value, not the second replacing the first."""
    f2, f3 = _make_scaled(2.0), _make_scaled(3.0)
    assert f2 is not f3

    @wp.kernel
    def k2(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = f2(a[i])

    @wp.kernel
    def k23(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = f2(a[i]) + 10.0 * f3(a[i])

    a = np.arange(5, dtype=np.float32)
    np.testing.assert_allclose(_run(k2, a), 2.0 * a)
    np.testing.assert_allclose(_run(k23, a), 32.0 * a)


def test_redefinition_in_place_keeps_the_cpp_name(twins):
    """Running a module's definition again (a re-run cell, a reload) keeps its function and its
    C++ name, so its units stay cached."""
    f = twins(2.0, 0)
    first = f.overloads[0].cpp
    module = importlib.reload(sys.modules[f.module_name])
    assert module.f is f and module.f.overloads[0].cpp == first


HASHED = '''
import warp_interactive as wp

VALUE = {value}

@wp.func
def g():
    return float(VALUE)

@wp.func
def f():
    return {literal} + g()

@wp.kernel
def k(out: wp.array(dtype=float)):
    out[0] = f()
'''


def _load_hashed(tmp_path, name, value, literal):
    (tmp_path / f"{name}.py").write_text(HASHED.format(value=value, literal=literal))
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
    return module


@pytest.mark.parametrize("first, second, same", [
    ((1, "2.0"), (1, "2.0"), True),      # identical sources: one hash (warp-lang's rule)
    ((1, "2.0"), (1, "3.0"), False),     # the body's text differs
    ((1, "2.0"), (4, "2.0"), False),     # a helper's global differs, the texts do not
    ((1.0, "2.0"), (1, "2.0"), False),   # the same number, another type
])
def test_module_hash_follows_what_the_bodies_read(tmp_path, request, first, second, same):
    """Two modules built from one text read the same values, so they hash alike and run alike;
    a different value anywhere their functions read makes a different hash."""
    tag = request.node.callspec.id.replace("-", "_").replace(".", "_")
    mods = [_load_hashed(tmp_path, f"hashed_{tag}_{n}", *args) for n, args in enumerate((first, second))]
    try:
        hashes = [wp.get_module(m.__name__).hash_module() for m in mods]
        assert (hashes[0] == hashes[1]) == same
        for m, (value, literal) in zip(mods, (first, second)):
            out = wp.zeros(1, dtype=float, device="cpu")
            wp.launch(m.k, dim=1, inputs=[out], device="cpu")
            assert out.numpy()[0] == float(literal) + float(value)
    finally:
        for m in mods:
            sys.modules.pop(m.__name__, None)


def test_global_rebound_after_the_def_is_read_at_translation(twins):
    """Twins read the same value when defined, then one module rebinds it: the name is chosen
    when the body is translated, with the values the translation bakes in, so each runs its own."""
    fa, fb = twins(2.0, 1), twins(2.0, 1)
    sys.modules[fa.module_name].OFFSET = 5

    @wp.kernel
    def both(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = fa(a[i]) + 10.0 * fb(a[i])

    a = np.linspace(-1.0, 2.0, 5).astype(np.float32)
    np.testing.assert_allclose(_run(both, a), (2.0 * a + 5) + 10.0 * (2.0 * a + 1), rtol=1e-5)


def _make_unique(v, dtype=float):
    @wp.kernel(module="unique")
    def k(a: wp.array(dtype=dtype)):
        a[wp.tid()] = dtype(wp.static(v * 2.0))
    return k


@pytest.mark.parametrize("first, second, same", [
    ((1.0,), (1.0,), True),                          # declared again alike: the same Kernel
    ((1.0,), (2.0,), False),                         # a closure value differs
    ((1.0, float), (1.0, wp.float64), False),        # an annotation differs (not read by the body)
])
def test_unique_kernels_declared_again(first, second, same):
    """module="unique": the same declaration gives the first Kernel back (as warp-lang); any
    difference in what defines it, a new one that runs its own values (checked against NumPy)."""
    k1, k2 = _make_unique(*first), _make_unique(*second)
    assert (k1 is k2) == same
    for k, args in ((k1, first), (k2, second)):
        dtype = args[1] if len(args) > 1 else float
        a = wp.zeros(3, dtype=dtype, device="cpu")
        wp.launch(k, 3, inputs=[a], device="cpu")
        np.testing.assert_array_equal(a.numpy(), np.full(3, 2.0 * args[0]))
