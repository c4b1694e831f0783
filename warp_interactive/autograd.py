"""``wp.autograd``: Jacobians by the tape and by central finite differences, gradient checks,
and a plot of Jacobians, with warp-lang 1.19's signatures and results.

    import warp_interactive as wp
    ok = wp.autograd.gradcheck(my_kernel, dim=n, inputs=[x, params], outputs=[y])
    jacs = wp.autograd.jacobian(pipeline, inputs=[x])      # pipeline(x) returns its output arrays

``function`` is a ``@wp.kernel`` (its ``inputs`` precede its ``outputs`` in its parameters; it is
launched with ``dim``) or a Python function called as ``function(*inputs)`` whose return value
(an array or a list of arrays) is its outputs. Only arrays with ``requires_grad=True`` take part.
A Jacobian is a ``wp.array`` of the input's dtype shaped (output components, input size): row r
is the gradient of the output's r-th scalar component with respect to every scalar of the input
(an input of vec3 has 3 scalars per element). Rows beyond ``max_outputs_per_var`` (tape) and
columns beyond ``max_inputs_per_var`` (finite differences) are NaN. Finite differences move one
input scalar by -eps and +eps (added to its value) and divide the outputs' difference by 2 eps in
the output's precision. For Python functions, the top-level array inputs are restored to their
values before each evaluation and on return (``restore_inputs``), their read marks included.
"""

import inspect
import itertools
import re

import numpy as np

from .runtime.launch import launch
from .runtime.tape import Tape
from .types import scalars as sc
from .types.array import array, clone

_NO_BACKWARD = "Kernel must have backward pass enabled to compute Jacobians"
_NO_OUTPUTS = "A list of output arguments must be provided to compute kernel Jacobians"


def _is_kernel(f):
    from .lang.definitions.kernel import Kernel
    return isinstance(f, Kernel)


def _is_array(x):
    return isinstance(x, array) and not x.is_annotation


def _components(dtype):
    """Scalars per element of ``dtype`` (None when it has no fixed count, e.g. Any)."""
    if sc.is_scalar(dtype):
        return 1
    return getattr(dtype, "_length_", None)


def _scalars(a):
    """The array's values as a flat NumPy copy in its scalar dtype."""
    return np.array(a.numpy()).reshape(-1)


def _set_scalars(a, flat):
    a.assign(np.asarray(flat).reshape(a.numpy().shape))


class FunctionMetadata:
    """What the checks and plots know of a kernel or function: its name, the labels of its inputs
    and outputs, and their strides and dtypes (None for arguments that are not arrays)."""

    def __init__(self, key=None, input_labels=None, output_labels=None, input_strides=None,
                 output_strides=None, input_dtypes=None, output_dtypes=None):
        self.key = key
        self.input_labels, self.output_labels = input_labels, output_labels
        self.input_strides, self.output_strides = input_strides, output_strides
        self.input_dtypes, self.output_dtypes = input_dtypes, output_dtypes

    @property
    def is_empty(self):
        return self.key is None

    def input_is_array(self, i):
        return self.input_dtypes[i] is not None

    def output_is_array(self, i):
        return self.output_dtypes[i] is not None

    def update_from_kernel(self, kernel, inputs, outputs=None):
        """From the kernel's parameters; the outputs' dtypes from ``outputs`` where given (a
        generic kernel's annotations name none)."""
        names = list(inspect.signature(kernel.func).parameters)
        try:
            types = list(kernel.arg_types.values())
        except TypeError:       # generic: built per launch
            types = [None] * len(names)
        self.key = kernel.key
        self.input_labels, self.output_labels = names[:len(inputs)], names[len(inputs):]
        self._describe_inputs(inputs)
        values = list(outputs) if outputs is not None else [None] * (len(names) - len(inputs))
        self.output_strides, self.output_dtypes = [], []
        for t, v in zip(types[len(inputs):], values):
            t = v if _is_array(v) else t
            is_arr = isinstance(t, array)
            self.output_strides.append(t.strides if is_arr else None)
            self.output_dtypes.append(t.dtype if is_arr else None)

    def update_from_function(self, function, inputs, outputs=None):
        self.key = function.__name__
        self.input_labels = list(inspect.signature(function).parameters)
        if outputs is None:
            outputs = function(*inputs)
        outputs = [outputs] if isinstance(outputs, array) else list(outputs)
        self.output_labels = [f"output_{i}" for i in range(len(outputs))]
        self._describe_inputs(inputs)
        self.output_strides = [o.strides if _is_array(o) else None for o in outputs]
        self.output_dtypes = [o.dtype if _is_array(o) else None for o in outputs]

    def _describe_inputs(self, inputs):
        self.input_strides = [x.strides if _is_array(x) else None for x in inputs]
        self.input_dtypes = [x.dtype if _is_array(x) else None for x in inputs]


