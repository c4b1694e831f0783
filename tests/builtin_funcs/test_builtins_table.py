"""Every registered, exported builtin overload, called in a kernel on the CPU and compared with a
NumPy/SciPy reference (tests/support/builtin_refs.py).

The table is built from the registry: each overload's generic input patterns are made concrete
over the dtypes and shapes where the overload accepts them (the registry's own type rules
decide), so a new builtin without a reference entry fails ``test_every_builtin_has_a_reference``.
All cases of one group are kernels of one generated module, compiled once per session.
"""

import ctypes
import importlib.util
import itertools
import os
import sys


import numpy as np
import pytest

import warp_interactive as wp
from warp_interactive.lang.builtins import registry as reg
from warp_interactive.types import composite as comp
from warp_interactive.types import scalars as sc
from warp_interactive.types.array import array as array_type

from builtin_refs import N_THREADS, REFS, same_quat
from paths import path_of_test

# names the table does not call through the generic kernel (tested in their own tests below)
ATOMICS = ("atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_exch", "atomic_cas",
           "atomic_and", "atomic_or", "atomic_xor")
DTYPES = (sc.float32, sc.float64, sc.float16, sc.bfloat16, sc.int32, sc.uint8)
# bfloat16 keeps 8 significant bits (float16 11): its rounding error is 8 times float16's
TOL = {sc.float16: 3e-2, sc.bfloat16: 2.4e-1, sc.float32: 2e-4, sc.float64: 1e-9}
VEC_LENGTHS = (3, 2, 4, 6)
MAT_SHAPES = ((3, 3), (2, 2), (4, 4), (3, 2), (2, 3), (6, 6))


# --- concretising overloads -------------------------------------------------------------------------
def _pool(pattern, d):
    """The concrete types an argument pattern may take with scalar type ``d``."""
    if not isinstance(pattern, reg.Pattern):
        return [pattern]
    if pattern is reg.Index:   # an index is an int32 whatever the other arguments' scalar type
        return [sc.int32]
    name = pattern.name
    if name in ("Scalar", "Float", "Int"):
        return [d]
    if name in ("Vector", "FloatVector", "IntVector"):
        return [comp.vector(n, d) for n in VEC_LENGTHS]
    if name in ("Matrix", "FloatMatrix", "IntMatrix"):
        return [comp.matrix(s, d) for s in MAT_SHAPES]
    if name == "Quaternion":
        return [comp.quaternion(d)] if sc.is_float(d) else []
    if name == "Transformation":
        return [comp.transformation(d)] if sc.is_float(d) else []
    if name == "Any":
        return [d, comp.vector(3, d)]
    if name == "bool":
        return [sc.bool_]
    if name == "Condition":
        return [sc.bool_, sc.int32]
    if name == "Array":
        return [array_type(dtype=d)]
    if name == "Index":
        return [sc.int32]
    return []


def concrete_cases(ov, per_dtype=2):
    """(arg types, return type) pairs at which ``ov`` is tested."""
    counts = [2, 3] if ov.variadic else [len(ov.input_types)]
    out, seen = [], set()
    for d in DTYPES:
        found = []
        for n in counts:
            pats = ov.patterns(n)
            for types in itertools.product(*[_pool(p, d) for p in pats]):
                try:
                    ret = ov.match(list(types))
                except reg.TypeMismatch:
                    continue
                key = tuple(id(t) for t in types)
                if key not in seen:
                    seen.add(key)
                    found.append((list(types), ret))
        if found:
            # the first and the last match: square and non-square shapes, short and long vectors
            wide = per_dtype > 1 and len(found) > 1 and d is sc.float32
            out += [found[0]] + ([found[-1]] if wide else [])
        if found and d is sc.float32 and not any(isinstance(p, reg.Pattern) and p.name != "Index"
                                                 for p in ov.patterns(counts[0])):
            break  # concrete signature: one case is all there is
    return out


# Builtins that query a structure built in Python scope (meshes, BVHs, hash grids, volumes) need
# that structure, not random inputs: they are checked against brute force in these files, and
# test_structure_builtins_are_tested_elsewhere makes sure each is called there.
STRUCTURE_GROUPS = {"Geometry": ("test_geometry.py", "test_geometry_compat.py"),
                    "Volumes": ("test_volume.py", "test_geometry_compat.py")}


