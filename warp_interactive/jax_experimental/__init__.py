"""The reference's spelling: ``from warp_interactive.jax_experimental import jax_kernel``."""

from ..interop.jax_callable import (JaxCallableGraphMode, JaxModulePreloadMode, clear_jax_callable_graph_cache,
                                   jax_callable)
from ..interop.jax_ffi import jax_kernel

__all__ = ["jax_kernel", "jax_callable", "JaxCallableGraphMode", "JaxModulePreloadMode",
           "clear_jax_callable_graph_cache"]