# --- evaluating the function -----------------------------------------------------------------------
def _snapshot(inputs):
    """(copy of the data, read mark) of each top-level array input (None for the others)."""
    return [(_scalars(x), x._is_read) if _is_array(x) else None for x in inputs]


def _restore(inputs, snap):
    for x, s in zip(inputs, snap):
        if s is not None:
            _set_scalars(x, s[0])
            x._is_read = s[1]     # this check's own reads are not a pending tape's


def _call(function, inputs, snap):
    """``function(*inputs)`` as a list of outputs; the inputs restored if it raises."""
    try:
        out = function(*inputs)
    except BaseException:
        if snap is not None:
            _restore(inputs, snap)
        raise
    return [out] if isinstance(out, array) else list(out)


def _resolve_mask(mask, metadata, n_inputs):
    """The (input index, output index) pairs of a mask given by argument names or indices."""
    names = list(metadata.input_labels) + list(metadata.output_labels)

    def index(name, offset=0):
        if isinstance(name, int):
            return name
        if name not in names:
            raise ValueError(f"'{name}' is not an argument of {metadata.key}: choose among {names}")
        return names.index(name) + offset

    return {(index(i), index(o, -n_inputs)) for i, o in (mask or [])}


def _pairs(inputs, outputs, mask):
    for i, o in itertools.product(range(len(inputs)), range(len(outputs))):
        if mask and (i, o) not in mask:
            continue
        x, y = inputs[i], outputs[o]
        if _is_array(x) and x.requires_grad and _is_array(y) and y.requires_grad:
            yield i, o


def _jacobian_array(values, like):
    """A Jacobian (rows, input scalars) as a wp.array of ``like``'s dtype: (rows, like.size)."""
    elem = like.numpy().shape[like.ndim:]
    data = np.asarray(values).reshape((values.shape[0], like.size) + elem)
    return array(data.astype(np.array(like.numpy()).dtype), dtype=like.dtype, device=like.device)


def _zero_grads(arrays):
    for a in arrays:
        if _is_array(a) and a.requires_grad:
            a.grad.zero_()


# --- Jacobians ----------------------------------------------------------------------------------
def jacobian(function, dim=None, inputs=None, outputs=None, input_output_mask=None, device=None,
             max_blocks=0, block_dim=None, max_outputs_per_var=-1, plot_jacobians=False,
             metadata=None, restore_inputs=True):
    """The Jacobians by the tape, ``{(input index, output index): wp.array}``: one reverse pass
    per output scalar (its gradient seeded with 1), reading the input's gradient."""
    metadata = metadata if metadata is not None else FunctionMetadata()
    inputs = list(inputs or [])
    snap = None
    tape = Tape()
    if _is_kernel(function):
        if not function.backward_enabled():
            raise ValueError(_NO_BACKWARD)
        if not outputs:
            raise ValueError(_NO_OUTPUTS)
        outputs = list(outputs)
        if metadata.is_empty:
            metadata.update_from_kernel(function, inputs, outputs)
        tape.record_launch(function, dim, inputs, outputs, device)   # the adjoint reads the values as they are
    else:
        snap = _snapshot(inputs) if restore_inputs else None
        with tape:
            outputs = _call(function, inputs, snap)
    try:
        if any(e[0] == "launch" and not e[1].backward_enabled() for e in tape.launches):
            raise ValueError(_NO_BACKWARD)
        if metadata.is_empty:
            metadata.update_from_function(function, inputs, outputs)
        mask = _resolve_mask(input_output_mask, metadata, len(inputs))
        result = {}
        _zero_grads(inputs + outputs)
        for i, o in _pairs(inputs, outputs, mask):
            result[i, o] = _tape_rows(tape, inputs, outputs, i, o, max_outputs_per_var)
    finally:
        if snap is not None:
            _restore(inputs, snap)
    if plot_jacobians:
        jacobian_plot(result, metadata)
    return result