# builtins that write into arrays they are given (indices into them must be consistent, so random
# inputs would write out of bounds): each has its own test in the named file
OWN_TESTS = {"spatial_jacobian": "test_builtins_extra.py", "spatial_mass": "test_builtins_extra.py",
             "breakpoint": "test_builtins_extra.py",   # (its CUDA build error would take the module)
             **{n: "test_dense_builtins.py" for n in ("dense_gemm", "dense_gemm_batched", "dense_chol",
                                                      "dense_chol_batched", "dense_subs", "dense_solve",
                                                      "dense_solve_batched")}}


def exported_overloads():
    for name, b in sorted(reg.registry.items()):
        for ov in b.overloads:
            if ov.export and not ov.hidden and ov.group not in STRUCTURE_GROUPS and name not in OWN_TESTS:
                yield name, ov


def table_cases():
    cases, later = [], []
    for name, ov in exported_overloads():
        if name in ATOMICS:
            continue
        # integer-vector overloads (added later) go last: the cases before them keep their index,
        # which seeds their random inputs (a new overload must not redraw every other case's)
        into = later if any(isinstance(p, reg.Pattern) and p.name in ("IntVector", "IntMatrix")
                            for p in ov.input_types.values()) else cases
        for types, ret in concrete_cases(ov):
            into.append((name, ov, types, ret))
    return cases + later


def _group(name):
    return reg.registry[name].overloads[0].group


# --- inputs -------------------------------------------------------------------------------------------
def _np_values(d):
    """The NumPy dtype values of scalar type ``d`` are drawn in (bfloat16: float32, rounded to
    bfloat16 by _round_bf16, so the reference sees exactly the kernel's inputs)."""
    return np.dtype(np.float32) if d is sc.bfloat16 else np.dtype(wp.dtype_to_numpy(d))


def _round_bf16(v):
    return sc.bfloat16_bits_to_float32(sc.float32_to_bfloat16_bits(v))


def _scalar_values(d, domain, n, rng):
    npd = _np_values(d)
    if domain == "state":
        return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    if npd.kind in "iu":
        lo, hi = {"begin": (0, 3), "end": (3, 6), "nonzero": (1, 10), "small": (0, 5), "shift": (0, 8), "lo_int": (-5, 1),
                  "hi_int": (1, 11), "period": (1, 6), "octaves": (1, 4), "pos": (1, 10),
                  "lo": (-5, 0), "hi": (1, 6)}.get(domain, (-9, 10))
        if npd.kind == "u" and lo < 0:
            lo, hi = (0, 1) if domain in ("lo", "lo_int") else (0, 20)
        v = rng.integers(lo, hi, n)
        if domain == "nonzero" and npd.kind == "i":
            v = v * rng.choice([-1, 1], n)
        return v.astype(npd)
    lo, hi = {"pos": (0.1, 3.0), "unit": (-0.9, 0.9), "t01": (0.0, 1.0), "lo": (-2.0, -0.5),
              "hi": (0.5, 2.0), "wide": (-10.0, 10.0), "lac": (1.5, 2.5), "gain": (0.3, 0.7),
              "lam": (0.5, 60.0), "erfc": (0.01, 1.99), "tiny": (1e-7, 1e-6)}.get(domain, (-2.0, 2.0))
    v = rng.uniform(lo, hi, n)
    if domain == "nonzero":
        v = rng.uniform(0.5, 2.0, n) * rng.choice([-1, 1], n)
    if domain == "special":
        v[rng.random(n) < 0.2] = np.nan
        v[rng.random(n) < 0.2] = np.inf * rng.choice([-1, 1])
    return v.astype(npd)


