"""The adjoint of ``wp.copy`` recorded on a tape: the source's gradient gains the destination's
gradient over the copied range, which is then cleared (the copy overwrote those elements; not
for a destination made with ``retain_grad=True``). A copy of constants only clears it.

It runs as kernels on the arrays' own device, so it works on CUDA (where ``numpy()`` is a copy)
and inside a graph capture; the kernels see each gradient as a flat array of its scalars.
Non-contiguous or overlapping gradients take a host round trip instead."""

import numpy as np

from ..lang.builtins.function import BuiltinFunction
from ..lang.definitions.decorators import kernel
from ..types.array import array
from ..types.dtypes import type_size
from ..types.scalars import float16, float32, float64

tid = BuiltinFunction("tid")    # wp.tid, without importing the package's top namespace


@kernel(enable_backward=False)
def _accumulate_f16(src: array(dtype=float16), dst: array(dtype=float16), so: int, do: int):
    i = tid()
    src[so + i] = src[so + i] + dst[do + i]
    dst[do + i] = float16(0.0)


@kernel(enable_backward=False)
def _accumulate_f32(src: array(dtype=float32), dst: array(dtype=float32), so: int, do: int):
    i = tid()
    src[so + i] = src[so + i] + dst[do + i]
    dst[do + i] = float32(0.0)


@kernel(enable_backward=False)
def _accumulate_f64(src: array(dtype=float64), dst: array(dtype=float64), so: int, do: int):
    i = tid()
    src[so + i] = src[so + i] + dst[do + i]
    dst[do + i] = float64(0.0)


_KERNELS = {float16: _accumulate_f16, float32: _accumulate_f32, float64: _accumulate_f64}


def _scalar_of(dtype):
    return getattr(dtype, "_wp_scalar_type_", dtype)


def _flat(g, scalar):
    n = type_size(g.dtype) // type_size(scalar)
    return array(ptr=g.ptr, shape=(g.size * n,), dtype=scalar, device=g.device), n


def backward_copy(dest, src, dest_offset, src_offset, count):
    dg, sg = dest.grad, getattr(src, "grad", None)
    if dg is None or count == 0:
        return
    keep = getattr(dest, "retain_grad", False)      # wp.array(retain_grad=True): not consumed
    if sg is None:      # the copied values do not depend on anything differentiable
        return None if keep else _clear(dg, dest_offset, count)
    scalar = _scalar_of(dg.dtype)
    fast = (dg.is_contiguous and sg.is_contiguous and not _overlap(dg, sg) and scalar in _KERNELS
            and _scalar_of(sg.dtype) is scalar and dg.device == sg.device)
    if not fast or keep:
        return _on_host(dg, sg, dest_offset, src_offset, count, keep)
    from .launch import launch
    d, n = _flat(dg, scalar)
    s, _ = _flat(sg, scalar)
    launch(_KERNELS[scalar], dim=count * n, inputs=[s, d, src_offset * n, dest_offset * n],
           device=dg.device)


def _clear(dg, offset, count):
    """The overwritten range's gradient restarts from zero."""
    if dg.is_contiguous:
        flat, n = _flat(dg, _scalar_of(dg.dtype))
        flat[offset * n:(offset + count) * n].zero_()
        return
    d = _rows(dg)
    d[offset:offset + count] = 0
    dg.assign(d)


def _overlap(a, b):
    """Whether two contiguous arrays share memory (the kernels would race on it)."""
    a_end = a.ptr + a.size * type_size(a.dtype)
    b_end = b.ptr + b.size * type_size(b.dtype)
    return a.ptr < b_end and b.ptr < a_end


def _rows(a):
    """A host copy of ``a`` as (elements, *element shape)."""
    n = a.numpy()
    return n.reshape((a.size,) + n.shape[len(a.shape):]).copy()


def _on_host(dg, sg, dest_offset, src_offset, count, keep=False):
    """Any layout, aliasing included: the destination's gradient is taken and cleared (written
    back) before the source's gradient is read, so views of one array see each other's update."""
    d = _rows(dg)
    moved = d[dest_offset:dest_offset + count].copy()
    if dg._is_indexed:      # a data element written through several positions: the last one's
        moved[~dg._last_writes(dest_offset + np.arange(count))] = 0
    if not keep:
        d[dest_offset:dest_offset + count] = 0
        dg.assign(d)
    if sg._is_indexed:      # an element read through several positions gets each one's gradient
        sg._accumulate(moved, src_offset + np.arange(count))
        return
    s = _rows(sg)
    s[src_offset:src_offset + count] += moved
    sg.assign(s)