def _tape_rows(tape, inputs, outputs, i, o, max_rows):
    x, y = inputs[i], outputs[o]
    rows = y.size * _components(y.dtype)
    jac = np.full((rows, x.size * _components(x.dtype)), np.nan)
    seed = np.zeros(rows, dtype=np.array(y.grad.numpy()).dtype)
    for r in range(min(rows, max_rows) if max_rows > 0 else rows):
        seed[:] = 0
        seed[r] = 1
        _set_scalars(y.grad, seed)
        tape.backward()
        jac[r] = _scalars(x.grad)
        _zero_grads(inputs + outputs)
    return _jacobian_array(jac, x)


def jacobian_fd(function, dim=None, inputs=None, outputs=None, input_output_mask=None, device=None,
                max_blocks=0, block_dim=None, max_inputs_per_var=-1, eps=1e-4, plot_jacobians=False,
                metadata=None, restore_inputs=True):
    """The Jacobians by central finite differences (layout as ``jacobian``); kernels without an
    adjoint are fine here: only forward launches are made."""
    metadata = metadata if metadata is not None else FunctionMetadata()
    inputs = list(inputs or [])
    snap = None
    if _is_kernel(function):
        if not outputs:
            raise ValueError(_NO_OUTPUTS)
        outputs = list(outputs)
        if metadata.is_empty:
            metadata.update_from_kernel(function, inputs, outputs)
    else:
        snap = _snapshot(inputs) if restore_inputs else None
        with Tape():
            outputs = _call(function, inputs, snap)
        try:
            if metadata.is_empty:
                metadata.update_from_function(function, inputs, outputs)
        finally:
            if snap is not None:
                _restore(inputs, snap)
    start = [_scalars(y) if _is_array(y) else None for y in outputs]
    result = {}
    try:
        mask = _resolve_mask(input_output_mask, metadata, len(inputs))
        for i, o in _pairs(inputs, outputs, mask):
            probe = _prober(function, dim, inputs, outputs, start, o, device, max_blocks, block_dim, snap)
            reset = (lambda: _restore(inputs, snap)) if snap is not None else None
            result[i, o] = _fd_columns(probe, inputs[i], outputs[o], eps, max_inputs_per_var, reset)
    finally:
        if snap is not None:
            _restore(inputs, snap)
    if plot_jacobians:
        jacobian_plot(result, metadata)
    return result


def _prober(function, dim, inputs, outputs, start, o, device, max_blocks, block_dim, snap):
    """A function running one evaluation and returning output ``o``'s scalars."""
    if _is_kernel(function):
        def probe():
            outs = [clone(y) if _is_array(y) else y for y in outputs]   # each from the starting values
            for y, s in zip(outs, start):
                if s is not None:
                    _set_scalars(y, s)
            launch(function, dim=dim, inputs=inputs, outputs=outs, device=device,
                   max_blocks=max_blocks, block_dim=block_dim, record_tape=False)
            return _scalars(outs[o])
        return probe

    def probe():
        return _scalars(_call(function, inputs, snap)[o])
    return probe


