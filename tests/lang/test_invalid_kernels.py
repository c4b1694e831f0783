"""Kernel sources that mean something other than they say are refused at the user's line (as
warp-lang refuses them), and every other invalid source gets a message that says what was
written and what is allowed. Each source is written to a file and imported, as a user's module."""

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest

import warp_interactive as wp

_count = itertools.count()


def _module(tmp_path, body):
    name = f"bad_src_{next(_count)}"
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\nimport warp_interactive as wp\n" + textwrap.dedent(body).lstrip("\n"))
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m, path


def _launch(m, args, dim=1):
    wp.launch(m.k, dim=dim, inputs=args, device="cpu")


def _args(kind):
    return {"f": lambda: [wp.zeros(2, dtype=float)],
            "i": lambda: [wp.zeros(2, dtype=int)],
            "vf": lambda: [wp.zeros(2, dtype=wp.vec3), wp.zeros(2, dtype=float)],
            "f3": lambda: [wp.zeros(2, dtype=float), 3],
            "ff": lambda: [wp.zeros(2, dtype=float), 3.0]}[kind]()


# (name, source, arguments, line of the error in the source file, words the message contains)
REFUSED = [
    ("rebind_float_to_vec3", """
     @wp.kernel
     def k(b: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
         i = wp.tid()
         x = float(1.0)
         x = b[i]
         out[i] = x[0]
     """, "vf", 7, ["variable 'x' is float32", "vec3f", "assigning to existing symbol x (float32) with different type (vec3f)"]),
    ("int_param_gets_float", """
     @wp.kernel
     def k(out: wp.array(dtype=float), n: int):
         n = 1.5
         out[0] = float(n)
     """, "f3", 5, ["parameter 'n' is int32", "float32", "int32(...)"]),
    ("float_param_gets_vector", """
     @wp.kernel
     def k(out: wp.array(dtype=float), f: float):
         f = wp.vec3(1.0, 2.0, 3.0)
         out[0] = f[0]
     """, "ff", 5, ["parameter 'f' is float32", "vec3f"]),
    ("array_param_gets_float", """
     @wp.kernel
     def k(a: wp.array(dtype=float)):
         a = 1.0
     """, "f", 5, ["parameter 'a' is array(dtype=float32, ndim=1)", "float32", "use another name"]),
    ("loop_index_gets_float", """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         for i in range(3):
             i = 1.5
             out[0] = out[0] + 1.0
     """, "f", 6, ["variable 'i' is int32", "float32"]),
    ("func_returns_two_types", """
     @wp.func
     def f(x: float):
         if x > 0.0:
             return 1.0
         return 1
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         out[0] = float(f(out[0]))
     """, "f", 7, ["this return gives (int32) but an earlier one gave (float32)", "function returned different types"]),
    ("not_of_a_vector", """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         v = wp.vec3(1.0, 0.0, 0.0)
         if not v:
             out[0] = 1.0
     """, "f", 6, ["'not' needs a bool, a number or an array", "not a vec3f"]),
    ("int_literal_too_large", """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         x = 1180591620717411303424
         out[0] = float(x)
     """, "f", 5, ["1180591620717411303424 does not fit in 64 bits"]),
    ("range_bound_1e30", """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         for i in range(1e30):
             out[0] = out[0] + 1.0
     """, "f", 5, ["range() arguments must be integers, got (float32)"]),
]