def _composite_values(t, domain, n, rng):
    from scipy.spatial.transform import Rotation
    d = t._wp_scalar_type_
    npd = _np_values(d)
    kind = t._kind_
    if kind == "quaternion":
        q = rng.normal(size=(n, 4))
        return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(npd)
    if kind == "transform":
        q = rng.normal(size=(n, 4))
        return np.concatenate([rng.uniform(-2, 2, (n, 3)), q / np.linalg.norm(q, axis=1, keepdims=True)],
                              1).astype(npd)
    shape = (n,) + tuple(t._shape_)
    if kind == "matrix" and domain == "rot":   # a rotation (4x4: in the upper-left block, noise around)
        r = t._shape_[0]
        m = rng.uniform(-2, 2, (n, r, r))
        m[:, :3, :3] = Rotation.random(n, random_state=1).as_matrix()
        return m.astype(npd)
    if kind == "matrix" and domain in ("trs", "rt") and t._shape_ == (4, 4):   # 4x4 rigid (scaled)
        m = np.zeros((n, 4, 4))
        scale = rng.uniform(0.5, 2.0, (n, 1, 3)) if domain == "trs" else 1.0
        m[:, :3, :3] = Rotation.random(n, random_state=rng.integers(1 << 30)).as_matrix() * scale
        m[:, :3, 3], m[:, 3, 3] = rng.uniform(-2, 2, (n, 3)), 1
        return m.astype(npd)
    flat = _scalar_values(d, domain if domain in ("nonzero", "special", "pos", "shift") else "any",
                          int(np.prod(shape)), rng).reshape(shape)
    if kind == "vector" and domain == "unitvec":
        flat = (flat / np.linalg.norm(flat.astype(np.float64), axis=-1, keepdims=True)).astype(npd)
    if kind == "matrix" and domain in ("wellcond", "sym"):
        r = t._shape_[0]
        flat = flat + (4.0 * np.eye(r) if domain == "wellcond" else 0)
        if domain == "sym":
            flat = flat + np.swapaxes(flat, 1, 2)
        flat = flat.astype(npd)
    return flat


def draw(t, domain, n, rng):
    """NumPy values (batch of n) for an argument of type ``t``."""
    v = _draw(t, domain, n, rng)
    s = reg.scalar_of(t.dtype if isinstance(t, array_type) else t)
    return _round_bf16(v) if s is sc.bfloat16 else v


def _draw(t, domain, n, rng):
    if isinstance(t, array_type):
        if domain == "sorted":
            return np.sort(_scalar_values(t.dtype, "any", 5, rng))
        if domain == "cdf":
            w = rng.uniform(0.1, 1.0, 8)
            return (np.cumsum(w) / w.sum()).astype(np.float32)
        return _scalar_values(t.dtype, "any", 5, rng)
    if t is sc.bool_:
        return rng.random(n) < 0.5
    if sc.is_scalar(t):
        return _scalar_values(t, domain, n, rng)
    return _composite_values(t, domain, n, rng)


def draw_args(spec, types, n, rng):
    domains = list(spec.get("domain", ())) + ["any"] * len(types)
    args = [draw(t, dom, n, rng) for t, dom in zip(types, domains)]
    if "eqhalf" in domains[:len(types)] and types[0] is types[1]:
        same = rng.random(n) < 0.5
        args[1][same] = args[0][same]
    if "axes" in spec:   # an axis sequence (i, j, k) per thread: i != j, j != k
        from builtin_refs_extra import AXIS_SEQUENCES
        seqs = AXIS_SEQUENCES[rng.integers(0, len(AXIS_SEQUENCES), n)]
        for col, pos in enumerate(spec["axes"]):
            args[pos] = seqs[:, col].astype(args[pos].dtype)
    return args


# --- generated kernels ------------------------------------------------------------------------------
def spec_of(name, ret):
    """The reference entry of a call; a tuple-returning form has its own (``name/tuple``)."""
    return REFS[name + "/tuple"] if isinstance(ret, tuple) else REFS[name]


def _results(ret):
    return list(ret) if isinstance(ret, tuple) else ([] if ret is None else [ret])