def _fd_columns(probe, x, y, eps, max_cols, reset):
    """Column k: the outputs at x[k] - eps and x[k] + eps. ``reset`` (restoring a function's
    inputs) runs before each evaluation; without it the +eps probe adds 2 eps to x[k] as the
    first evaluation left it, as warp-lang does (a function that changes its inputs drifts)."""
    flat = _scalars(x)
    dt = flat.dtype.type
    cols = flat.size
    jac = np.full((y.size * _components(y.dtype), cols), np.nan)
    for k in range(min(cols, max_cols) if max_cols > 0 else cols):
        if reset is not None:
            reset()
        v = flat.copy()
        v[k] = v[k] + dt(-eps)
        _set_scalars(x, v)
        left = probe()
        if reset is not None:
            reset()
            v = flat.copy()
            v[k] = v[k] + dt(eps)
        else:
            v = _scalars(x)
            v[k] = v[k] + dt(2 * eps)
        _set_scalars(x, v)
        right = probe()
        if reset is not None:
            reset()
        else:
            _set_scalars(x, flat)
        out_t = left.dtype.type
        jac[:, k] = (right - left) / (out_t(2.0) * out_t(eps))     # in the output's precision
    return _jacobian_array(jac, x)


# --- checks -----------------------------------------------------------------------------------------
_GREEN, _RED, _END = "\033[92m", "\033[91m", "\033[0m"


def gradcheck(function, dim=None, inputs=None, outputs=None, *, eps=1e-4, atol=1e-3, rtol=1e-2,
              raise_exception=True, input_output_mask=None, device=None, max_blocks=0, block_dim=None,
              max_inputs_per_var=-1, max_outputs_per_var=-1, plot_relative_error=False,
              plot_absolute_error=False, show_summary=True, restore_inputs=True):
    """True when the tape's Jacobians hold no NaN and match finite differences within
    ``|ad - fd| <= atol + rtol * |fd|`` (over the rows and columns both evaluated); else False,
    or a ValueError naming the kernel and the pair when ``raise_exception``."""
    if inputs is None:
        raise ValueError("The inputs argument must be provided")
    metadata = FunctionMetadata()
    common = dict(dim=dim, inputs=inputs, outputs=outputs, input_output_mask=input_output_mask,
                  device=device, max_blocks=max_blocks, block_dim=block_dim, metadata=metadata,
                  restore_inputs=restore_inputs)
    ad = jacobian(function, max_outputs_per_var=max_outputs_per_var, **common)
    fd = jacobian_fd(function, max_inputs_per_var=max_inputs_per_var, eps=eps, **common)
    rows, failure, rel_errors, abs_errors = [], None, {}, {}
    for key, jf in fd.items():
        a, f = _cut(ad[key], max_outputs_per_var, max_inputs_per_var), _cut(jf, max_outputs_per_var, max_inputs_per_var)
        nan = bool(np.isnan(a).any())
        match = bool(np.allclose(a, f, atol=atol, rtol=rtol))
        if failure is None and (nan or not match):
            failure = (key, "gradient contains NaN values" if nan and match else
                       "finite difference and autodiff gradients do not match")
        if plot_relative_error or plot_absolute_error:
            full_a, full_f = _matrix(ad[key]), _matrix(jf)
            denom = np.where(np.abs(full_a) < 1e-8, 1e-8, full_a)
            rel_errors[key] = _jacobian_array((full_a - full_f) / denom, inputs[key[0]])
            abs_errors[key] = _jacobian_array(np.abs(full_a - full_f), inputs[key[0]])
        if show_summary:
            rows.append(_summary_row(metadata, key, a, f, nan, match))
    key = metadata.key
    if show_summary:
        _print_table(["Input", "Output", "Max Abs Error", "AD at MAE", "FD at MAE", "Max Rel Error", "Pass"], rows)
        print((_RED + f"Gradient check for kernel {key} failed") if failure else
              (_GREEN + f"Gradient check for kernel {key} passed"), end=_END + "\n")
    if plot_relative_error:
        jacobian_plot(rel_errors, metadata, title=f"{key} kernel Jacobian relative error")
    if plot_absolute_error:
        jacobian_plot(abs_errors, metadata, title=f"{key} kernel Jacobian absolute error")
    if failure is not None and raise_exception:
        (i, o), what = failure
        raise ValueError(f"Gradient check failed for kernel {key}, input {i}, output {o}: {what}")
    return failure is None


def _matrix(jac):
    """A Jacobian array as a (rows, input scalars) float64 matrix."""
    m = np.array(jac.numpy(), dtype=np.float64)
    return m.reshape(m.shape[0], -1)


