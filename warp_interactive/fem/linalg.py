"""Array helpers of ``fem.linalg``."""

from typing import Any

from . import _api as wp


@wp.kernel
def _axpy(x: wp.array(dtype=Any), y: wp.array(dtype=Any), alpha: Any, beta: Any):
    i = wp.tid()
    y[i] = beta * y[i] + alpha * x[i]


def array_axpy(x, y, alpha=1.0, beta=1.0):
    """``y <- alpha x + beta y`` (element-wise, any element type)."""
    if x.shape != y.shape:
        raise ValueError(f"array_axpy: shapes differ, {x.shape} and {y.shape}")
    s = getattr(y.dtype, "_wp_scalar_type_", y.dtype)
    wp.launch(_axpy, dim=y.shape[0], inputs=[x, y, s(alpha), s(beta)], device=y.device)