UNCLEAR = [
    ("dict_unpacked_into_a_call", """
     D = {"a": 1.0, "b": 2.0}
     @wp.func
     def f(a: float, b: float):
         return a + b
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         out[0] = f(**D)
     """, "f", 9, ["f(**D): unpacking a dict into keyword arguments is not supported", "pass the arguments by name"]),
    ("keyword_only_parameter", """
     @wp.kernel
     def k(out: wp.array(dtype=float), *, s: float):
         out[0] = s
     """, "ff", 4, ["kernel parameter 's' is keyword-only", "remove the '*'"]),
    ("keyword_only_func_parameter", """
     @wp.func
     def f(a: float, *, b: float):
         return a + b
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         out[0] = f(1.0, b=2.0)
     """, "f", 4, ["@wp.func parameter 'b' is keyword-only"]),
    ("float_from_string", """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         out[0] = float("inf")
     """, "f", 5, ["float('inf'): a number from a string is not supported", "write wp.inf"]),
    ("float64_from_string", """
     @wp.kernel
     def k(out: wp.array(dtype=wp.float64)):
         out[0] = wp.float64("-inf")
     """, None, 5, ["a number from a string is not supported", "-wp.inf"]),
    ("annotation_is_a_list", """
     @wp.kernel
     def k(out: wp.array(dtype=float), s: [float]):
         out[0] = 1.0
     """, "ff", 4, ["parameter 's' is annotated [<class 'float'>], which is not a Warp type", "wp.array(dtype=float)"]),
    ("annotation_is_a_numpy_dtype", """
     @wp.kernel
     def k(out: wp.array(dtype=float), s: np.float32):
         out[0] = 1.0
     """, "ff", 4, ["not a Warp type (for numpy.float32 write wp.float32)"]),
    ("annotation_is_an_int", """
     @wp.kernel
     def k(out: wp.array(dtype=float), s: 3):
         out[0] = 1.0
     """, "f3", 4, ["parameter 's' is annotated 3, which is not a Warp type"]),
    ("annotation_is_a_string_of_nothing", """
     @wp.kernel
     def k(out: wp.array(dtype=float), s: "nothing.here"):
         out[0] = 1.0
     """, "ff", None, ["nothing"]),
    ("func_annotated_int_returns_float", """
     @wp.func
     def f(x: float) -> int:
         return x * 2.0
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         out[0] = float(f(out[0]))
     """, "f", 5, ["this return gives (float32) but the function is annotated -> int32"]),
    ("func_missing_a_return_path", """
     @wp.func
     def f(x: float):
         if x > 0.0:
             return x
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         out[0] = f(out[0])
     """, "f", 5, ["can reach its end without a return"]),
    ("direct_recursion", """
     @wp.func
     def f(x: int):
         if x <= 0:
             return 0
         return f(x - 1) + 1
     @wp.kernel
     def k(out: wp.array(dtype=int)):
         out[0] = f(3)
     """, "i", 7, ["'f' calls itself", "recursion is not supported"]),
    ("annotated_recursion", """
     @wp.func
     def f(x: int) -> int:
         if x <= 0:
             return 0
         return f(x - 1) + 1
     @wp.kernel
     def k(out: wp.array(dtype=int)):
         out[0] = f(3)
     """, "i", 7, ["'f' calls itself", "recursion is not supported"]),
    ("mutual_recursion", """
     @wp.func
     def f(x: int) -> int:
         if x <= 0:
             return 0
         return g(x - 1)
     @wp.func
     def g(x: int) -> int:
         return f(x - 1)
     @wp.kernel
     def k(out: wp.array(dtype=int)):
         out[0] = f(3)
     """, "i", 10, ["'f' calls itself (directly or through other functions)"]),
    ("range_step_zero", """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         for i in range(0, 10, 0):
             out[0] = out[0] + 1.0
     """, "f", 5, ["range() step is 0", "nonzero integer"]),
    ("range_step_zero_dynamic_bounds", """
     @wp.kernel
     def k(out: wp.array(dtype=float), n: int):
         for i in range(0, n, 0):
             out[0] = out[0] + 1.0
     """, "f3", 5, ["range() step is 0"]),
    ("static_range", """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         for i in wp.static(range(50000)):
             out[0] = out[0] + float(i)
     """, "f", 5, ["a range cannot stand in a kernel", "plain range(...)"]),
    ("forced_unroll_past_the_bound", """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         for i in range(50000):
             out[0] = out[0] + float(wp.static(i * 2))
     """, "f", 5, ["unrolled 50000 times", "wp.config.max_static_unroll = 4096", "wp.static() of the loop variable 'i'"]),
    ("unrolled_values_past_the_bound", """
     VALS = list(range(5000))
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         for v in wp.static(VALS):
             out[0] = out[0] + float(v)
     """, "f", 6, ["unrolled 5000 times", "put the values in a wp.array"]),
    ("nested_unrolls_past_the_bound", """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         for i in range(100):
             for j in range(100):
                 out[0] = out[0] + float(wp.static(i * j))
     """, "f", 6, ["past wp.config.max_static_unroll"]),
    ("tid_two_names_in_a_1d_launch", """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         i, j = wp.tid()
         out[i] = 1.0
     """, "f", None, ["unpacks wp.tid() into 2 indices but is launched with a 1-dimensional dim"]),
    ("return_of_a_call_returning_nothing", """
     @wp.func
     def nothing(x: float):
         y = x + 1.0
     @wp.func
     def f(x: float):
         return nothing(x)
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         out[0] = f(out[0])
     """, "f", 8, ["'nothing(x)' has no value", 'returns nothing', 'call it as a statement of its own']),
    ("assigning_a_call_returning_nothing", """
     @wp.func
     def nothing(x: float):
         y = x + 1.0
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         y = nothing(out[0])
         out[0] = 1.0
     """, "f", 8, ["'nothing(out[0])' has no value", 'returns nothing']),
    ("storing_a_call_returning_nothing", """
     @wp.func
     def nothing(x: float):
         y = x + 1.0
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         out[0] = nothing(out[0])
     """, "f", 8, ["'nothing(out[0])' has no value"]),
    ("passing_a_call_returning_nothing", """
     @wp.func
     def nothing(x: float):
         y = x + 1.0
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         out[0] = wp.sin(nothing(out[0]))
     """, "f", 8, ["'nothing(out[0])' has no value"]),
]