def kernel_source(k, name, types, ret, spec):
    outs, muts = spec.get("out", ()), spec.get("mutates", ())
    params = [f"a{j}: wp.array(dtype=T_{k}_{j})" if not isinstance(t, array_type) else
              f"a{j}: wp.array(dtype=T_{k}_{j}.dtype)" for j, t in enumerate(types)]
    body, call_args = ["    i = wp.tid()"], []
    for j, t in enumerate(types):
        if isinstance(t, array_type):
            call_args.append(f"a{j}")
            continue
        if j in outs:
            body.append(f"    v{j} = T_{k}_{j}({'0' if sc.is_scalar(t) else ''})")
        else:
            body.append(f"    v{j} = a{j}[i]")
        call_args.append(f"v{j}")
    call = f"wp.{name}({', '.join(call_args)})"
    results = [(f"res{m}", f"R_{k}_{m}") for m in range(len(_results(ret)))]
    if results:
        body.append(f"    {', '.join(r for r, _ in results)} = {call}")
    else:
        body.append(f"    {call}")
    results += [(f"v{j}", f"T_{k}_{j}") for j in list(outs) + list(muts)]
    for m, (var, tname) in enumerate(results):
        params.append(f"r{m}: wp.array(dtype={tname})")
        body.append(f"    r{m}[i] = {var}")
    return "\n".join([f"@wp.kernel", f"def case_{k}({', '.join(params)}):"] + body) + "\n"


class TableModules:
    """One generated Python module (= one compiled module) per builtin group."""

    def __init__(self, folder):
        self.folder = folder
        self.cases = CASES
        self.modules = {}

    def module_for(self, group):
        if group not in self.modules:
            self.modules[group] = self._build(group)
        return self.modules[group]

    def _build(self, group):
        names, src = {}, ["import warp_interactive as wp\n"]
        for k, (name, ov, types, ret) in enumerate(self.cases):
            if _group(name) != group:
                continue
            spec = spec_of(name, ret) if name in REFS else {}
            src.append(kernel_source(k, name, types, ret, spec))
            names.update({f"T_{k}_{j}": t for j, t in enumerate(types)})
            names.update({f"R_{k}_{m}": r for m, r in enumerate(_results(ret))})
        mod_name = "wpi_table_" + "".join(c if c.isalnum() else "_" for c in group.lower())
        path = os.path.join(self.folder, mod_name + ".py")
        with open(path, "w") as f:
            f.write("\n\n".join(src))
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        module.__dict__.update(names)
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
        return module


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return TableModules(str(tmp_path_factory.mktemp("builtin_table")))


def _case_id(case):
    name, ov, types, ret = case
    return f"{name}({','.join(reg.type_name(t) for t in types)})"


CASES = table_cases()


def _to_wp(values, t):
    return wp.array(values, dtype=t)


def _compare(name, got, want, d, spec):
    tol = TOL.get(d, 0) * spec.get("tol", 1)
    got = np.asarray(got)
    want = np.asarray(want)
    if spec.get("quat_sign"):
        got, want = same_quat(got.astype(np.float64), want.astype(np.float64))
    if spec.get("period"):   # an angle: near the ends of its range either end is right
        p = spec["period"]
        want = got + (want - got + p / 2) % p - p / 2
    if got.dtype.kind in "biu":
        if want.dtype.kind == "f":   # an integer result computed in floating point (determinant)
            want = np.rint(want).astype(np.int64)
        np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=name)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol,
                                   equal_nan=True, err_msg=name)


def _decoded(a):
    """A bfloat16 array's values as float64 (NumPy has no bfloat16: numpy() gives ml_dtypes'
    bfloat16 or the uint16 bits; either way its bits, decoded here)."""
    return sc.bfloat16_bits_to_float32(np.asarray(a.numpy()).view(np.uint16)).astype(np.float64)


def run_case(table, k, case):
    name, ov, types, ret = case
    spec = spec_of(name, ret)
    module = table.module_for(_group(name))
    n = spec.get("n", N_THREADS)
    rng = np.random.default_rng(k)
    args = draw_args(spec, types, n, rng)
    inputs = [_to_wp(a, t.dtype if isinstance(t, array_type) else t) for a, t in zip(args, types)]
    out_types = _results(ret) + [types[j] for j in spec.get("out", ())] + \
        [types[j] for j in spec.get("mutates", ())]
    outs = [wp.zeros(n, dtype=t) for t in out_types]
    wp.launch(getattr(module, f"case_{k}"), dim=n, inputs=inputs + outs)
    got = [_decoded(o) if reg.scalar_of(o.dtype) is sc.bfloat16 else o.numpy() for o in outs]
    d = reg.scalar_of(ret) if not isinstance(ret, tuple) and reg.scalar_of(ret) is not None else \
        next((reg.scalar_of(t) for t in types if reg.scalar_of(t) is not None), sc.float32)
    ref_args = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in args]
    if "check" in spec:
        spec["check"](types, ref_args, got, max(TOL.get(d, 1e-6), 1e-6) * spec.get("tol", 1))
        return
    want = spec["ref"](types, *ref_args)
    want = list(want) if isinstance(want, tuple) else [want]
    assert len(want) == len(got), f"{name}: reference gives {len(want)} results, kernel {len(got)}"
    for g, w in zip(got, want):
        _compare(name, g, w, d, spec)


