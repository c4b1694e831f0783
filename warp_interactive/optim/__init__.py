"""``warp.optim``: gradient-descent optimizers (``Adam``, ``SGD``) and, in ``warp.optim.linear``,
iterative linear solvers."""

from . import linear

__all__ = ["linear"]