def _check(tmp_path, src, kind, line, words, dim=1):
    with pytest.raises(Exception) as err:
        m, path = _module(tmp_path, src)
        _launch(m, _args(kind) if kind else [wp.zeros(2, dtype=wp.float64)], dim)
    msg = str(err.value)
    for w in words:
        assert w in msg, msg
    if line is not None:
        assert f'line {line}' in msg and "bad_src_" in msg, msg
    return err.value


@pytest.mark.parametrize("name, src, kind, line, words", REFUSED, ids=[c[0] for c in REFUSED])
def test_programs_that_mean_something_else_are_refused_at_the_line(tmp_path, name, src, kind, line, words):
    err = _check(tmp_path, src, kind, line, words)
    assert isinstance(err, wp.errors.CodegenError)


@pytest.mark.parametrize("name, src, kind, line, words", UNCLEAR, ids=[c[0] for c in UNCLEAR])
def test_invalid_sources_say_what_was_written_and_what_is_allowed(tmp_path, name, src, kind, line, words):
    _check(tmp_path, src, kind, line, words)


def test_five_tid_names_in_a_4d_launch(tmp_path):
    m, _ = _module(tmp_path, """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         i, j, l, m, n = wp.tid()
         out[i] = 1.0
     """)
    with pytest.raises(ValueError, match="unpacks wp.tid\\(\\) into 5 indices"):
        wp.launch(m.k, dim=(1, 1, 1, 2), inputs=[wp.zeros(2, dtype=float)], device="cpu")


@pytest.mark.parametrize("src", [
    "async def k(out):\n    x = await out\n",
    "@wp.kernel\ndef k(out: wp.array(dtype=float)):\n    x = await out\n",
])
def test_await_is_refused_by_python_itself(tmp_path, src):
    """A kernel is Python source first: ``await`` outside ``async def`` never reaches Warp, and
    ``async def`` is refused by name."""
    with pytest.raises((SyntaxError, wp.errors.CodegenError), match="await|async"):
        m, _ = _module(tmp_path, src)
        wp.launch(wp.kernel(m.k), dim=1, inputs=[wp.zeros(1, dtype=float)], device="cpu")