PRINTING = [k for k, c in enumerate(CASES) if "fails" in REFS.get(c[0], {})]


@pytest.mark.parametrize("k", [k for k in range(len(CASES)) if k not in PRINTING],
                         ids=[_case_id(c) for k, c in enumerate(CASES) if k not in PRINTING])
def test_builtin(table, k):
    run_case(table, k, CASES[k])


@pytest.mark.parametrize("k", PRINTING, ids=[_case_id(CASES[k]) for k in PRINTING])
def test_printing_builtin(table, k, capfd):
    """expect_eq / expect_neq / expect_near print one line per thread whose expectation fails."""
    name, ov, types, ret = CASES[k]
    spec = REFS[name]
    module = table.module_for(_group(name))
    args = draw_args(spec, types, N_THREADS, np.random.default_rng(k))
    capfd.readouterr()
    wp.launch(getattr(module, f"case_{k}"), dim=N_THREADS, inputs=[_to_wp(a, t) for a, t in zip(args, types)])
    ctypes.CDLL(None).fflush(None)
    lines = [ln for ln in capfd.readouterr().out.splitlines() if ln.startswith(f"{name} failed: ")]
    want = spec["fails"](types, *[a.astype(np.float64) if a.dtype.kind == "f" else a for a in args])
    assert 0 < want.sum() < N_THREADS, "the inputs should mix passing and failing threads"
    assert len(lines) == want.sum(), (len(lines), int(want.sum()))


def test_every_builtin_has_a_reference():
    names = {name for name, ov in exported_overloads()}
    missing = sorted(names - set(REFS) - set(ATOMICS))
    assert not missing, f"builtins without a reference in tests/support/builtin_refs.py: {missing}"


def test_every_exported_overload_is_tested():
    """Each exported overload is reached by at least one concrete case (or is an atomic)."""
    covered = {id(c[1]) for c in CASES}
    untested = [ov.signature() for name, ov in exported_overloads()
                if name not in ATOMICS and id(ov) not in covered]
    assert not untested, f"overloads no dtype/shape reaches: {untested}"


# --- atomics: their own table (the results depend on every thread, not one) -------------------------------
ATOMIC_SCALARS = (sc.float32, sc.float64, sc.float16, sc.bfloat16, sc.int8, sc.uint8, sc.int16, sc.uint16,
                  sc.int32, sc.uint32, sc.int64, sc.uint64)
ATOMIC_COMPOSITES = (comp.vector(3, sc.float32), comp.matrix((2, 2), sc.float64), comp.vector(2, sc.int32))


def atomic_cases():
    """(name, ndim, dtype) for every atomic overload (one per array rank) and element type."""
    cases = []
    for name in ATOMICS:
        for ov in reg.registry[name].overloads:
            ndim = sum(1 for p in ov.input_types.values() if p is reg.Index)
            dtypes = ATOMIC_SCALARS + (ATOMIC_COMPOSITES if name != "atomic_cas" else ()) \
                if ndim == 1 else (sc.float32, sc.int32)
            for d in dtypes:
                try:   # where the registry accepts the element type (bitwise: integers only)
                    ov.match([array_type(dtype=d, ndim=ndim)] + [sc.int32] * ndim +
                             [d] * (len(ov.input_types) - ndim - 1))
                except reg.TypeMismatch:
                    continue
                cases.append((name, ndim, d))
    for op in ("+=", "-="):      # the augmented-assignment spelling compiles to atomics too
        for d in (sc.float32, sc.int32, comp.vector(3, sc.float32)):
            cases.append((op, 1, d))
    return cases


