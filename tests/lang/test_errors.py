"""Error paths: each error names what went wrong and where. Kernels that must fail translation
live in modules of their own (``module=...``) so they never break this file's good kernels."""

import os
import re

import pytest

import warp_interactive as wp
from warp_interactive.lang.translation.calls import BuiltinFunction
from warp_interactive.lang.builtins.registry import Float, add_builtin, registry, same_as

THIS_FILE = os.path.abspath(__file__)


def line_of(marker):
    """The line number in this file of the line holding ``marker``."""
    with open(THIS_FILE) as f:
        for n, line in enumerate(f, 1):
            if marker in line and "line_of(" not in line:
                return n
    raise AssertionError(f"marker {marker!r} not found")


def launch_error(kernel, inputs, dim=1):
    with pytest.raises(wp.CodegenError) as e:
        wp.launch(kernel, dim=dim, inputs=inputs)
    return e.value


def caret_under(msg, snippet):
    """The caret line of a CodegenError message points inside ``snippet`` on the line above."""
    lines = msg.splitlines()
    for k, line in enumerate(lines[:-1]):
        nxt = lines[k + 1]
        if snippet in line and nxt.strip() == "^":
            col = nxt.index("^")
            start = line.index(snippet)
            return start <= col < start + len(snippet)
    return False


# --- translation errors -----------------------------------------------------------------------------
@wp.kernel(module="errors_type_mismatch")
def type_mismatch(a: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i] + i  # <- type mismatch
    a[i] = x


def test_type_mismatch_points_at_user_code():
    err = launch_error(type_mismatch, [wp.zeros(1, dtype=float)])
    msg = str(err)
    assert f'File "{THIS_FILE}", line {line_of("<- type mismatch")}' in msg
    assert "in type_mismatch" in msg
    assert "x = a[i] + i  # <- type mismatch" in msg
    assert "float32" in msg and "int32" in msg
    assert caret_under(msg, "a[i] + i")
    assert err.lineno == line_of("<- type mismatch") and err.filename == THIS_FILE


def _nested_bad_kernel():
    if True:
        @wp.kernel(module="errors_nested")
        def nested_bad(a: wp.array(dtype=float)):
            a[0] = a[0] * wp.float64(2.0)  # <- nested
        return nested_bad


def test_error_in_an_indented_kernel():
    msg = str(launch_error(_nested_bad_kernel(), [wp.zeros(1, dtype=float)]))
    assert f'File "{THIS_FILE}", line {line_of("<- nested")}' in msg
    assert "float64" in msg and "float32" in msg
    assert caret_under(msg, "a[0] * wp.float64(2.0)")


def test_build_failure_raises_on_every_launch():
    a = wp.zeros(1, dtype=float)
    first = str(launch_error(type_mismatch, [a]))
    second = str(launch_error(type_mismatch, [a]))
    assert first == second
    # other modules are unaffected
    wp.launch(good_kernel, dim=1, inputs=[a])
    assert a.numpy()[0] == 1.0


