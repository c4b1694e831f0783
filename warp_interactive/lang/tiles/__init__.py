"""The tile builtins (warp-lang's tile model) and how tiles are passed to functions."""
