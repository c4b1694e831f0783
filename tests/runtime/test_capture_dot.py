"""wp.capture_debug_dot_print: a captured graph as a Graphviz DOT file (CPU graphs written here,
one node per recorded operation in replay order; CUDA graphs by the driver). The DOT text is
checked by parsing it back and, where Graphviz is installed, by ``dot`` itself."""

import re
import shutil
import subprocess

import numpy as np
import pytest

import warp_interactive as wp
from tests.conftest import requires_cuda


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def add_one_2d(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = a[i, j] + 1.0


def _record(steps, device="cpu"):
    a = wp.zeros(6, dtype=float, device=device)
    b = wp.zeros(6, dtype=float, device=device)
    m = wp.zeros((2, 3), dtype=float, device=device)
    actions = {"launch": lambda: wp.launch(add_one, dim=6, inputs=[a], device=device),
               "launch2d": lambda: wp.launch(add_one_2d, dim=(2, 3), inputs=[m], device=device),
               "zero": lambda: b.zero_(), "fill": lambda: b.fill_(2.0), "copy": lambda: wp.copy(b, a)}
    with wp.ScopedCapture(device) as cap:
        for s in steps:
            actions[s]()
    return cap.graph, a, b


def _parse(text):
    nodes = dict(re.findall(r'^\s*(n\d+) \[label="((?:[^"\\]|\\.)*)"', text, re.M))
    edges = re.findall(r"^\s*(n\d+) -> (n\d+);", text, re.M)
    return nodes, edges


@pytest.mark.parametrize("steps, first_lines", [
    (["launch"], ["kernel add_one"]),
    (["launch", "zero", "fill", "copy", "launch"], ["kernel add_one", "zero", "fill", "copy", "kernel add_one"]),
    (["launch2d", "copy"], ["kernel add_one_2d", "copy"]),
    ([], []),
])
@pytest.mark.parametrize("verbose", [True, False])
def test_cpu_graph_nodes_follow_the_replay_order(tmp_path, steps, first_lines, verbose):
    graph, a, b = _record(steps)
    path = tmp_path / "g.dot"
    wp.capture_debug_dot_print(graph, str(path), verbose=verbose)
    nodes, edges = _parse(path.read_text())
    assert [nodes[f"n{i}"].split("\\n")[0] for i in range(len(nodes))] == first_lines
    assert edges == [(f"n{i - 1}", f"n{i}") for i in range(1, len(steps))]
    for i, s in enumerate(steps):
        label = nodes[f"n{i}"]
        if s.startswith("launch"):
            assert ("dim=(6,)" if s == "launch" else "dim=(2, 3)") in label
            assert ("forward, 1 args" in label) == verbose
    wp.capture_launch(graph)        # the graph still replays: printing does not consume it
    expect = 1.0 * steps.count("launch")
    np.testing.assert_allclose(a.numpy(), expect)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_reads_the_file(tmp_path):
    graph, _, _ = _record(["launch", "zero", "fill", "copy"])
    path = tmp_path / "g.dot"
    wp.capture_debug_dot_print(graph, str(path))
    out = subprocess.run(["dot", "-Tsvg", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("<g id=\"node") == 4


def test_refuses_what_is_not_a_graph(tmp_path):
    with pytest.raises(TypeError, match="expects the Graph returned by wp.capture_end"):
        wp.capture_debug_dot_print(object(), str(tmp_path / "x.dot"))


@requires_cuda
def test_cuda_graph_by_the_driver(tmp_path):
    graph, _, _ = _record(["launch", "zero"], device="cuda:0")
    path = tmp_path / "g.dot"
    wp.capture_debug_dot_print(graph, str(path))
    text = path.read_text()
    assert text.startswith("digraph") and "add_one" in text
