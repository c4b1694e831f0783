"""Generic kernels and functions (``typing.Any`` in signatures, ``wp.overload``), as tables over
dtypes: each launch specialises the kernel for its argument types, once per type signature;
results are checked against NumPy; impossible specialisations name the kernel, the argument and
both types."""

from typing import Any

import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.state import state

SCALARS = [wp.int8, wp.uint8, wp.int16, wp.uint16, wp.int32, wp.uint32, wp.int64, wp.uint64,
           wp.float16, wp.float32, wp.float64]
VECTORS = [wp.vec2, wp.vec3d, wp.vec4h, wp.vec3i]
MATRICES = [wp.mat22, wp.mat33d, wp.mat44]


@wp.kernel(module="wpi_test_generics_scale")
def scale(a: wp.array(dtype=Any), s: Any, out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.func
def twice(x: Any):
    return x + x


@wp.kernel(module="wpi_test_generics_twice")
def apply_twice(a: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = twice(a[i])


def _values(t, n=5):
    np_t = wp.dtype_to_numpy(t)
    return (np.arange(n) % 4 + 1).astype(np_t)


@pytest.mark.parametrize("T", SCALARS, ids=lambda t: t.__name__)
def test_generic_kernel_over_scalar_dtypes(T):
    a = wp.array(_values(T), dtype=T)
    out = wp.zeros(5, dtype=T)
    wp.launch(scale, dim=5, inputs=[a, T(3), out])
    np.testing.assert_array_equal(out.numpy(), _values(T) * wp.dtype_to_numpy(T).type(3))


@pytest.mark.parametrize("T", SCALARS + VECTORS + MATRICES, ids=lambda t: t.__name__)
def test_generic_func_called_from_a_generic_kernel(T):
    n = 4
    src = np.random.default_rng(1).integers(1, 5, size=(n, *getattr(T, "_shape_", ())))
    a = wp.array(src.astype(wp.dtype_to_numpy(getattr(T, "_wp_scalar_type_", T))), dtype=T)
    out = wp.zeros(n, dtype=T)
    wp.launch(apply_twice, dim=n, inputs=[a, out])
    np.testing.assert_array_equal(out.numpy(), a.numpy() * 2)


def test_one_build_per_type_signature():
    """A second launch with the same argument types reuses the specialisation and the binary;
    new types add a specialisation (and rebuild the module once)."""
    @wp.kernel(module="wpi_test_generics_cache")
    def add_one(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = a[i] + a.dtype(1)

    f = wp.zeros(3, dtype=wp.float32)
    wp.launch(add_one, dim=3, inputs=[f])
    assert len(add_one.overloads) == 1
    loads = len(state.build_log)
    wp.launch(add_one, dim=3, inputs=[f])
    wp.launch(add_one, dim=3, inputs=[wp.zeros(2, dtype=wp.float32)])
    assert len(add_one.overloads) == 1
    assert len(state.build_log) == loads       # no load at all: the same binary
    i = wp.zeros(3, dtype=wp.int64)
    wp.launch(add_one, dim=3, inputs=[i])
    assert len(add_one.overloads) == 2
    np.testing.assert_array_equal(f.numpy(), [2, 2, 2])
    np.testing.assert_array_equal(i.numpy(), [1, 1, 1])


@pytest.mark.parametrize("arg, message", [
    (wp.zeros((2, 2), dtype=float), r"argument 'a' is declared array\(dtype=Any, ndim=1\), which "
                                    r"a value of type array\(dtype=float32, ndim=2\) cannot fill"),
    (1.5, r"argument 'a' is declared array\(dtype=Any, ndim=1\), which a value of type float32"),
    ("text", r"argument 'a' is declared array\(dtype=Any, ndim=1\), which a value of type str"),
])
def test_impossible_specialisation_names_kernel_argument_and_types(arg, message):
    @wp.kernel(module="wpi_test_generics_bad")
    def needs_1d(a: wp.array(dtype=Any)):
        pass

    with pytest.raises(TypeError, match="kernel needs_1d: " + message):
        wp.launch(needs_1d, dim=1, inputs=[arg])


def test_generic_vector_annotations():
    @wp.kernel(module="wpi_test_generics_vec")
    def total(v: wp.types.vector(length=Any, dtype=float), out: wp.array(dtype=float)):
        s = float(0.0)
        for i in range(len(v)):
            s += v[i]
        out[0] = s

    out = wp.zeros(1, dtype=float)
    for n in (2, 3, 4):
        wp.launch(total, dim=1, inputs=[wp.types.vector(n, float)(*range(1, n + 1)), out])
        assert out.numpy()[0] == sum(range(1, n + 1))
    with pytest.raises(TypeError, match=r"argument 'v' is declared vector\(length=Any, "
                                        r"dtype=float32\), which a value of type vec3d"):
        wp.launch(total, dim=1, inputs=[wp.vec3d(1.0, 2.0, 3.0), out])


@pytest.mark.parametrize("ann, t, fits", [
    (wp.types.vector(length=3, dtype=Any), wp.vec3d, True),
    (wp.types.vector(length=3, dtype=Any), wp.vec2d, False),
    (wp.types.vector(Any, wp.float32), wp.vec4, True),
    (wp.types.matrix(shape=(Any, Any), dtype=float), wp.mat33, True),
    (wp.types.matrix(shape=(2, 2), dtype=Any), wp.mat22d, True),
    (wp.types.matrix(shape=(2, 2), dtype=Any), wp.mat33d, False),
    (wp.types.quaternion(dtype=Any), wp.quatd, True),
    (wp.types.quaternion(dtype=Any), wp.vec4d, False),
    (wp.array(dtype=Any, ndim=2), wp.array2d(dtype=wp.vec3), True),
    (Any, wp.mat44, True),
])
def test_generic_annotation_table(ann, t, fits):
    from warp_interactive.lang.definitions import generics
    assert generics.is_generic(ann)
    assert generics.fits(ann, t) is fits


@pytest.mark.parametrize("T", [wp.float16, wp.float32, wp.float64, wp.int32], ids=lambda t: t.__name__)
def test_overload_builds_a_specialisation_ahead_of_launch(T):
    @wp.kernel(module=f"wpi_test_generics_overload_{T.__name__}")
    def fill(a: wp.array(dtype=Any), v: Any):
        a[wp.tid()] = v

    spec = wp.overload(fill, [wp.array(dtype=T), T])
    assert fill.overloads and list(fill.overloads.values()) == [spec]
    assert wp.overload(fill, {"a": wp.array(dtype=T), "v": T}) is spec
    a = wp.zeros(3, dtype=T)
    wp.launch(fill, dim=3, inputs=[a, T(2)])
    assert len(fill.overloads) == 1
    np.testing.assert_array_equal(a.numpy(), [2, 2, 2])


def test_overload_errors():
    @wp.kernel(module="wpi_test_generics_overload_errors")
    def k(a: wp.array(dtype=Any), n: int):
        pass

    with pytest.raises(TypeError, match="takes 2 arguments, 1 types were given"):
        wp.overload(k, [wp.array(dtype=float)])
    with pytest.raises(TypeError, match=r"argument 'n' is declared int32, which float32 cannot fill"):
        wp.overload(k, [wp.array(dtype=float), float])
    with pytest.raises(TypeError, match="no parameter named b"):
        wp.overload(k, {"b": float})
    with pytest.raises(TypeError, match="argument 'a' needs a concrete type"):
        wp.overload(k, [wp.array(dtype=Any), int])


def test_overload_decorator_form_and_funcs():
    @wp.func
    def mix(a: Any, b: Any):
        return a * b + a

    @wp.overload
    def mix(a: float, b: float):   # noqa: F811
        ...

    assert len(mix.generic_instances) == 1

    @wp.kernel(module="wpi_test_generics_decorator")
    def use(a: wp.array(dtype=float), b: wp.array(dtype=wp.vec3)):
        a[0] = mix(a[0], 2.0)
        b[0] = mix(b[0], 2.0)

    a = wp.array([3.0], dtype=float)
    b = wp.array([[1.0, 2.0, 3.0]], dtype=wp.vec3)
    wp.launch(use, dim=1, inputs=[a, b])
    assert a.numpy()[0] == 9.0
    np.testing.assert_array_equal(b.numpy()[0], [3.0, 6.0, 9.0])


def test_generic_func_argument_must_fit_its_annotation():
    @wp.func
    def first(a: wp.array(dtype=Any)):
        return a[0]

    @wp.kernel(module="wpi_test_generics_func_fit")
    def bad(x: float):
        y = first(x)  # noqa: F841

    with pytest.raises(wp.CodegenError, match=r"no overload of first\(\) accepts \(float32\)(.|\n)*"
                                              r"first\(a: array\(dtype=Any, ndim=1\)\)"):
        wp.launch(bad, dim=1, inputs=[1.0])


def test_a_failed_specialisation_leaves_the_module_working():
    @wp.kernel(module="wpi_test_generics_failed")
    def neg(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = -a[i]

    with pytest.raises(wp.CodegenError):
        wp.launch(neg, dim=1, inputs=[wp.zeros(1, dtype=wp.bool)])
    a = wp.array([1.0, -2.0], dtype=float)
    wp.launch(neg, dim=2, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), [-1.0, 2.0])
