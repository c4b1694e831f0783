"""codegen layer (see docs/internals.md, Layers)."""