@wp.kernel
def good_kernel(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


# A builtin declared in the registry but missing from the C++ headers makes the C++ build fail;
# it is registered only while its test runs.
missing_builtin = BuiltinFunction("wpi_test_missing_builtin")


@wp.kernel(module="errors_cpp_build")
def uses_missing_builtin(a: wp.array(dtype=float)):
    a[0] = missing_builtin(a[0])


def test_cpp_build_failure_raises_on_every_launch():
    add_builtin("wpi_test_missing_builtin", {"x": Float}, value_func=same_as(0), export=False)
    try:
        a = wp.zeros(1, dtype=float)
        for _ in range(2):
            with pytest.raises(wp.CompileError) as e:
                wp.launch(uses_missing_builtin, dim=1, inputs=[a])
            assert "wpi_test_missing_builtin" in str(e.value) and "errors_cpp_build" in str(e.value)
        wp.launch(good_kernel, dim=1, inputs=[a])
        assert a.numpy()[0] == 1.0
    finally:
        registry.pop("wpi_test_missing_builtin")


@wp.kernel(module="errors_unknown_name")
def unknown_name(a: wp.array(dtype=float)):
    a[0] = not_defined_anywhere * 2.0  # noqa: F821  <- unknown name


@wp.kernel(module="errors_with")
def with_statement(a: wp.array(dtype=float)):
    with open("x"):  # <- with
        a[0] = 1.0


@wp.kernel(module="errors_try")
def try_statement(a: wp.array(dtype=float)):
    try:  # <- try
        a[0] = 1.0
    except Exception:
        pass


@wp.kernel(module="errors_del")
def del_statement(a: wp.array(dtype=float)):
    x = 1.0
    del x  # <- del


@wp.kernel(module="errors_listcomp")
def list_comprehension(a: wp.array(dtype=float)):
    b = [x for x in range(3)]  # noqa: F841  <- listcomp


@wp.kernel(module="errors_lambda")
def lambda_expr(a: wp.array(dtype=float)):
    f = lambda x: x  # noqa: E731,F841  <- lambda


@wp.kernel(module="errors_for_over_array")
def for_over_array(a: wp.array(dtype=float)):
    for x in a:  # <- for over array
        pass


@wp.kernel(module="errors_kernel_return")
def kernel_returns_value(a: wp.array(dtype=float)):
    return 1.0  # <- kernel return


@wp.kernel(module="errors_store_type")
def store_wrong_type(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = i  # <- store type


@wp.kernel(module="errors_branch_types")
def branch_types(a: wp.array(dtype=float), flag: int):
    if flag > 0:
        x = 1.0
    else:
        x = 1
    a[0] = float(x)  # <- branch types


@wp.kernel(module="errors_vec_ctor")
def vec_constructor(a: wp.array(dtype=wp.vec3)):
    a[0] = wp.vec3(1.0, 2.0)  # <- vec ctor


@wp.func
def takes_vec(v: wp.vec3):
    return v[0]


@wp.kernel(module="errors_func_overload")
def func_overload(a: wp.array(dtype=float)):
    a[0] = takes_vec(1.0)  # <- func overload


@wp.kernel(module="errors_struct_field")
def struct_field(a: wp.array(dtype=float)):
    v = wp.vec3(1.0, 2.0, 3.0)
    a[0] = v.q  # <- attribute


@wp.kernel(module="errors_loop_type")
def loop_type_change(a: wp.array(dtype=float), n: int):
    x = 0
    for i in range(n):
        x = float(i)  # <- loop type
    a[0] = float(x)


@wp.kernel(module="errors_index_type")
def float_index(a: wp.array(dtype=float)):
    a[0] = a[1.0]  # <- index type


@wp.kernel(module="errors_too_many_indices")
def too_many_indices(a: wp.array(dtype=float)):
    a[0] = a[0, 1]  # <- too many indices


@wp.kernel(module="errors_range_types")
def range_types(a: wp.array(dtype=float), n: wp.int64, m: int):
    for i in range(m, n):  # <- range types
        a[0] = 1.0


@wp.func
def index_in_func():
    return wp.tid()  # <- tid in func


@wp.kernel(module="errors_tid_in_func")
def tid_in_func(a: wp.array(dtype=float)):
    a[0] = float(index_in_func())


TRANSLATION_ERRORS = [
    (tid_in_func, "<- tid in func", ["wp.tid()", "kernel", "index_in_func"]),
    (range_types, "<- range types", ["range()", "int32", "int64"]),
    (unknown_name, "<- unknown name", ["not_defined_anywhere", "not defined"]),
    (with_statement, "<- with", ["With"]),
    (try_statement, "<- try", ["Try"]),
    (del_statement, "<- del", ["Delete"]),
    (list_comprehension, "<- listcomp", ["ListComp"]),
    (lambda_expr, "<- lambda", ["Lambda"]),
    (for_over_array, "<- for over array", ["range"]),
    (kernel_returns_value, "<- kernel return", ["return"]),
    (store_wrong_type, "<- store type", ["int32", "float32"]),
    (branch_types, "<- branch types", ["'x'", "float32", "int32"]),
    (vec_constructor, "<- vec ctor", ["vec3", "float32"]),
    (func_overload, "<- func overload", ["takes_vec", "vec3", "float32"]),
    (struct_field, "<- attribute", ["vec3", "'q'"]),
    (loop_type_change, "<- loop type", ["'x'", "int32", "float32"]),
    (float_index, "<- index type", ["index", "float32"]),
    (too_many_indices, "<- too many indices", ["2", "1"]),
]


@pytest.mark.parametrize("kernel,marker,words", TRANSLATION_ERRORS, ids=lambda x: getattr(x, "key", None))
def test_translation_errors(kernel, marker, words):
    inputs = [wp.zeros(1, dtype=t.dtype) if isinstance(t, wp.array) else 1
              for t in kernel.arg_types.values()]
    err = launch_error(kernel, inputs)
    msg = str(err)
    assert f'File "{THIS_FILE}", line {line_of(marker)}' in msg, msg
    assert f"in {kernel.key}" in msg or kernel is tid_in_func
    for w in words:
        assert w in msg, f"{w!r} not in:\n{msg}"
    # the caret under the source line, then the message last (as Python's tracebacks, and the
    # reference's errors, which tests match with a trailing `$`)
    assert msg.endswith(err.msg) and "^" in msg[:-len(err.msg)].splitlines()[-1]
    assert isinstance(err, RuntimeError)    # as the reference's WarpCodegenError


@wp.struct
class Holder:
    data: wp.array(dtype=float)
    inner_count: int


@wp.struct
class Outer:
    holder: Holder


def test_struct_field_type_errors():
    h = Holder()
    with pytest.raises(TypeError, match=r"Holder\.data.*float32.*float64"):
        h.data = wp.zeros(2, dtype=wp.float64)
    with pytest.raises(TypeError, match=r"Holder\.data.*1 dimension"):
        h.data = wp.zeros((2, 2), dtype=float)
    with pytest.raises(TypeError, match=r"Holder\.data.*wp\.array"):
        h.data = [1.0, 2.0]
    with pytest.raises(AttributeError, match="no field 'missing'"):
        h.missing = 1
    with pytest.raises(TypeError, match=r"Outer\.holder.*Holder"):
        Outer().holder = 3


def test_unannotated_kernel_parameter():
    with pytest.raises(wp.CodegenError, match="'b' needs a type annotation"):
        @wp.kernel(module="errors_unannotated")
        def unannotated(a: wp.array(dtype=float), b):
            pass


def _define_twice():
    @wp.kernel(module="errors_redefined")
    def defined_twice(a: wp.array(dtype=float)):
        a[0] = 1.0
    first = defined_twice

    @wp.kernel(module="errors_redefined")
    def defined_twice(a: wp.array(dtype=float)):  # noqa: F811
        a[0] = 2.0
    return first, defined_twice


def test_launching_a_replaced_kernel_runs_its_own_code():
    """As in the reference: the replaced kernel object keeps its code (in a module of its own)."""
    first, second = _define_twice()
    a = wp.zeros(1, dtype=float)
    wp.launch(second, dim=1, inputs=[a])
    assert a.numpy()[0] == 2.0
    wp.launch(first, dim=1, inputs=[a])
    assert a.numpy()[0] == 1.0
    wp.launch(second, dim=1, inputs=[a])
    assert a.numpy()[0] == 2.0
    assert first.module is not second.module and second.module.name == "errors_redefined"


# --- launch errors ------------------------------------------------------------------------------------
@wp.kernel
def takes_args(a: wp.array(dtype=float), m: wp.array2d(dtype=wp.vec3), n: int, s: float, v: wp.vec3):
    i = wp.tid()
    a[i] = s * float(n) + v[0] + m[0, 0][1]


def _good_args():
    return [wp.zeros(2, dtype=float), wp.zeros((1, 1), dtype=wp.vec3), 3, 1.5, wp.vec3(1.0, 2.0, 3.0)]


def test_good_launch():
    args = _good_args()
    wp.launch(takes_args, dim=2, inputs=args)
    assert args[0].numpy().tolist() == [5.5, 5.5]


@pytest.mark.parametrize("index,value,words", [
    (0, wp.zeros(2, dtype=wp.float64), ["'a'", "float32", "float64"]),
    (0, wp.zeros((2, 2), dtype=float), ["'a'", "1 dimension", "2"]),
    (0, 3.0, ["'a'", "array", "float"]),
    (1, wp.zeros((1, 1), dtype=wp.vec4), ["'m'", "vec3", "vec4"]),
    (1, wp.zeros(1, dtype=wp.vec3), ["'m'", "2 dimension", "1"]),
    (2, 1.5, ["'n'", "int"]),
    (2, "three", ["'n'", "str"]),
    (2, 2 ** 40, ["'n'", "int32"]),
    (3, "x", ["'s'", "float32"]),
    (3, wp.zeros(1, dtype=float), ["'s'", "float32"]),
    (4, 1.0, ["'v'", "vec3"]),
    (4, wp.vec4(1.0, 2.0, 3.0, 4.0), ["'v'", "vec3", "vec4"]),
    (4, [1.0, 2.0], ["'v'", "vec3"]),
], ids=lambda x: None)
def test_wrong_argument_types(index, value, words):
    args = _good_args()
    args[index] = value
    with pytest.raises(TypeError) as e:
        wp.launch(takes_args, dim=2, inputs=args)
    msg = str(e.value)
    assert "takes_args" in msg
    for w in words:
        assert w in msg, f"{w!r} not in: {msg}"


def test_wrong_argument_count():
    with pytest.raises(TypeError) as e:
        wp.launch(takes_args, dim=2, inputs=_good_args()[:3])
    msg = str(e.value)
    assert "takes_args" in msg and "5" in msg and "3" in msg
    with pytest.raises(TypeError, match="takes_args"):
        wp.launch(takes_args, dim=2, inputs=_good_args() + [1])


def test_calling_a_kernel_directly():
    with pytest.raises(TypeError) as e:
        takes_args(*_good_args())
    assert "takes_args" in str(e.value) and "wp.launch" in str(e.value)


def test_launch_needs_a_kernel_and_valid_dim():
    with pytest.raises(TypeError, match="kernel"):
        wp.launch(lambda: None, dim=1, inputs=[])
    with pytest.raises(ValueError):
        wp.launch(good_kernel, dim=(1, 1, 1, 1, 1), inputs=[wp.zeros(1, dtype=float)])
    with pytest.raises(ValueError):
        wp.launch(good_kernel, dim=-1, inputs=[wp.zeros(1, dtype=float)])


@wp.kernel
def tid_2d(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = 1.0


def test_tid_arity_mismatch():
    with pytest.raises(ValueError) as e:
        wp.launch(tid_2d, dim=4, inputs=[wp.zeros((2, 2), dtype=float)])
    assert "tid_2d" in str(e.value) and "2" in str(e.value)


# --- debug mode: bounds checks -------------------------------------------------------------------------
DEBUG_MODULE = "errors_debug_mode"
wp.set_module_options({"mode": "debug"}, module=DEBUG_MODULE)


@wp.kernel(module=DEBUG_MODULE)
def oob_read(data: wp.array(dtype=float), idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = data[idx[i]]


@wp.kernel(module=DEBUG_MODULE)
def oob_write_2d(grid: wp.array2d(dtype=float), k: int):
    i = wp.tid()
    grid[i, k] = 1.0


@wp.func(module=DEBUG_MODULE)
def read_at(a: wp.array(dtype=float), i: int):
    return a[i]


@wp.kernel(module=DEBUG_MODULE)
def oob_in_func_and_view(rows: wp.array2d(dtype=float), k: int, out: wp.array(dtype=float)):
    i = wp.tid()
    row = rows[i + k]
    out[i] = read_at(row, k) + read_at(out, i)


def test_debug_out_of_bounds_in_func_and_view():
    rows = wp.zeros((2, 3), dtype=float)
    out = wp.zeros(2, dtype=float)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(oob_in_func_and_view, dim=2, inputs=[rows, 1, out])
    assert "'rows'" in str(e.value) and "[2]" in str(e.value) and "(2, 3)" in str(e.value)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(oob_in_func_and_view, dim=1, inputs=[rows, 5, out])
    assert "'rows'" in str(e.value) and "[5]" in str(e.value)
    rows.fill_(2.0)
    wp.launch(oob_in_func_and_view, dim=2, inputs=[rows, 0, out])
    assert out.numpy().tolist() == [2.0, 2.0]


def test_debug_out_of_bounds_read():
    data = wp.zeros(4, dtype=float)
    out = wp.zeros(3, dtype=float)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(oob_read, dim=3, inputs=[data, wp.array([0, 1, 7], dtype=int), out])
    msg = str(e.value)
    assert "oob_read" in msg and "'data'" in msg and "[7]" in msg and "(4,)" in msg
    # the process survives and the module keeps working
    wp.launch(oob_read, dim=3, inputs=[wp.array([1.0, 2.0, 3.0, 4.0], dtype=float),
                                       wp.array([3, 2, 1], dtype=int), out])
    assert out.numpy().tolist() == [4.0, 3.0, 2.0]


def test_debug_out_of_bounds_write_and_negative():
    grid = wp.zeros((2, 3), dtype=float)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(oob_write_2d, dim=2, inputs=[grid, 3])
    msg = str(e.value)
    assert "oob_write_2d" in msg and "'grid'" in msg and "3]" in msg and "(2, 3)" in msg
    # a negative index counts from the end (as in warp-lang): -3..-1 are in range, -4 is not
    with pytest.raises(wp.LaunchError, match=r"-4\]"):
        wp.launch(oob_write_2d, dim=2, inputs=[grid, -4])
    wp.launch(oob_write_2d, dim=2, inputs=[grid, -1])
    assert grid.numpy().tolist() == [[0, 0, 1], [0, 0, 1]]
    wp.launch(oob_write_2d, dim=2, inputs=[grid, -3])
    assert grid.numpy().tolist() == [[1, 0, 1], [1, 0, 1]]


def test_debug_error_names_user_line():
    data = wp.zeros(2, dtype=float)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(oob_read, dim=1, inputs=[data, wp.array([5], dtype=int), wp.zeros(1, dtype=float)])
    line = [n for n, text in enumerate(open(THIS_FILE), 1) if "out[i] = data[idx[i]]" in text][0]
    assert re.search(rf"line {line}\b", str(e.value))
