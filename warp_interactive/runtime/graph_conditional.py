"""Dynamic branches and loops: ``wp.capture_if``, ``wp.capture_while`` (warp-lang 1.19).

The condition is the first element of an int32 array, read when the branch is reached. Outside a
capture the chosen body runs at once (a callable gets the keyword arguments; a Graph is
launched). Inside a CPU capture (runtime/graph.py) each callable body is recorded as a graph of
its own, and the capture keeps one step that, at every replay, reads the condition and replays
the chosen body (``capture_while``: while the condition is non-zero), so a graph can loop until
a kernel it runs says stop. CUDA captures would need CUDA's conditional graph nodes, which this
package does not build: ``wp.is_conditional_graph_supported()`` is False and a capture_if /
capture_while inside a CUDA capture is refused (outside a capture they run on a GPU as well)."""

import ctypes

from . import graph as _graph
from ..types import scalars as sc
from ..types.array import array


def is_conditional_graph_supported():
    """Whether CUDA graphs here can hold conditional nodes: no (CPU captures can, see above)."""
    return False


def _check(condition):
    if not isinstance(condition, array) or condition.dtype is not sc.int32:
        raise TypeError("Condition must be a Warp array of int32 with a single element")
    device = condition.device
    if device.is_capturing:     # a CUDA graph capture
        raise NotImplementedError(
            "wp.capture_if/capture_while inside a CUDA graph capture need CUDA conditional graph "
            "nodes, which warp_interactive does not build (wp.is_conditional_graph_supported() is "
            "False): call it outside the capture, or capture on the CPU")
    return device


def _value(condition, stream=None):
    """The condition's first element, read now (a GPU array: after its stream's work)."""
    if condition.device.is_cpu:
        return ctypes.c_int32.from_address(condition.ptr).value != 0
    from .cuda.streams import synchronize_stream
    if stream is not None:
        synchronize_stream(stream)
    return int(condition.numpy()[0]) != 0


def _run(body, stream, kwargs, what):
    if body is None:
        return
    if isinstance(body, _graph.Graph):
        _graph.capture_launch(body, stream)
    elif callable(body):
        body(**kwargs)
    else:
        raise TypeError(f"{what} must be a Callable or a Graph")


def _record(device, body, kwargs, what):
    """A body recorded into a graph of its own (a Graph is used as it is); None for no body."""
    if body is None or isinstance(body, _graph.Graph):
        return body
    if not callable(body):
        raise TypeError(f"{what} must be a Callable or a Graph")
    outer = _graph._cpu_captures[device.alias]
    sub = _graph._cpu_captures[device.alias] = _graph.Graph(device)
    try:
        body(**kwargs)
    finally:
        _graph._cpu_captures[device.alias] = outer
    return sub


def capture_if(condition, on_true=None, on_false=None, stream=None, **kwargs):
    """Run ``on_true`` when ``condition[0]`` is non-zero, else ``on_false`` (each a callable, given
    ``kwargs``, or a Graph); inside a CPU capture, the choice is made at each replay."""
    if on_true is None and on_false is None:
        return
    device = _check(condition)
    outer = _graph._cpu_captures.get(device.alias) if device.is_cpu else None
    if outer is None:
        value = _value(condition, stream)
        _run(on_true if value else on_false, stream, kwargs, "on_true" if value else "on_false")
        return
    if_true = _record(device, on_true, kwargs, "on_true")
    if_false = _record(device, on_false, kwargs, "on_false")

    def branch():
        chosen = if_true if _value(condition) else if_false
        if chosen is not None:
            chosen.launch()
    outer.ops.append(branch)
    outer.keep.append([condition, if_true, if_false])


def capture_while(condition, while_body, stream=None, **kwargs):
    """Run ``while_body`` (a callable given ``kwargs``, or a Graph) while ``condition[0]`` is
    non-zero; the body is expected to update the condition. Inside a CPU capture the loop runs at
    each replay."""
    device = _check(condition)
    outer = _graph._cpu_captures.get(device.alias) if device.is_cpu else None
    if outer is None:
        if not (callable(while_body) or isinstance(while_body, _graph.Graph)):
            raise TypeError("while_body must be a Callable or a Graph")
        while _value(condition, stream):
            _run(while_body, stream, kwargs, "while_body")
        return
    body = _record(device, while_body, kwargs, "while_body")

    def loop():
        while _value(condition):
            body.launch()
    outer.ops.append(loop)
    outer.keep.append([condition, body])
