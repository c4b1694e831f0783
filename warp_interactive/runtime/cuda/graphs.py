"""CUDA graph capture: stream capture on the device's current stream, instantiation, launch."""

from .driver import call, drv


def _load_all_modules(device):
    """Modules load before a capture: loading allocates memory, which a capture may not do."""
    from ...state import state
    for m in list(state.modules.values()):
        if not m.kernels:
            continue
        try:
            m.load(device)
            if m.option("enable_backward"):
                m.load(device, backward=True)
        except Exception:   # a module that does not build cannot be launched in the capture
            continue        # either: its own launch reports the error


def begin_capture(device, stream=None, force_module_load=None, external=False, mode=1):
    """``mode``: a CUstreamCaptureMode value (wp.CaptureMode: 0 global, 1 thread-local, 2 relaxed)."""
    from ...config import config
    if force_module_load is None:
        force_module_load = config.enable_graph_capture_module_load_by_default
    if force_module_load:
        _load_all_modules(device)
    if stream is not None:
        from .streams import set_stream
        saved = device.stream
        set_stream(stream)
    else:
        stream, saved = device.stream, None
    if not external:
        d = drv()
        with device.activated():
            call(d.cuStreamBeginCapture, stream.handle, _capture_mode(d, mode))
    device.captures.append((stream, saved, external))


def _capture_mode(d, mode):
    names = {0: "GLOBAL", 1: "THREAD_LOCAL", 2: "RELAXED"}
    return getattr(d.CUstreamCaptureMode, "CU_STREAM_CAPTURE_MODE_" + names[int(mode)])


def end_capture(device, graph, stream=None):
    """End the capture on ``device``: ``graph`` (a new runtime.graph.Graph) gets its handles."""
    if not device.captures:
        raise RuntimeError(f"wp.capture_end() without a capture in progress on {device}")
    cap_stream, saved, external = device.captures.pop()
    if stream is not None and stream is not cap_stream:
        device.captures.append((cap_stream, saved, external))
        raise RuntimeError("wp.capture_end() was given a different stream than wp.capture_begin()")
    if saved is not None:
        device.stream = saved
    if external:
        return graph
    d = drv()
    with device.activated():
        graph.handle = call(d.cuStreamEndCapture, cap_stream.handle)
        flags = int(d.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
        graph.exec = call(d.cuGraphInstantiate, graph.handle, flags)
    return graph


def launch_graph(graph, stream=None):
    if graph.exec is None:
        raise RuntimeError("this graph was captured externally (external=True) and has no "
                           "executable form here")
    stream = stream or graph.device.stream
    with graph.device.activated():
        call(drv().cuGraphLaunch, graph.exec, stream.handle)


def destroy_graph(graph):
    try:
        d = drv()
        d.cuGraphExecDestroy(graph.exec)
        if graph.handle is not None:
            d.cuGraphDestroy(graph.handle)
    except Exception:   # interpreter shutdown
        pass
    graph.exec = graph.handle = None
