"""The public ``wp.`` names the renderers use, imported from their home modules (the package
root would also pull in the notebook layer above this one)."""

from ..runtime.device import get_device, get_preferred_device  # noqa: F401
from ..types.array import array, copy  # noqa: F401