ATOMIC_CASES = atomic_cases()


def atomic_source(k, name, ndim, d):
    idx = ", ".join(f"i{j}[t]" for j in range(ndim))
    params = [f"arr: wp.array(dtype=D_{k}, ndim={ndim})"] + [f"i{j}: wp.array(dtype=int)" for j in range(ndim)]
    params += [f"cmp: wp.array(dtype=D_{k})", f"vals: wp.array(dtype=D_{k})", f"olds: wp.array(dtype=D_{k})"]
    if name in ("+=", "-="):
        body = f"    arr[{idx}] {name} vals[t]"
    elif name == "atomic_cas":
        body = f"    olds[t] = wp.atomic_cas(arr, {idx}, cmp[t], vals[t])"
    else:
        body = f"    olds[t] = wp.{name}(arr, {idx}, vals[t])"
    return f"@wp.kernel\ndef atomic_{k}({', '.join(params)}):\n    t = wp.tid()\n{body}\n"


@pytest.fixture(scope="module")
def atomic_module(tmp_path_factory):
    path = tmp_path_factory.mktemp("atomic_table") / "wpi_table_atomics.py"
    path.write_text("import warp_interactive as wp\n\n" + "\n\n".join(
        atomic_source(k, *c) for k, c in enumerate(ATOMIC_CASES)))
    spec = importlib.util.spec_from_file_location("wpi_table_atomics", str(path))
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update({f"D_{k}": c[2] for k, c in enumerate(ATOMIC_CASES)})
    sys.modules["wpi_table_atomics"] = module
    spec.loader.exec_module(module)
    return module


def _atomic_values(d, shape, rng, distinct=False):
    s = d._wp_scalar_type_ if comp.is_composite(d) else d
    extra = tuple(d._shape_) if comp.is_composite(d) else ()
    npd = _np_values(s)   # bfloat16: float32 values (integers up to 256 are exact in bfloat16)
    if distinct:
        return (np.arange(shape[0]) + 1).astype(npd)
    return rng.integers(0, 10, shape + extra).astype(npd)  # small integers: exact sums in any order


@pytest.mark.parametrize("k", range(len(ATOMIC_CASES)),
                         ids=[f"{n}-{nd}d-{reg.type_name(d)}" for n, nd, d in ATOMIC_CASES])
def test_atomic(atomic_module, k):
    name, ndim, d = ATOMIC_CASES[k]
    n, rng = 64, np.random.default_rng(1000 + k)
    shape = (3,) * ndim
    cas = name == "atomic_cas"
    init = np.zeros(shape, dtype=_np_values(reg.scalar_of(d))) if cas else _atomic_values(d, shape, rng)
    idx = [rng.integers(0, 3, n).astype(np.int32) for _ in range(ndim)]
    vals = _atomic_values(d, (n,), rng, distinct=cas)
    arr = wp.array(init, dtype=d)
    olds = wp.zeros(n, dtype=d)
    cmp = wp.zeros(n, dtype=d)
    wp.launch(getattr(atomic_module, f"atomic_{k}"), dim=n,
              inputs=[arr, *[wp.array(i, dtype=wp.int32) for i in idx], cmp, wp.array(vals, dtype=d), olds])
    got, old = (_decoded(a) if reg.scalar_of(d) is sc.bfloat16 else a.numpy() for a in (arr, olds))
    where = tuple(idx)
    ref = init.copy()
    if name in ("atomic_add", "+="):
        np.add.at(ref, where, vals)
    elif name in ("atomic_sub", "-="):
        np.subtract.at(ref, where, vals)
    elif name == "atomic_min":
        np.minimum.at(ref, where, vals)
    elif name == "atomic_max":
        np.maximum.at(ref, where, vals)
    elif name in ("atomic_and", "atomic_or", "atomic_xor"):
        getattr(np, "bitwise_" + name[7:]).at(ref, where, vals)
    if name in ("atomic_exch", "atomic_cas"):
        _check_exchanges(name, init, idx, vals, got, old)
    else:
        np.testing.assert_array_equal(got, ref)


