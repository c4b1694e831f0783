"""@wp.funcs called from kernels built for cooperative blocks (``Kernel.with_block_width``).

A block-wide primitive (``wp.tile(x)``, ``wp.untile``, ``wp.tile_from_thread``, per-lane tile
writes, stack pushes...) is translated for the block width of the build it sits in: ``wp.tile``
of a one-lane build gathers one value. A function holding one is therefore translated again for
each block width a kernel calls it with: a variant overload whose C++ name ends in ``_bB``, as the
kernel's own does. Functions without tiles translate the same at every width and are shared."""

import copy

from ...types.tile import TileStack, is_tile
from ..analysis.walk import reached_irs


def uses_tiles(fir):
    """Whether ``fir``, or a @wp.func it calls (transitively), holds tiles or tile stacks: only
    such code can differ between block widths (every block-wide primitive makes or takes one)."""
    return any(is_tile(v.type) or isinstance(v.type, TileStack)
               for f in reached_irs(fir) for v in f.vars + f.params)


def at_width(ov, width):
    """The overload ``ov`` as a translator of block width ``width`` must call it: ``ov`` itself
    at width one, for a native function or one without tiles; else its variant for the width,
    made once (and dropped with ``ov``'s IR when something it calls is redefined)."""
    if width <= 1 or getattr(ov, "block_width", 1) == width or not hasattr(ov, "block_variants"):
        return ov
    if getattr(ov.function, "native", None) is not None:
        return ov
    variant = ov.block_variants.get(width)
    if variant is None:
        variant = copy.copy(ov)
        variant._cpp = f"{ov.cpp}_b{width}"
        variant._ir = None
        variant.block_width = width
        variant.block_variants = {}
        ov.block_variants[width] = variant
    # (decided on the variant's own translation: a function made for a width, untile of a
    # (B,) tile parameter, does not translate at width one)
    return variant if uses_tiles(variant.ir) else ov