def _cut(jac, max_rows, max_cols):
    m = _matrix(jac)
    if max_rows > 0:
        m = m[:max_rows]
    if max_cols > 0:
        m = m[:, :max_cols]
    return m


def _summary_row(metadata, key, a, f, nan, match):
    err = np.abs(a - f)
    at = np.unravel_index(np.argmax(err), err.shape) if err.size else (0, 0)
    max_rel = np.abs((a - f) / (f + 1e-8)).max() if err.size else 0.0
    verdict = (_RED + "NaN" if nan else _GREEN + "PASS" if match else _RED + "FAIL") + _END
    return [metadata.input_labels[key[0]], metadata.output_labels[key[1]],
            f"{err.max() if err.size else 0.0:.3e} at {tuple(int(k) for k in at)}",
            f"{a[at] if err.size else 0.0:.3e}", f"{f[at] if err.size else 0.0:.3e}", f"{max_rel:.3e}", verdict]


def _print_table(headers, cells):
    def width(s):
        return len(re.sub(r"\033\[\d+m", "", str(s)))
    widths = [max(width(c) for c in col) for col in zip(headers, *cells)]
    print(" | ".join(f"{h:{w}}" for h, w in zip(headers, widths)) + " | ")
    print("-" * (sum(widths) + 3 * len(widths) - 1))
    for row in cells:
        print(" | ".join(str(c) + " " * (w - width(c)) for c, w in zip(row, widths)) + " | ")


def gradcheck_tape(tape, *, eps=1e-4, atol=1e-3, rtol=1e-2, raise_exception=True, input_output_masks=None,
                   blacklist_kernels=None, whitelist_kernels=None, max_inputs_per_var=-1,
                   max_outputs_per_var=-1, plot_relative_error=False, plot_absolute_error=False,
                   show_summary=True, reverse_launches=False, skip_to_launch_index=0):
    """``gradcheck`` of each kernel launch recorded on ``tape`` (with its recorded arguments);
    kernels without an adjoint are skipped. ``input_output_masks``: {kernel key: mask};
    ``whitelist_kernels``/``blacklist_kernels``: kernel keys to check only / to skip."""
    masks = input_output_masks or {}
    white, black = set(whitelist_kernels or ()), set(blacklist_kernels or ())
    launches = [e for e in tape.launches if e[0] == "launch"]
    ok = True
    for n, (_, kernel, dim, inputs, outputs, device) in enumerate(
            reversed(launches) if reverse_launches else launches):
        if n < skip_to_launch_index or (white and kernel.key not in white) or kernel.key in black:
            continue
        if not kernel.backward_enabled():
            continue
        ok = gradcheck(kernel, dim, inputs, outputs, eps=eps, atol=atol, rtol=rtol,
                       raise_exception=raise_exception, input_output_mask=masks.get(kernel.key),
                       device=device, max_inputs_per_var=max_inputs_per_var,
                       max_outputs_per_var=max_outputs_per_var, plot_relative_error=plot_relative_error,
                       plot_absolute_error=plot_absolute_error, show_summary=show_summary) and ok
    return ok


# --- plot ---------------------------------------------------------------------------------------------
def _plot_metadata(kernel, inputs):
    if _is_kernel(kernel):
        if inputs is None:
            raise ValueError("inputs must be provided when kernel is a Warp kernel")
        metadata = FunctionMetadata()
        metadata.update_from_kernel(kernel, inputs)
        return metadata
    if isinstance(kernel, FunctionMetadata):
        return kernel
    raise ValueError("Invalid kernel argument: must be a Warp kernel or a FunctionMetadata object")


