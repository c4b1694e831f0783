"""Gradient-test cases made from the builtin registry (used by test_grad_table.py).

Every overload flagged ``differentiable`` is concretised over float64 types (the first
combination of candidate types its input patterns accept and that resolves to it), and becomes
one kernel that reads each argument from an array and writes the result to an output array.
Overloads this cannot concretise are returned as *uncovered*: the test fails on them, so a new
differentiable builtin is either covered automatically or reported.

Input domains: a builtin that needs restricted inputs (sqrt, log, acos, inverse...) has an entry
in ``DOMAINS`` keyed by name; everything else samples uniformly from (-1, 1).
"""

import itertools
from dataclasses import dataclass, field

import numpy as np

import warp_interactive as wp
from warp_interactive.errors import TypeMismatch
from warp_interactive.lang.builtins.registry import Pattern, registry, resolve
from warp_interactive.types import composite as comp
from warp_interactive.types import scalars as sc
from warp_interactive.types.array import array as array_type

def candidates(scalar):
    """The concrete types tried for a pattern, in order: scalar first, then composites of it."""
    v, m, t = wp.types.vector, wp.types.matrix, wp.types
    composites = [v(3, scalar), v(2, scalar), v(4, scalar), m((3, 3), scalar), m((2, 2), scalar),
                  m((4, 4), scalar), m((2, 3), scalar), m((3, 2), scalar), t.quaternion(scalar),
                  t.transformation(scalar), v(6, scalar), m((6, 6), scalar)]
    return [scalar] + composites + [wp.int32, wp.bool]


# central-difference step and tolerances per scalar type
PRECISION = {wp.float64: (1e-6, 1e-5, 1e-6), wp.float32: (1e-3, 3e-2, 3e-3),
             wp.float16: (3e-2, 1e-1, 3e-2)}
MAX_COMBINATIONS = 400
INDEX_VALUE = 1          # the value given to integer (index) arguments

