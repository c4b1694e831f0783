"""The CUDA backend (needs the ``[cuda]`` extra): devices and contexts, memory, streams and
events, module loading and launches. ``runtime/cuda_backend.py`` is its front door."""