def _plot_components(metadata, ins, outs):
    """Scalars per element of each plotted input; a ValueError naming what the metadata lacks."""
    counts = {}
    labels, dtypes = metadata.input_labels or [], metadata.input_dtypes or []
    for i in ins:
        if not 0 <= i < len(labels):
            raise ValueError(f"Invalid Jacobian input index {i}: plotting metadata defines {len(labels)} inputs")
        if labels[i] is None:
            raise ValueError(f"Invalid plotting metadata for Jacobian input index {i}: missing label")
        if i >= len(dtypes) or dtypes[i] is None:
            raise ValueError(f"Invalid plotting metadata for Jacobian input index {i}: missing array dtype")
        counts[i] = _components(dtypes[i])
        if counts[i] is None:
            raise ValueError(f"Invalid plotting metadata for Jacobian input index {i}: array dtype has no "
                             "component count")
    out_labels = metadata.output_labels or []
    for o in outs:
        if not 0 <= o < len(out_labels):
            raise ValueError(f"Invalid Jacobian output index {o}: plotting metadata defines "
                             f"{len(out_labels)} outputs")
        if out_labels[o] is None:
            raise ValueError(f"Invalid plotting metadata for Jacobian output index {o}: missing label")
    return counts


def jacobian_plot(jacobians, kernel, inputs=None, show_plot=True, show_colorbar=True,
                  scale_colors_per_submatrix=False, title=None, colormap="coolwarm", log_scale=False):
    """The Jacobians of ``jacobian``/``jacobian_fd`` in one Matplotlib figure: a column per
    input, a row per output, each block as wide as the input's scalars and as tall as the
    output's; an input's label under the last block of its column, an output's left of the first
    of its row. ``kernel``: the kernel (with its ``inputs``) or a ``FunctionMetadata``. Returns
    the figure (None when there is nothing to plot)."""
    metadata = _plot_metadata(kernel, inputs)
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    ins = sorted({i for i, _ in jacobians})
    outs = sorted({o for _, o in jacobians})
    if not ins or not outs:
        return None
    counts = _plot_components(metadata, ins, outs)
    mats = {k: np.array(j.numpy(), dtype=np.float64).reshape(j.shape[0], j.shape[1] * counts[k[0]])
            for k, j in jacobians.items()}
    widths = [next(m.shape[1] for k, m in mats.items() if k[0] == i) for i in ins]
    heights = [next(m.shape[0] for k, m in mats.items() if k[1] == o) for o in outs]
    fig, axs = plt.subplots(nrows=len(outs), ncols=len(ins), figsize=(7, 7), layout="constrained",
                            sharex="col", sharey="row", squeeze=False, subplot_kw={"aspect": 1},
                            gridspec_kw={"wspace": 0.1, "hspace": 0.1, "width_ratios": widths,
                                         "height_ratios": heights})
    title = title if title is not None else f"{metadata.key or 'unknown'} kernel Jacobian"
    fig.suptitle(title)
    if getattr(fig.canvas, "manager", None) is not None:
        fig.canvas.manager.set_window_title(title)
    finite = [m[~np.isnan(m)] for m in mats.values()]
    finite = [v for v in finite if v.size]
    vmin = min((v.min() for v in finite), default=0.0)
    vmax = max((v.max() for v in finite), default=0.0)
    present = np.array([[(i, o) in mats for i in ins] for o in outs])
    for r, o in enumerate(outs):
        for c, i in enumerate(ins):
            ax = axs[r, c]
            if not present[r, c]:
                ax.axis("off")
                continue
            m = mats[i, o]
            lo, hi = (np.nanmin(m), np.nanmax(m)) if scale_colors_per_submatrix else (vmin, vmax)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            img = ax.imshow(np.log10(np.abs(m) + 1e-8) if log_scale else m, cmap=colormap, aspect="auto",
                            interpolation="nearest", extent=[0, m.shape[1], 0, m.shape[0]], vmin=lo, vmax=hi)
            if r == len(outs) - 1 or not present[r + 1:, c].any():
                ax.set_xlabel(metadata.input_labels[i])
            if c == 0 or not present[r, :c].any():
                ax.set_ylabel(metadata.output_labels[o])
            ax.grid(color="black", which="major", linewidth=1.0)
            if show_colorbar and scale_colors_per_submatrix:
                plt.colorbar(img, ax=ax, orientation="vertical", pad=0.02)
    if show_colorbar and not scale_colors_per_submatrix:
        mappable = plt.cm.ScalarMappable(cmap=colormap)
        mappable.set_array([vmin, vmax])
        mappable.set_clim(vmin, vmax)
        plt.colorbar(mappable, ax=axs, orientation="vertical", pad=0.02)
    if show_plot:
        plt.show()
    return fig
