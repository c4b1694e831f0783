"""``wp.Texture1D/2D/3D``: regularly gridded data sampled with filtering and addressing
(``wp.texture_sample`` in kernels), on the CPU and on CUDA devices."""

from .texture import (Texture, Texture1D, Texture2D, Texture3D, TextureAddressMode,  # noqa: F401
                      TextureFilterMode)
