"""The CUDA driver API through ``cuda-bindings``, imported on first use, with one error type.

Every call goes through ``call(fn, *args)``: it raises ``CudaError`` naming the driver function
and the driver's own error name and text, and returns the call's results without the status.
"""

from ...errors import CudaError

_drv = []


def drv():
    """The ``cuda.bindings.driver`` module (imported once, lazily: it costs ~0.1-0.3 s)."""
    if not _drv:
        from cuda.bindings import driver
        _drv.append(driver)
    return _drv[0]


def error_text(err):
    d = drv()
    name = d.cuGetErrorName(err)[1]
    text = d.cuGetErrorString(err)[1]
    name = name.decode() if isinstance(name, bytes) else str(name)
    text = text.decode() if isinstance(text, bytes) else str(text)
    return f"{name}: {text}"


def call(fn, *args):
    """``fn(*args)`` checked: the results after the status (one value, a tuple, or None)."""
    result = fn(*args)
    err = result[0]
    if int(err) != 0:
        raise CudaError(f"{fn.__name__} failed with {error_text(err)}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def status(fn, *args):
    """The raw status code of ``fn(*args)`` (for calls whose failure is an answer, not an error)."""
    return int(fn(*args)[0])