# name -> {argument position or "*": sampler}; a sampler maps (rng, numpy shape) -> values
def _u(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def _away_from_zero(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


def _well_conditioned(rng, shape):
    """Square matrices get a strong diagonal (inverse, determinant...)."""
    x = rng.uniform(-0.5, 0.5, shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        x = x + 2.0 * np.eye(shape[-1])
    return x


def _unit_quat(rng, shape):
    x = rng.normal(size=shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


POSITIVE = _u(0.3, 2.0)
DOMAINS = {
    "sqrt": {"*": POSITIVE}, "log": {"*": POSITIVE}, "log2": {"*": POSITIVE},
    "log10": {"*": POSITIVE}, "cbrt": {"*": POSITIVE}, "rsqrt": {"*": POSITIVE},
    "log1p": {"*": POSITIVE}, "acosh": {"*": _u(1.2, 3.0)}, "atanh": {"*": _u(-0.8, 0.8)},
    "asin": {"*": _u(-0.8, 0.8)}, "acos": {"*": _u(-0.8, 0.8)},
    "frac": {"*": _u(0.1, 0.9)}, "pow": {0: _u(0.5, 1.5), 1: _u(-1.0, 2.0)},
    "div": {1: _away_from_zero(0.5, 1.5)}, "cw_div": {1: _away_from_zero(0.5, 1.5)},
    "mod": {0: _u(0.2, 0.9), 1: _u(1.2, 2.0)},
    "clamp": {0: _u(-1.5, 1.5), 1: _u(-1.0, -0.6), 2: _u(0.6, 1.0)},
    "inverse": {"*": _well_conditioned}, "determinant": {"*": _well_conditioned},
    "svd3": {"*": _well_conditioned}, "qr3": {"*": _well_conditioned},
    "eig3": {"*": _well_conditioned},
    "quat_to_axis_angle": {"*": _unit_quat}, "quat_slerp": {0: _unit_quat, 1: _unit_quat},
    "smoothstep": {0: _u(-1.0, -0.6), 1: _u(0.6, 1.0), 2: _u(-0.5, 0.5)},
    # special functions and norms (math/special.h)
    "erfinv": {"*": _u(-0.8, 0.8)}, "erfcinv": {"*": _u(0.2, 1.8)},
    "copysign": {0: _away_from_zero(0.2, 1.0)},
    "div_approx": {0: _away_from_zero(0.5, 1.5), 1: _away_from_zero(0.5, 1.5)},
    "norm_huber": {1: POSITIVE}, "norm_pseudo_huber": {1: POSITIVE},
    "smooth_normalize": {1: POSITIVE},
    "inverse_approx": {"*": _well_conditioned}, "svd2": {"*": _well_conditioned},
    "closest_point_edge_edge": {4: _u(1e-8, 1e-7)},
}
DEFAULT_SAMPLER = _u(-1.0, 1.0)


@dataclass
class Param:
    name: str
    type: object                 # the kernel annotation (an array type)
    role: str                    # "in" (differentiated), "const" (ints/bools) or "out"
    shape: tuple
    sampler: object = None
    value: object = None         # for "const"


@dataclass
class Case:
    key: str
    params: list
    body: list                   # kernel body lines (after i = wp.tid())
    dim: int = 2
    scalar: object = wp.float64  # eps, rtol, atol come from PRECISION[scalar]
    local_types: dict = field(default_factory=dict)   # _LT<k> placeholder in body -> type


def scalar_kind(t):
    s = t if sc.is_scalar(t) else getattr(t, "_wp_scalar_type_", None)
    return s


def is_float_valued(t):
    s = scalar_kind(t)
    return s is not None and sc.is_float(s)


def concretise(ov, scalar):
    """The first argument types that fit ``ov`` and resolve to it, with the return type."""
    pats = ov.patterns(len(ov.input_types))
    options = []
    for p in pats:
        if isinstance(p, Pattern):
            options.append([t for t in candidates(scalar) if p.test(t)])
        elif isinstance(p, array_type):
            return None
        else:
            options.append([p])
    for combo in itertools.islice(itertools.product(*options), MAX_COMBINATIONS):
        try:
            ret = ov.match(list(combo))
            found, _ = resolve(ov.name, list(combo))
        except TypeMismatch:
            continue
        if found is ov:
            return list(combo), ret
    return None


def _sampler(name, pos):
    d = DOMAINS.get(name, {})
    return d.get(pos, d.get("*", DEFAULT_SAMPLER))


def _np_shape(t, n):
    return (n,) + tuple(getattr(t, "_shape_", ()))


INFIX = {"matmul": "@"}     # operators registered hidden (no wp.<name> to call)


def _syntax(ov, args):
    """(prelude lines, result expression) calling ``ov`` on argument expressions ``args``."""
    if ov.export:
        return [], f"wp.{ov.name}({', '.join(args)})"
    if ov.name in INFIX:
        return [], f"({args[0]}) {INFIX[ov.name]} ({args[1]})"
    if ov.name == "extract":
        return [], f"{args[0]}[{', '.join(args[1:])}]"
    if ov.name == "assign":
        target, idx, value = args[0], args[1:-1], args[-1]
        return [f"_v = {target}", f"_v[{', '.join(idx)}] = {value}"], "_v"
    return None


# builtins that write results into arguments (by name: the positions of those arguments)
OUT_PARAMS = {"quat_to_axis_angle": (1, 2), "svd3": (1, 2, 3), "qr3": (1, 2), "eig3": (1, 2),
              "svd2": (1, 2, 3), "transform_decompose": (1, 2, 3)}
# builtins that assign a new value to an argument variable (in place), by name
MUTATES = {"transform_set_rotation": (0,), "transform_set_translation": (0,)}
# integer arguments that need particular values (axis sequences), by name and position
CONST_VALUES = {"quat_from_euler": {1: 2, 2: 0, 3: 1}, "quat_to_euler": {1: 0, 2: 1, 3: 0}}


def builtin_case(ov, index, scalar):
    """A Case for one overload (returning values, or writing out-arguments), or None."""
    found = concretise(ov, scalar)
    if found is None:
        return None
    arg_types, ret = found
    rets = list(ret) if isinstance(ret, tuple) else ([] if ret is None else [ret])
    out_pos = tuple(k for k in OUT_PARAMS.get(ov.name, ()) if k < len(arg_types))   # not tuple forms
    out_types = [arg_types[k] for k in out_pos]
    mut_pos = MUTATES.get(ov.name, ())
    if not any(is_float_valued(t) for t in rets + out_types + [arg_types[k] for k in mut_pos]):
        return None
    key = f"{ov.name}[{index}]({', '.join(t.__name__ for t in arg_types)})"
    floats = [scalar_kind(t) for t in arg_types + rets if is_float_valued(t)]
    case = Case(key=key, params=[], body=[], scalar=floats[0] if floats else scalar)
    exprs, prelude = [], []
    for k, t in enumerate(arg_types):
        if k in out_pos:        # a local the builtin writes: starts at zero
            case.local_types[f"_LT{k}"] = t
            zero = "()" if comp.is_composite(t) else "(0.0)"
            prelude.append(f"o{k} = _LT{k}{zero}")
            exprs.append(f"o{k}")
            continue
        if is_float_valued(t):
            p = Param(f"a{k}", array_type(dtype=t), "in", _np_shape(t, case.dim), _sampler(ov.name, k))
        else:
            val = True if t is sc.bool_ else CONST_VALUES.get(ov.name, {}).get(k, INDEX_VALUE)
            p = Param(f"a{k}", array_type(dtype=t), "const", (case.dim,), value=val)
        case.params.append(p)
        if k in mut_pos:        # the builtin assigns a new value to this variable
            prelude.append(f"m{k} = a{k}[i]")
            exprs.append(f"m{k}")
        else:
            exprs.append(f"a{k}[i]")
    syntax = _syntax(ov, exprs)
    if syntax is None:
        return None
    pre, expr = syntax
    results = [f"r{k}" for k in range(len(rets))]
    case.body = prelude + pre + [f"{', '.join(results)} = {expr}" if results else expr]
    for name, t in list(zip(results, rets)) + [(f"o{k}", arg_types[k]) for k in out_pos] + \
            [(f"m{k}", arg_types[k]) for k in mut_pos]:
        case.params.append(Param(f"out_{name}", array_type(dtype=t), "out", _np_shape(t, case.dim)))
        case.body.append(f"out_{name}[i] = {name}")
    return case


# --- builtins that take arrays: one hand-written kernel per (name, number of indices) -----------
IDX = ["1", "0", "1", "0"]


def array_case(ov, index, scalar):
    n = len(ov.input_types) - 1 - (0 if ov.name in ("load", "view") else 1)
    idx = ", ".join(IDX[:n])
    x_ndim = n + 1 if ov.name == "view" else n
    if x_ndim > 4:      # a view with 4 indices: the last one a slice keeps its axis (a 1-d view)
        idx, x_ndim = ", ".join(IDX[:n - 1] + [":"]), 4
    shape = (2,) * x_ndim
    y_shape = shape if ov.name != "view" else (1,)
    sq = f"x[{idx}] * x[{idx}]"
    bodies = {
        "load": [f"y[0] = wp.sin({sq})"],
        "view": [f"v = x[{idx}]", "y[0] = v[1] * v[0] * v[1]"],
        "array_store": [f"y[{idx}] = wp.sin({sq})"],
        "atomic_add": [f"wp.atomic_add(y, {idx}, wp.sin({sq}))",
                       f"wp.atomic_add(y, {idx}, {sq})"],
        "atomic_sub": [f"wp.atomic_sub(y, {idx}, wp.sin({sq}))"],
        # y starts at 0: the value wins (and takes y's gradient) where it is below / above it
        "atomic_min": [f"wp.atomic_min(y, {idx}, -wp.sin({sq}))"],
        "atomic_max": [f"wp.atomic_max(y, {idx}, wp.sin({sq}))"],
    }
    body = bodies.get(ov.name)
    if body is None:
        return None
    if ov.name in ("load", "view"):
        y_shape = (1,)
    arr_t = array_type(dtype=scalar, ndim=x_ndim)
    out_t = array_type(dtype=scalar, ndim=len(y_shape))
    return Case(key=f"{ov.name}[{index}]({scalar.__name__}, ndim={x_ndim})", dim=1, body=body,
                scalar=scalar, params=[
        Param("x", arr_t, "in", shape, DEFAULT_SAMPLER),
        Param("y", out_t, "out", y_shape)])


# Overloads no kernel can reach, with the reason (listed, not skipped silently).
UNREACHABLE = {}


# Builtins that query a structure built in Python scope (meshes, volumes) cannot take random
# inputs; their gradients are checked against finite differences by the gradient tests of these
# files, and test_structure_gradients_are_checked_elsewhere makes sure each is reached there.
STRUCTURE_GRADIENT_TESTS = {"Geometry": "test_geometry.py", "Volumes": "test_volume.py"}
# builtins writing into arrays whose indices must be consistent: gradient-tested in the named file
# dense_* take flat arrays with their sizes as ints (the table has no case shape for that): their
# gradients are checked against closed forms and finite differences in test_dense_builtins.py
OWN_GRADIENT_TESTS = {"spatial_jacobian": "test_builtins_extra.py", "spatial_mass": "test_builtins_extra.py",
                      "dense_gemm": "test_dense_builtins.py", "dense_solve": "test_dense_builtins.py",
                      **{name: "test_geometry_compat.py" for name in (
                          "volume_sample_v4f", "volume_sample_v4d", "volume_sample_grad_f", "volume_sample_grad_v",
                          "volume_sample_grad_v4f", "volume_sample_grad_v4d", "volume_sample_grad_index")}}
# internal typed builtins that kernels reach through a generic spelling (wp.volume_sample(dtype=...))
GENERIC_SPELLING = {"volume_sample_v4f": "volume_sample", "volume_sample_v4d": "volume_sample",
                    "volume_sample_grad_v4f": "volume_sample_grad", "volume_sample_grad_v4d": "volume_sample_grad"}


def all_cases(scalar=wp.float64):
    """(cases, uncovered signatures) for every differentiable overload in the registry, with
    float arguments of type ``scalar``."""
    cases, uncovered = [], []
    for name in sorted(registry):
        for k, ov in enumerate(registry[name].overloads):
            if not ov.differentiable or ov.signature() in UNREACHABLE or \
                    ov.group in STRUCTURE_GRADIENT_TESTS or name in OWN_GRADIENT_TESTS:
                continue
            uses_array = any(isinstance(p, array_type) or getattr(p, "name", "") == "Array"
                             for p in ov.input_types.values())
            case = array_case(ov, k, scalar) if uses_array else builtin_case(ov, k, scalar)
            if case is None:
                uncovered.append(ov.signature())
            else:
                cases.append(case)
    return cases, uncovered


# --- source generation --------------------------------------------------------------------------
def kernel_name(case_index):
    return f"k_case_{case_index}"


def module_source(cases):
    """The text of one Python module holding every case's kernel."""
    lines = ["import warp_interactive as wp", ""]
    for ci, case in enumerate(cases):
        sig = ", ".join(f"{p.name}: _A{ci}_{j}" for j, p in enumerate(case.params))
        lines += ["@wp.kernel", f"def {kernel_name(ci)}({sig}):", "    i = wp.tid()"]
        lines += [f"    {b.replace('_LT', f'_L{ci}_')}" for b in case.body] + [""]
    return "\n".join(lines) + "\n"


def module_types(cases):
    ns = {}
    for ci, case in enumerate(cases):
        for j, p in enumerate(case.params):
            ns[f"_A{ci}_{j}"] = p.type
        for name, t in case.local_types.items():
            ns[name.replace("_LT", f"_L{ci}_")] = t
    return ns
