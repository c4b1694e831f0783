"""lang layer (see docs/internals.md, Layers)."""
