"""The texture enums and dtype codes (shared by texture.py and texture_data.py)."""

import enum

from ..types import scalars as sc

_DTYPES = (sc.uint8, sc.uint16, sc.uint32, sc.int8, sc.int16, sc.int32, sc.float16, sc.float32)
_CODES = {t: i for i, t in enumerate(_DTYPES)}   # texture.h's U8 ... F32


class TextureFilterMode(enum.IntEnum):
    """How a sample between texels is computed (and how mip levels blend)."""
    CLOSEST = 0
    LINEAR = 1


class TextureAddressMode(enum.IntEnum):
    """What a coordinate outside the texture reads."""
    WRAP = 0
    CLAMP = 1
    MIRROR = 2
    BORDER = 3
