"""build layer (see docs/internals.md, Layers): what gets compiled and loaded, between the
compiler and codegen below and the runtime above."""
