"""compiler layer (see docs/internals.md, Layers)."""
