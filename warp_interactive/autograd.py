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
    used = [(ii, oi) for ii, _ in ins for oi, _ in outs
            if input_output_mask is None or (ii, oi) in input_output_mask]
    missing = [a for i, a in ins if a.grad is None and any(p[0] == i for p in used)]
    missing += [a for i, a in outs if a.grad is None and any(p[1] == i for p in used)]
    if missing:
        raise ValueError("jacobian: every float input and output array needs requires_grad=True")
    from .lang.definitions.kernel import Kernel
    if isinstance(function, Kernel) and not function.backward_enabled():
        raise ValueError("Kernel must have backward pass enabled to compute Jacobians")   # warp-lang's words
    start = [_flat(a) for _, a in outs]
    tape = Tape()
    with tape:
        _runner(function, dim, inputs, outputs, device)()
    # the tape would skip (with a warning) a kernel without adjoint: its Jacobian would read zero
    if any(e[0] == "launch" and not e[1].backward_enabled() for e in tape.launches):
        raise ValueError("Kernel must have backward pass enabled to compute Jacobians")
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


def _mask_indices(kernel, n_inputs, pairs):
    """warp-lang's input/output mask (argument names or indices) as (input, output) indices."""
    names = list(kernel.arg_types)
    out = []
    for i, o in pairs:
        i = names.index(i) if isinstance(i, str) else i
        o = names.index(o) - n_inputs if isinstance(o, str) else o
        out.append((i, o))
    return out


def _differentiable_pairs(inputs, outputs):
    """(input, output) index pairs of float arrays that both have gradients."""
    def grads(arrays):
        return [i for i, a in enumerate(arrays) if hasattr(a, "ptr") and getattr(a, "grad", None) is not None
                and np.asarray(a.numpy()).dtype.kind == "f"]
    return [(i, o) for i in grads(inputs) for o in grads(outputs)]


def gradcheck_tape(tape, *, eps=1e-4, atol=1e-3, rtol=1e-2, raise_exception=True, input_output_masks=None,
                   blacklist_kernels=None, whitelist_kernels=None, max_inputs_per_var=-1,
                   max_outputs_per_var=-1, plot_relative_error=False, plot_absolute_error=False,
                   show_summary=True, reverse_launches=False, skip_to_launch_index=0):
    """``gradcheck`` of every kernel launch recorded on ``tape`` (launched again with its
    recorded arguments), over the arrays with ``requires_grad=True``: True if all pass.
    ``input_output_masks``: {kernel key: [(input, output)]}, by argument name or index;
    ``whitelist_kernels``/``blacklist_kernels``: kernel keys to check only / to skip. Every input
    and output component is evaluated (``max_inputs_per_var``/``max_outputs_per_var`` are
    accepted; the plots are not drawn here: use ``jacobian_plot``)."""
    masks = input_output_masks or {}
    white, black = set(whitelist_kernels or ()), set(blacklist_kernels or ())
    entries = [e for e in tape.launches if e[0] == "launch"]
    ok = True
    for i, (_, kernel, dim, inputs, outputs, device) in enumerate(reversed(entries) if reverse_launches else entries):
        if i < skip_to_launch_index or (white and kernel.key not in white) or kernel.key in black:
            continue
        if not kernel.backward_enabled():    # no adjoint to check (warp-lang skips these too)
            continue
        pairs = _differentiable_pairs(inputs, outputs)
        if kernel.key in masks:
            wanted = set(_mask_indices(kernel, len(inputs), masks[kernel.key]))
            pairs = [p for p in pairs if p in wanted]
        if not pairs:
            continue
        if show_summary:
            print(f"kernel {kernel.key}:")
        ok = gradcheck(kernel, dim, inputs, outputs, eps=eps, atol=atol, rtol=rtol,
                       raise_exception=raise_exception, input_output_mask=pairs, device=device,
                       show_summary=show_summary) and ok
    return ok


def jacobian_plot(jacobians, kernel, inputs=None, show_plot=True, show_colorbar=True,
                  scale_colors_per_submatrix=False, title=None, colormap="coolwarm", log_scale=False):
    """The Jacobians of ``jacobian``/``jacobian_fd`` as one Matplotlib figure: a row per output,
    a column per input, each block labelled with the kernel's argument names; returns the figure."""
    from .lang.definitions.kernel import Kernel
    if isinstance(kernel, Kernel) and inputs is None:
        raise ValueError("inputs must be provided when kernel is a Warp kernel")
    import matplotlib.pyplot as plt
    from matplotlib.colors import SymLogNorm
    names = list(kernel.arg_types) if isinstance(kernel, Kernel) else []
    n_in = len(inputs) if inputs is not None else 0
    ins = sorted({k[0] for k in jacobians})
    outs = sorted({k[1] for k in jacobians})
    values = [np.asarray(j.numpy() if hasattr(j, "numpy") else j, dtype=np.float64) for j in jacobians.values()]
    lo = min((v.min() for v in values if v.size), default=0.0)
    hi = max((v.max() for v in values if v.size), default=0.0)
    fig, axes = plt.subplots(len(outs), len(ins), squeeze=False, figsize=(3 * len(ins) + 1, 3 * len(outs)))
    for r, o in enumerate(outs):
        for c, i in enumerate(ins):
            ax = axes[r][c]
            jac = jacobians.get((i, o))
            if jac is None:
                ax.axis("off")
                continue
            m = np.asarray(jac.numpy() if hasattr(jac, "numpy") else jac, dtype=np.float64)
            vmin, vmax = (m.min(), m.max()) if scale_colors_per_submatrix else (lo, hi)
            norm = SymLogNorm(linthresh=1e-6, vmin=vmin, vmax=vmax) if log_scale else None
            im = ax.imshow(m, cmap=colormap, norm=norm, **({} if log_scale else {"vmin": vmin, "vmax": vmax}))
            ax.set_xlabel(names[i] if i < len(names) else f"input {i}")
            ax.set_ylabel(names[n_in + o] if n_in + o < len(names) else f"output {o}")
            if show_colorbar:
                fig.colorbar(im, ax=ax)
    if title is not None:
        fig.suptitle(title)
    elif isinstance(kernel, Kernel):
        fig.suptitle(kernel.key)
    if show_plot:
        plt.show()
    return fig
