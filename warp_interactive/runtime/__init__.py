"""runtime layer (see docs/internals.md, Layers)."""
