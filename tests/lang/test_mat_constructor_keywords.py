"""Composite constructors in kernels that restate their type's template (``mat32d(m, shape=(3, 2))``,
``wp.vec3(x, length=3)``, ``wp.mat22(..., dtype=wp.float32)``) build the plain value, as warp-lang
1.19 does; a keyword that contradicts the type is warp-lang's error. In Python scope, a matrix
value's ``get_row``/``get_col``/``set_row``/``set_col`` (warp-lang's methods). Reference: NumPy."""

import linecache

import numpy as np
import pytest

import warp_interactive as wp

mat32d = wp.types.matrix(shape=(3, 2), dtype=wp.float64)


@wp.kernel
def template_keywords(m: wp.array(dtype=mat32d), out32: wp.array(dtype=mat32d),
                      out22: wp.array(dtype=wp.mat22), outv: wp.array(dtype=wp.vec3)):
    out32[0] = mat32d(m[0], shape=(3, 2))
    out32[1] = mat32d(wp.float64(2.5), shape=(3, 2), dtype=wp.float64)
    out32[2] = wp.types.matrix(m[0], shape=(3, 2))
    out22[0] = wp.mat22(1.0, 2.0, 3.0, 4.0, shape=(2, 2))
    out22[1] = wp.mat22(4.0, dtype=wp.float32)
    out22[2] = wp.types.matrix(1.5, shape=(2, 2))
    outv[0] = wp.vec3(7.0, length=3)
    outv[1] = wp.vec3(1.0, 2.0, 3.0, dtype=float)


def test_template_keywords_build_the_plain_value():
    src = np.arange(6, dtype=np.float64).reshape(1, 3, 2) + 0.25
    m = wp.array(src, dtype=mat32d, device="cpu")
    out32 = wp.zeros(3, dtype=mat32d, device="cpu")
    out22 = wp.zeros(3, dtype=wp.mat22, device="cpu")
    outv = wp.zeros(2, dtype=wp.vec3, device="cpu")
    wp.launch(template_keywords, dim=1, inputs=[m, out32, out22, outv], device="cpu")
    np.testing.assert_array_equal(out32.numpy(), [src[0], np.full((3, 2), 2.5), src[0]])
    np.testing.assert_array_equal(out22.numpy(), [[[1, 2], [3, 4]], np.full((2, 2), 4.0),
                                                  np.full((2, 2), 1.5)])
    np.testing.assert_array_equal(outv.numpy(), [[7, 7, 7], [1, 2, 3]])


@pytest.mark.parametrize("body, message", [
    ("mat32d(mat32d(), shape=(2, 2))",
     r"remove the extraneous `shape` parameter when calling the templated version of `wp.mat_t\(\)`"),
    ("mat32d(mat32d(), dtype=wp.float32)",
     r"remove the extraneous `dtype` parameter when calling the templated version of `wp.mat_t\(\)`"),
    ("wp.vec3(1.0, length=2)",
     r"remove the extraneous `length` parameter when calling the templated version of `wp.vec_t\(\)`"),
    ("wp.vec3(1.0, shape=(3,))", r"unexpected keyword argument 'shape'"),
    ("wp.types.matrix(1.0, 2.0, 3.0)",
     r"the `shape` argument must be specified when initializing a matrix by value$"),
])
def test_contradicting_keywords_are_refused(body, message):
    namespace = {"wp": wp, "mat32d": mat32d}
    src = f"def bad():\n    x = {body}\n"
    filename = f"<wpi-test-mat-keywords-{abs(hash(body))}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), namespace)
    kernel = wp.Kernel(namespace["bad"], module="unique")
    with pytest.raises(wp.errors.CodegenError, match=message):
        wp.launch(kernel, dim=1, device="cpu")


ROW_TYPES = [wp.mat22h, wp.mat33f, wp.mat44d, wp.types.matrix((2, 3), wp.int32),
             wp.types.matrix((3, 2), wp.float32)]


@pytest.mark.parametrize("mat", ROW_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("index", [0, 1, -1, -2])
def test_get_row_and_col_match_numpy(mat, index):
    ref = np.arange(mat._length_).reshape(mat._shape_) + 1
    m = mat(*ref.reshape(-1).tolist())
    row, col = m.get_row(index), m.get_col(index)
    assert row._length_ == mat._shape_[1] and row._wp_scalar_type_ is mat._wp_scalar_type_
    assert col._length_ == mat._shape_[0] and col._wp_scalar_type_ is mat._wp_scalar_type_
    np.testing.assert_array_equal(list(row), ref[index])   # (np.array of a half value is its bits)
    np.testing.assert_array_equal(list(col), ref[:, index])


@pytest.mark.parametrize("mat", ROW_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("how", ["scalar", "sequence"])
def test_set_row_and_col_match_numpy(mat, how):
    rows, cols = mat._shape_
    ref = np.zeros(mat._shape_)
    m = mat()
    row_value = 5 if how == "scalar" else list(range(10, 10 + cols))
    col_value = 3 if how == "scalar" else list(range(20, 20 + rows))
    m.set_row(-1, row_value)
    ref[-1] = row_value
    m.set_col(0, col_value)
    ref[:, 0] = col_value
    np.testing.assert_array_equal([list(r) for r in m], ref)


@pytest.mark.parametrize("call, error, message", [
    (lambda m: m.get_row(2), IndexError, "Invalid row index"),
    (lambda m: m.get_row(-3), IndexError, "Invalid row index"),
    (lambda m: m.get_col(2), IndexError, "Invalid column index"),
    (lambda m: m.set_row(5, 1.0), IndexError, "Invalid row index"),
    (lambda m: m.set_col(0, [1.0, 2.0, 3.0]), ValueError, "expected 2 values"),
    (lambda m: m.set_row(0, object()), TypeError, "sequence of values"),
])
def test_row_access_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(wp.mat22f())


def test_vectors_have_no_rows():
    assert not hasattr(wp.vec3(), "get_row")