@pytest.mark.parametrize("n", [5000, 30000])
def test_long_addition_chains_say_how_to_split_them(n):
    """Python's own parser nests one level per operator: the error names the cause and the fix
    (the source never imports as a module: the same error comes from the notebook's parse)."""
    from warp_interactive.lang.definitions.source import parse_text
    text = "def k(out):\n    x = out[0]\n    out[1] = " + " + ".join(["x"] * n) + "\n"
    with pytest.raises(wp.errors.CodegenError, match="nests too deeply.*split it into several statements"):
        parse_text(text, "<cell>", 1)


def test_a_chain_python_parses_translates_without_nesting(tmp_path):
    """Below Python's limit a long chain builds (the translator does not recurse per operator)."""
    m, _ = _module(tmp_path, """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         x = out[0]
         out[1] = """ + " + ".join(["x"] * 500) + "\n")
    a = wp.array([0.5, 0.0], dtype=float)
    wp.launch(m.k, dim=1, inputs=[a], device="cpu")
    assert a.numpy()[1] == 250.0


@pytest.mark.parametrize("src, args, expect", [
    ("""
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         float = 2.0
         out[0] = float
     """, lambda: [wp.zeros(1, dtype=float)], 2.0),
    ("""
     @wp.kernel
     def k(out: wp.array(dtype=float), int: float):
         out[0] = int * 2.0
     """, lambda: [wp.zeros(1, dtype=float), 1.5], 3.0),
    ("""
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         wp = 4.0
         out[0] = wp
     """, lambda: [wp.zeros(1, dtype=float)], 4.0),
    ("""
     @wp.func
     def float(x: int):
         return x + 1
     @wp.kernel
     def k(out: wp.array(dtype=int)):
         out[0] = float(3)
     """, lambda: [wp.zeros(1, dtype=int)], 4),
])
def test_names_shadowing_builtins_follow_python(tmp_path, src, args, expect):
    """A local, parameter or function named float, int or wp is the user's, as in Python."""
    m, _ = _module(tmp_path, src)
    a = args()
    wp.launch(m.k, dim=1, inputs=a, device="cpu")
    assert a[0].numpy()[0] == expect


def test_an_unrolled_loop_within_the_bound_builds(tmp_path):
    m, _ = _module(tmp_path, """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         for i in range(40):
             out[0] = out[0] + float(wp.static(i * 2))
     """)
    a = wp.zeros(1, dtype=float)
    wp.launch(m.k, dim=1, inputs=[a], device="cpu")
    assert a.numpy()[0] == 2 * sum(range(40))


def test_the_unroll_bound_is_a_config_option(tmp_path, monkeypatch):
    monkeypatch.setattr(wp.config, "max_static_unroll", 10)
    src = """
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         for i in range(20):
             out[0] = out[0] + float(wp.static(i))
     """
    _check(tmp_path, src, "f", 5, ["unrolled 20 times", "max_static_unroll = 10"])


def test_a_literal_of_the_same_kind_may_rebind(tmp_path):
    m, _ = _module(tmp_path, """
     @wp.kernel
     def k(out: wp.array(dtype=wp.float64)):
         x = wp.float64(1.0)
         x = 0.5
         n = wp.int64(3)
         n = 2
         out[0] = x * wp.float64(n)
     """)
    a = wp.zeros(1, dtype=wp.float64)
    wp.launch(m.k, dim=1, inputs=[a], device="cpu")
    assert a.numpy()[0] == 1.0


def test_the_compile_timeout_stops_a_build(tmp_path, monkeypatch):
    """A build past wp.config.compile_timeout stops the compiler and says so."""
    m, _ = _module(tmp_path, f"""
     @wp.kernel
     def k(out: wp.array(dtype=float)):
         out[0] = {np.random.default_rng().random()}
     """)
    monkeypatch.setattr(wp.config, "compile_timeout", 0.001)
    with pytest.raises(wp.errors.CompileError, match="did not finish within 0.001 s"):
        wp.launch(m.k, dim=1, inputs=[wp.zeros(1, dtype=float)], device="cpu")
