"""Zero-copy exchange with other array frameworks (NumPy protocols, PyTorch, JAX, Paddle,
CuPy/Numba, DLPack).

Nothing here imports a framework at import time: each converter imports its framework when
first called, so ``import warp_interactive`` stays fast and works without any of them.
"""
