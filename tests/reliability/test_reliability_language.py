"""Invalid programs are build errors at the user's line; 64-bit constants are honoured, never
wrapped. Translation errors cannot kill the process, so these run in-process."""

import re

import numpy as np
import pytest

import warp_interactive as wp


@wp.kernel
def big_constants(o: wp.array(dtype=wp.int64)):
    x = 2**40
    o[0] = wp.int64(x)
    y = wp.int64(5)
    o[1] = y + 2**35
    c = wp.int64(0)
    for i in range(0, 2**33, 2**32):      # unrolled: two iterations
        c += wp.int64(1)
    o[2] = c
    d = wp.int64(0)
    for i in range(2**32, 2**32 + 20):    # a dynamic loop with an int64 index
        d += wp.int64(i)
    o[3] = d
    o[4] = wp.int64(-(2**62) // 3)
    o[5] = wp.int64(7 % -3)


def test_literals_and_range_bounds_past_32_bits():
    out = wp.zeros(6, dtype=wp.int64)
    wp.launch(big_constants, dim=1, inputs=[out])
    want = [2**40, 5 + 2**35, 2, sum(range(2**32, 2**32 + 20)), -(2**62) // 3, 1]   # 7 % -3: C's remainder
    np.testing.assert_array_equal(out.numpy(), np.array(want, dtype=np.int64))


def test_long_sum_translates():
    ns = {"wp": wp}
    terms = " + ".join(["x"] * 1000)
    src = f"def long_sum(o: wp.array(dtype=float)):\n    x = 1.0\n    o[0] = {terms}\n"
    from warp_interactive.lang.definitions.source import source_of  # noqa: F401  (kernels need a file)
    import tempfile, importlib.util, os
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "long_sum_mod.py")
        with open(path, "w") as f:
            f.write("import warp_interactive as wp\n@wp.kernel\n" + src)
        spec = importlib.util.spec_from_file_location("long_sum_mod", path)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        o = wp.zeros(1)
        wp.launch(m.long_sum, dim=1, inputs=[o])
    assert o.numpy()[0] == 1000.0


# --- invalid programs: (id, source of a module defining kernel `k`, expected message) --------------
BAD = {
    "missing_return": ("""
@wp.func
def f(x: int) -> int:
    if x > 0:
        return 1

@wp.kernel
def k(o: wp.array(dtype=float)):
    o[0] = float(f(-1))
""", "can reach its end without a return", "if x > 0:"),
    "const_index": ("""
@wp.kernel
def k(o: wp.array(dtype=float)):
    v = wp.vec3(1.0, 2.0, 3.0)
    o[0] = v[3]
""", "index 3 is out of range for vec3f", "o[0] = v[3]"),
    "const_index_store": ("""
@wp.kernel
def k(o: wp.array(dtype=wp.mat22)):
    m = wp.mat22()
    m[0, 2] = 1.0
    o[0] = m
""", "index 2 is out of range", "m[0, 2] = 1.0"),
    "const_index_negative": ("""
@wp.kernel
def k(o: wp.array(dtype=float)):
    v = wp.vec3(1.0, 2.0, 3.0)
    o[0] = v[-4]
""", "index -4 is out of range for vec3f", "o[0] = v[-4]"),
    "annotation": ("""
@wp.func
def f(x: float) -> int:
    return x

@wp.kernel
def k(o: wp.array(dtype=float)):
    o[0] = float(f(1.5))
""", "annotated -> int32", "return x"),
    "varargs": ("""
@wp.kernel
def k(o: wp.array(dtype=float), *args):
    o[0] = 1.0
""", "cannot take *args", "def k("),
    "kwargs": ("""
@wp.kernel
def k(o: wp.array(dtype=float), **kw):
    o[0] = 1.0
""", "cannot take **kw", "def k("),
    "async": ("""
@wp.kernel
async def k(o: wp.array(dtype=float)):
    o[0] = 1.0
""", "async def is not supported", "async def k("),
    "shadow_range": ("""
@wp.kernel
def k(o: wp.array(dtype=float)):
    range = 5
    o[0] = float(range)
""", "'range' cannot be used as a variable name", "range = 5"),
    "recursion": ("""
@wp.func
def f(x: int) -> int:
    if x <= 0:
        return 0
    return f(x - 1)

@wp.kernel
def k(o: wp.array(dtype=float)):
    o[0] = float(f(3))
""", "'f' calls itself", "return f(x - 1)"),
    "tuple_value": ("""
@wp.kernel
def k(o: wp.array(dtype=float)):
    t = (1.0, 2.0)
    o[0] = t
""", "a tuple cannot be used as a value", "o[0] = t"),
    "literal_too_big_for_int32": ("""
@wp.kernel
def k(o: wp.array(dtype=int)):
    i = wp.tid()
    o[0] = i + 2**40
""", "does not fit in int32", "o[0] = i + 2**40"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_invalid_program_is_a_build_error_at_the_users_line(case, tmp_path):
    import importlib.util
    src, message, line = BAD[case]
    path = tmp_path / f"bad_{case}.py"
    path.write_text("import warp_interactive as wp\n" + src)
    spec = importlib.util.spec_from_file_location(f"bad_{case}", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    with pytest.raises(wp.CodegenError) as info:
        wp.launch(m.k, dim=1, inputs=[wp.zeros(1, dtype=float) if case != "literal_too_big_for_int32"
                                      else wp.zeros(1, dtype=int)])
    text = str(info.value)
    assert message in text
    assert line in text and str(path) in text


@wp.func
def early_exit(x: float) -> float:
    if x < 0.0:
        return 0.0
    else:
        y = x * 2.0
    return y


@wp.func
def all_paths(x: int) -> int:
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0


@wp.kernel
def valid_paths(o: wp.array(dtype=float)):
    o[0] = early_exit(-1.0) + early_exit(2.0)
    o[1] = float(all_paths(5) + all_paths(-5) * 10 + all_paths(0))
    for i in range(3):
        if i == 1:
            continue
        z = float(i)
        o[2] = z


def test_one_path_definitions_that_are_sound_still_build():
    o = wp.zeros(3)
    wp.launch(valid_paths, dim=1, inputs=[o])
    np.testing.assert_array_equal(o.numpy(), [4.0, -9.0, 2.0])


@wp.kernel
def component_at(off: int, row: int, o: wp.array(dtype=wp.vec3), m_out: wp.array(dtype=wp.mat22)):
    v = wp.vec3()
    v[off] = 1.0
    o[0] = v
    m = wp.mat22()
    m[row, off] = 2.0
    m_out[0] = m


@pytest.mark.parametrize("off,row,message", [
    (3, 0, "array 'v (vec3f)' indexed with [3], shape (3,)"),
    (-1, 0, "array 'v (vec3f)' indexed with [-1], shape (3,)"),
    (1, 2, "array 'm (mat22f)' indexed with [2], shape (2,)"),
])
def test_debug_mode_checks_runtime_component_indices(off, row, message):
    wp.set_module_options({"mode": "debug"})
    try:
        o, m = wp.zeros(1, dtype=wp.vec3), wp.zeros(1, dtype=wp.mat22)
        with pytest.raises(wp.LaunchError, match=re.escape(message)):
            wp.launch(component_at, dim=1, inputs=[off, row, o, m])
        wp.launch(component_at, dim=1, inputs=[1, 1, o, m])     # in range: runs
        np.testing.assert_array_equal(o.numpy(), [[0.0, 1.0, 0.0]])
        np.testing.assert_array_equal(m.numpy(), [[[0.0, 0.0], [0.0, 2.0]]])
    finally:
        wp.set_module_options({"mode": "release"})


# C++ keywords and predefined macros are valid Python names: as parameters, locals and struct
# fields they build and run (not g++ errors reported as "a bug in warp_interactive")
RESERVED_NAMES_SRC = '''
import warp_interactive as wp

@wp.struct
class S:
    true: float
    unix: float
    WPI_FUNC: int

@wp.kernel
def k(true: wp.array(dtype=float), false: float, __LINE__: int, __x86_64__: float, s: S):
    __linux__ = wp.tid()
    linux = false * 2.0
    __cplusplus = float(__LINE__) + __x86_64__
    WPI_EXPORT = s.true + s.unix + float(s.WPI_FUNC)
    true[__linux__] = linux + __cplusplus + WPI_EXPORT
'''


def test_cpp_keywords_and_macros_are_valid_names(tmp_path):
    import importlib.util
    path = tmp_path / "reserved_names.py"
    path.write_text(RESERVED_NAMES_SRC)
    spec = importlib.util.spec_from_file_location("reserved_names", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    s = m.S()
    s.true, s.unix, s.WPI_FUNC = 0.25, 0.5, 4
    out = wp.zeros(3)
    wp.launch(m.k, dim=3, inputs=[out, 1.5, 7, 0.125, s])
    np.testing.assert_array_equal(out.numpy(), np.full(3, 1.5 * 2 + 7 + 0.125 + 0.25 + 0.5 + 4, np.float32))
