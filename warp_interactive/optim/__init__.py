"""``warp.optim``: gradient-descent optimizers (``Adam``, ``SGD``) and, in ``warp.optim.linear``,
iterative linear solvers."""

from . import linear
from .gradient import SGD, Adam

__all__ = ["Adam", "SGD", "linear"]
