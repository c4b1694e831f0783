"""Gradient checks for users: Jacobians by the tape (one ``tape.backward(grads=...)`` per output
component, the reference's recipe) and by central finite differences, and ``gradcheck`` comparing
the two.

    import warp_interactive as wp
    ok = wp.autograd.gradcheck(my_kernel, dim=n, inputs=[x, params], outputs=[y])

``function`` is a ``@wp.kernel`` (launched with ``dim``, ``inputs`` and ``outputs``) or a Python
callable taking no arguments that launches kernels reading ``inputs`` and writing ``outputs``.
Outputs are restored to their starting values before every evaluation, so kernels that
accumulate into them (``wp.atomic_add``) are checked correctly.
"""

import numpy as np

from .runtime.launch import launch
from .runtime.tape import Tape


def _flat(a):
    """The array's values (all components) as a flat float64 NumPy copy."""
    return np.array(a.numpy(), dtype=np.float64).reshape(-1)   # a copy, never a view


def _set_flat(a, values):
    a.assign(values.reshape(a.numpy().shape).astype(a.numpy().dtype))


def _runner(function, dim, inputs, outputs, device):
    from .lang.definitions.kernel import Kernel
    if isinstance(function, Kernel):
        if dim is None:
            raise ValueError("gradcheck/jacobian of a kernel needs its launch dim")
        return lambda record=True: launch(function, dim=dim, inputs=list(inputs),
                                          outputs=list(outputs), device=device, record_tape=record)
    if callable(function):
        return lambda record=True: function()
    raise TypeError(f"expected a @wp.kernel or a callable, got {type(function).__name__}")


def _float_arrays(arrays, role):
    out = []
    for i, a in enumerate(arrays):
        if not hasattr(a, "ptr"):
            continue     # scalars and structs: not differentiated
        kind = np.asarray(a.numpy()).dtype.kind
        if kind == "f":
            out.append((i, a))
    if not out:
        raise ValueError(f"gradcheck: no float array among the {role}")
    return out


def jacobian(function, dim=None, inputs=(), outputs=(), input_output_mask=None, device=None):
    """Jacobians by the tape: ``{(input index, output index): array (out size, in size)}``.

    One reverse pass per output component: ``tape.backward(grads={output: e_j})`` gives row j.
    ``input_output_mask`` (a list of (input index, output index) pairs) limits the pairs."""
    ins, outs = _float_arrays(inputs, "inputs"), _float_arrays(outputs, "outputs")
    missing = [i for i, a in ins + outs if a.grad is None]
    if missing:
        raise ValueError("jacobian: every float input and output array needs requires_grad=True")
    start = [_flat(a) for _, a in outs]
    tape = Tape()
    with tape:
        _runner(function, dim, inputs, outputs, device)()
    result = {}
    for (oi, o), o0 in zip(outs, start):
        pairs = [(ii, a) for ii, a in ins if input_output_mask is None or (ii, oi) in input_output_mask]
        if not pairs:
            continue
        rows = {ii: np.zeros((o0.size, _flat(a).size)) for ii, a in pairs}
        for j in range(o0.size):
            seed = np.zeros(o0.size)
            seed[j] = 1.0
            tape.backward(grads={o: seed.reshape(o.numpy().shape).astype(o.numpy().dtype)})
            for ii, a in pairs:
                rows[ii][j] = _flat(a.grad)
            tape.zero()
        for ii in rows:
            result[(ii, oi)] = rows[ii]
    return result


def jacobian_fd(function, dim=None, inputs=(), outputs=(), input_output_mask=None, eps=1e-4,
                device=None):
    """Jacobians by central finite differences (same layout as ``jacobian``)."""
    ins, outs = _float_arrays(inputs, "inputs"), _float_arrays(outputs, "outputs")
    run = _runner(function, dim, inputs, outputs, device)
    start = [_flat(a) for _, a in outs]

    def evaluate():
        for (_, o), o0 in zip(outs, start):
            _set_flat(o, o0)
        run(False)
        return [_flat(o) for _, o in outs]

    result = {}
    for ii, a in ins:
        x0 = _flat(a)
        cols = [np.zeros((o0.size, x0.size)) for o0 in start]
        for k in range(x0.size):
            x = x0.copy()
            x[k] += eps
            _set_flat(a, x)
            up = evaluate()
            x[k] -= 2 * eps
            _set_flat(a, x)
            down = evaluate()
            for c, u, d in zip(cols, up, down):
                c[:, k] = (u - d) / (2 * eps)
        _set_flat(a, x0)
        for (oi, _), c in zip(outs, cols):
            if input_output_mask is None or (ii, oi) in input_output_mask:
                result[(ii, oi)] = c
    for (_, o), o0 in zip(outs, start):
        _set_flat(o, o0)
    return result


def gradcheck(function, dim=None, inputs=(), outputs=(), eps=1e-4, atol=1e-3, rtol=1e-2,
              raise_exception=True, input_output_mask=None, device=None, show_summary=False):
    """True if the tape's Jacobians match central finite differences within
    ``|ad - fd| <= atol + rtol * |fd|``; else False, or a ValueError naming the worst entry
    when ``raise_exception``."""
    fd = jacobian_fd(function, dim, inputs, outputs, input_output_mask, eps, device)
    ad = jacobian(function, dim, inputs, outputs, input_output_mask, device)
    worst = None
    for key, f in fd.items():
        a = ad[key]
        excess = np.abs(a - f) - (atol + rtol * np.abs(f))
        k = np.unravel_index(np.argmax(excess), excess.shape) if excess.size else None
        if k is not None and excess[k] > 0 and (worst is None or excess[k] > worst[0]):
            worst = (excess[k], key, k, a[k], f[k])
        if show_summary:
            err = np.max(np.abs(a - f)) if a.size else 0.0
            print(f"input {key[0]} -> output {key[1]}: max abs error {err:.3g}")
    if worst is None:
        return True
    _, (ii, oi), (row, col), a, f = worst
    msg = (f"gradient check failed: d output[{oi}] component {row} / d input[{ii}] component "
           f"{col} is {a:.6g} by the tape (adjoint) but {f:.6g} by finite differences "
           f"(atol={atol}, rtol={rtol})")
    if raise_exception:
        raise ValueError(msg)
    return False
