"""The CUDA backend's front door: is CUDA usable here, and if not, why.

CUDA needs three things: the ``[cuda]`` extra (cuda-bindings + the NVRTC wheel), an NVIDIA
driver (libcuda) and a GPU. ``probe()`` checks them in that order, cheaply (the driver library
is looked for with ctypes before cuda-bindings is imported), once per process, and registers
the devices it finds; ``unavailable_reason()`` names the first thing missing. ``import
warp_interactive`` imports this module (it registers ``probe`` with runtime/device.py) but
neither cuda-bindings nor the driver.
"""

import ctypes
import importlib.util
import sys

from .. import hooks
from . import device as device_registry

EXTRA_MISSING = ("the CUDA extra is not installed (pip install warp_interactive[cuda], which brings "
                 "cuda-bindings and the nvidia-cuda-nvrtc compiler)")
DRIVER_MISSING = ("no NVIDIA driver was found ({detail}); install the NVIDIA driver to use CUDA "
                  "devices")
NO_DEVICE = "the NVIDIA driver found no CUDA device (no GPU, or none visible: check CUDA_VISIBLE_DEVICES)"
DRIVER_FAILED = "the CUDA driver failed to initialise: {detail}"

_state = {"probed": False, "reason": None}


def _driver_library():
    return "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


def _load_driver_library():
    """Loads the driver library (None if fine, else the loader's message)."""
    try:
        ctypes.CDLL(_driver_library())
    except OSError as e:
        return f"{_driver_library()} could not be loaded: {e}"
    return None


def _bindings_installed():
    try:
        return importlib.util.find_spec("cuda.bindings") is not None
    except (ImportError, ValueError):
        return False


def _discover():
    from .cuda.context import discover
    return discover()


def probe():
    """Find the CUDA devices once; returns the reason CUDA is unusable, or None."""
    if _state["probed"]:
        return _state["reason"]
    _state["probed"] = True
    reason = None
    if not _bindings_installed():
        reason = EXTRA_MISSING
    else:
        detail = _load_driver_library()
        if detail is not None:
            reason = DRIVER_MISSING.format(detail=detail)
    if reason is None:
        try:
            devices = _discover()
        except Exception as e:  # a broken driver install: say so, keep the CPU working
            devices, reason = [], DRIVER_FAILED.format(detail=e)
        if not devices and reason is None:
            reason = NO_DEVICE
        device_registry.add_devices(devices)
    _state["reason"] = reason
    return reason


def reset_probe():
    """Forget the probe (tests): CUDA devices already registered stay registered."""
    _state["probed"] = False
    _state["reason"] = None


def get_cuda_driver_version():
    """The CUDA driver's version (12040 for 12.4), 0 when no driver loads (as the reference);
    asked of libcuda directly, so cuda-bindings is not needed."""
    try:
        lib = ctypes.CDLL(_driver_library())
    except OSError:
        return 0
    version = ctypes.c_int(0)
    if lib.cuDriverGetVersion(ctypes.byref(version)) != 0:
        return 0
    return version.value


def unavailable_reason():
    return probe() or "the device ordinal is out of range"


# --- the operations the runtime dispatches to (imported lazily: they need cuda-bindings) ---------
def synchronize_device(device):
    from .cuda.streams import synchronize_device as sync
    sync(device)


hooks.cuda_probe = probe   # device.py asks through this (hooks.py: it is imported here)
