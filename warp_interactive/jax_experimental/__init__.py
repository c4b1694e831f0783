"""The reference's spelling: ``from warp_interactive.jax_experimental import jax_kernel``."""

from ..interop.jax_ffi import jax_kernel

__all__ = ["jax_kernel"]