def _check_exchanges(name, init, idx, vals, got, old):
    """Per element, the old values returned and the final value account for every write once."""
    flat = np.ravel_multi_index(tuple(idx), init.shape[:len(idx)])
    init_f = init.reshape((-1,) + init.shape[len(idx):])
    got_f = got.reshape(init_f.shape)
    for e in range(len(init_f)):
        mine = np.nonzero(flat == e)[0]
        if name == "atomic_exch":
            seen = sorted(map(_key, list(old[mine]) + [got_f[e]]))
            assert seen == sorted(map(_key, list(vals[mine]) + [init_f[e]])), e
        elif len(mine):   # cas(compare=0): exactly one thread finds the 0 and writes its value
            winners = mine[old[mine] == 0]
            assert len(winners) == 1 and got_f[e] == vals[winners[0]], e
            assert np.all(old[mine[old[mine] != 0]] == got_f[e])
        else:
            assert got_f[e] == init_f[e]


def _key(v):
    return tuple(np.ravel(v).tolist())


# --- adjoints of the builtins with out-parameters (central differences, float64) ---------------------------
@wp.kernel
def decompositions_loss(a: wp.array(dtype=wp.mat33d), w: wp.array(dtype=wp.mat33d),
                        out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    A = a[i]
    W = w[i]
    U = wp.mat33d()
    s = wp.vec3d()
    V = wp.mat33d()
    wp.svd3(A, U, s, V)
    Q = wp.mat33d()
    d = wp.vec3d()
    wp.eig3(A + wp.transpose(A), Q, d)
    Qr = wp.mat33d()
    R = wp.mat33d()
    wp.qr3(A, Qr, R)
    axis = wp.vec3d()
    angle = wp.float64(0.0)
    wp.quat_to_axis_angle(wp.quat_rpy(A[0, 0], A[0, 1], A[0, 2]), axis, angle)
    l_svd = wp.ddot(U, W) + wp.dot(s, wp.get_diag(W)) + wp.ddot(V, wp.transpose(W))
    l_eig = wp.ddot(Q, W) + wp.dot(d, wp.vec3d(1.0, 2.0, 3.0))
    l_qr = wp.ddot(Qr, W) + wp.ddot(R, wp.cw_mul(W, W))
    out[i] = l_svd + 0.7 * l_eig + 1.3 * l_qr + wp.dot(axis, wp.vec3d(1.0, 2.0, 3.0)) + angle


def test_decomposition_adjoints_match_central_differences():
    rng = np.random.default_rng(1)
    A = rng.uniform(-1, 1, (3, 3, 3)) + 2 * np.eye(3)   # distinct singular values and eigenvalues
    W = wp.array(rng.uniform(-1, 1, (3, 3, 3)), dtype=wp.mat33d)

    def loss(values, grad=False):
        a = wp.array(values, dtype=wp.mat33d, requires_grad=True)
        out = wp.zeros(3, dtype=wp.float64, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(decompositions_loss, dim=3, inputs=[a, W, out])
        if not grad:
            return out.numpy().sum()
        tape.backward(grads={out: wp.array(np.ones(3), dtype=wp.float64)})
        return a.grad.numpy()

    h, fd = 1e-6, np.zeros_like(A)
    for idx in np.ndindex(A.shape):
        e = np.zeros_like(A)
        e[idx] = h
        fd[idx] = (loss(A + e) - loss(A - e)) / (2 * h)
    np.testing.assert_allclose(loss(A, grad=True), fd, rtol=1e-6, atol=1e-6)


def test_builtins_with_their_own_tests_are_called_there():
    missing = [n for n, f in OWN_TESTS.items() if f"wp.{n}(" not in path_of_test(f).read_text()]
    assert not missing, missing


def test_structure_builtins_are_tested_elsewhere():
    """Every mesh/BVH/hash-grid/volume builtin is called by its brute-force test file."""
    missing = []
    for name, b in sorted(reg.registry.items()):
        files = STRUCTURE_GROUPS.get(b.overloads[0].group)
        if files and any(ov.export for ov in b.overloads):
            text = "".join(path_of_test(f).read_text() for f in files)
            if f"wp.{name}(" not in text:
                missing.append(name)
    assert not missing, f"structure builtins no test calls: {missing}"
