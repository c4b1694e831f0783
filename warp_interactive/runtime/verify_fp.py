"""``wp.config.verify_fp = True``: after each launch, report NaN and infinite values in the
floating-point arrays the kernel may write (printed to stdout, as warp-lang's kernels print
theirs).

warp-lang compiles a check after every floating-point value a kernel computes; this checks
what the launch leaves in the arrays it writes (lang/analysis/access.py says which), so a non-finite
value that stays in a local variable goes unreported. The launch itself is not changed, and
launches take the general path while the option is on (the fast plans do not check).
"""

import numpy as np

from ..types.array import array


def _nonfinite(host):
    """(NaN count, infinity count) of a NumPy array, its structured fields included."""
    if host.dtype.names:
        nans = infs = 0
        for field in host.dtype.names:
            n, i = _nonfinite(host[field])
            nans, infs = nans + n, infs + i
        return nans, infs
    if host.dtype.kind != "f":
        return 0, 0
    values = host.astype(np.float32) if host.dtype == np.float16 else host
    return int(np.isnan(values).sum()), int(np.isinf(values).sum())


def check_launch(kernel, values):
    """Print a warning per written array of ``kernel``'s launch arguments ``values`` that holds
    NaN or infinite values."""
    from ..lang.analysis.access import kernel_access
    params = [p.name for p in kernel.ir.params]
    access = kernel_access(kernel)
    for name, value in zip(params, values):
        if not isinstance(value, array) or "write" not in access.get(name, ()) or not value.size:
            continue
        nans, infs = _nonfinite(value.numpy())
        found = [f"{n} {word}" for n, word in ((nans, "nan"), (infs, "inf")) if n]
        if found:
            print(f"Warning: verify_fp: kernel '{kernel.key}' left {' and '.join(found)} value(s) in "
                  f"array '{name}' (shape {value.shape})", flush=True)
