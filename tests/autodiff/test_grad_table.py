"""Every differentiable builtin overload of the registry: the generated adjoint (run through
``wp.Tape``) matches central finite differences, in float64 (tight) and float32 (loose).

The cases are made from the registry (see grad_table_cases.py), so builtins added later are
covered without editing this file; an overload flagged differentiable that cannot be made into a
case fails ``test_every_differentiable_overload_is_covered``. All kernels live in one generated
module, built once per session (one forward and one backward compile).
"""

import importlib.util
import sys

import numpy as np
import pytest

import warp_interactive as wp
from grad_table_cases import (GENERIC_SPELLING, OWN_GRADIENT_TESTS, PRECISION, STRUCTURE_GRADIENT_TESTS, all_cases,
                              kernel_name, module_source, module_types)

CASES, UNCOVERED = all_cases(wp.float64)
# float32 too (looser tolerances): the same adjoints instantiated for float
CASES += [c for c in all_cases(wp.float32)[0] if c.key not in {k.key for k in CASES}]


def test_every_differentiable_overload_is_covered():
    assert not UNCOVERED, ("differentiable builtins the gradient table cannot exercise (give them a "
                           "case in grad_table_cases.py, or flag them differentiable=False):\n  " +
                           "\n  ".join(UNCOVERED))


def test_table_is_not_empty():
    names = {c.key.split("[")[0] for c in CASES}
    # the core operators and math functions are all there
    for name in ("add", "mul", "div", "sqrt", "atan2", "dot", "cross", "inverse", "quat_rotate",
                 "transform_point", "load", "array_store", "atomic_add", "extract", "assign"):
        assert name in names


def _import_kernels(path, name, cases):
    path.write_text(module_source(cases))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__.update(module_types(cases))
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def kernel_of(tmp_path_factory):
    """case index -> kernel. All cases build as one module (one compile, with the adjoints);
    if that module does not build, each case gets a module of its own, so that a builtin whose
    code does not compile fails its own case only."""
    folder = tmp_path_factory.mktemp("grad_table")
    mod = _import_kernels(folder / "wpi_grad_table_kernels.py", "wpi_grad_table_kernels", CASES)
    try:
        from warp_interactive.runtime.module import get_module
        module = get_module(mod.__name__)
        module.load(wp.get_device("cpu"), backward=True)   # forward launches use it too
        return lambda ci: getattr(mod, kernel_name(ci))
    except (wp.CompileError, wp.CodegenError):
        pass
    singles = {}

    def single(ci):
        if ci not in singles:
            name = f"wpi_grad_table_case_{ci}"
            m = _import_kernels(folder / f"{name}.py", name, [CASES[ci]])
            singles[ci] = getattr(m, kernel_name(0))
        return singles[ci]
    return single


def _np_dtype(t):
    return wp.dtype_to_numpy(getattr(t, "_wp_scalar_type_", t))


def _make_arrays(case, rng):
    arrays, inputs, outputs = [], [], []
    for p in case.params:
        dtype = p.type.dtype
        if p.role == "in":
            a = wp.array(p.sampler(rng, p.shape).astype(_np_dtype(dtype)), dtype=dtype,
                         requires_grad=True)
            inputs.append((p.name, a))
        elif p.role == "const":
            a = wp.array(np.full(p.shape, p.value, dtype=_np_dtype(dtype)), dtype=dtype)
        else:
            inner = len(getattr(dtype, "_shape_", ()))
            a = wp.zeros(p.shape[:len(p.shape) - inner], dtype=dtype, requires_grad=True)
            outputs.append(a)
        arrays.append(a)
    return arrays, inputs, outputs


def _weighted_output(kernel, case, arrays, outputs, seeds):
    for o in outputs:
        o.zero_()
    wp.launch(kernel, dim=case.dim, inputs=arrays)
    return sum(float(np.sum(o.numpy() * s)) for o, s in zip(outputs, seeds))


@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
def test_adjoint_matches_finite_differences(case, kernel_of):
    kernel = kernel_of(CASES.index(case))
    eps, rtol, atol = PRECISION[case.scalar]
    rng = np.random.default_rng(7)
    arrays, inputs, outputs = _make_arrays(case, rng)
    seeds = [rng.uniform(0.5, 1.5, o.numpy().shape) for o in outputs]

    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=case.dim, inputs=arrays)
    tape.backward(grads={o: s for o, s in zip(outputs, seeds)})
    analytic = [a.grad.numpy().copy() for _, a in inputs]

    for (name, a), g in zip(inputs, analytic):
        base = a.numpy()            # shares the array's memory: perturb in place
        fd = np.zeros_like(g)
        flat, fd_flat = base.reshape(-1), fd.reshape(-1)
        for k in range(flat.size):
            x0 = flat[k]
            flat[k] = x0 + eps
            x_up = float(flat[k])          # the step as stored (float32 rounds it)
            up = _weighted_output(kernel, case, arrays, outputs, seeds)
            flat[k] = x0 - eps
            x_down = float(flat[k])
            down = _weighted_output(kernel, case, arrays, outputs, seeds)
            flat[k] = x0
            fd_flat[k] = (up - down) / (x_up - x_down)
        np.testing.assert_allclose(g, fd, rtol=rtol, atol=atol,
                                   err_msg=f"{case.key}: gradient of argument {name}")


def _gradient_checked_builtins(path):
    """wp.<name> calls in kernels that a test named *gradient* launches."""
    import ast
    tree = ast.parse(path.read_text())
    kernels = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("test"):
            kernels[node.name] = {n.func.attr for n in ast.walk(node) if isinstance(n, ast.Call)
                                  and isinstance(n.func, ast.Attribute)}
    used = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test") and "gradient" in node.name:
            for n in ast.walk(node):
                if isinstance(n, ast.Name) and n.id in kernels:
                    used |= kernels[n.id]
    return used


def test_structure_gradients_are_checked_elsewhere():
    from paths import path_of_test
    from warp_interactive.lang.builtins.registry import registry
    missing = []
    for name, b in sorted(registry.items()):
        for ov in b.overloads:
            f = OWN_GRADIENT_TESTS.get(name) or STRUCTURE_GRADIENT_TESTS.get(ov.group)
            spelling = GENERIC_SPELLING.get(name, name)
            if f and ov.differentiable and spelling not in _gradient_checked_builtins(path_of_test(f)):
                missing.append(ov.signature())
    assert not missing, f"differentiable structure builtins no gradient test reaches: {missing}"
