"""Which code path a kernel's launches take, and why the faster ones were refused.

The CPU runs a kernel through one of: a lane-blocked body (``lanes``: 8 threads per vectorised
pass, codegen/lanes.py), the vectorised unit-stride loop of a straight-line body
(``vectorised``), cooperative blocks (``blocks``) or the scalar body one thread at a time
(``scalar``); the backward likewise (lanes_backward.py, own-index plain adjoints). The same
source can be 7x apart between two of them, so ``%%wp.kernel --annotate`` and the timing view
show the path and, for the scalar body, the reason (``its loop bounds differ per thread (line
12)``): a user sees the cliff instead of guessing.
"""

from dataclasses import dataclass

from ..lang import ir
from ..types.array import array
from ..lang.analysis.walk import statements
from . import lanes as lanes_mod
from . import lanes_backward
from .module_source import _straight_line
from .own_index import OwnIndex
from .target import CPU


@dataclass
class Path:
    kind: str        # "lanes", "vectorised", "blocks", "scalar", "cuda"
    detail: str      # what the path does, or why the faster ones were refused

    def __str__(self):
        return f"{self.kind}: {self.detail}" if self.detail else self.kind


@dataclass
class KernelPaths:
    kernel: str
    forward: Path
    backward: Path = None

    def lines(self):
        out = [f"{self.kernel} forward: {self.forward}"]
        if self.backward is not None:
            out.append(f"{self.kernel} backward: {self.backward}")
        return out


_memo = {}


def describe(kernel, target=CPU, debug=False, lanes=True, backward=True):
    """The KernelPaths of ``kernel`` (a Kernel) built for ``target`` with these module options."""
    fir = kernel.ir
    key = (id(fir), target.name, bool(debug), bool(lanes), bool(backward), getattr(kernel, "block_width", 1))
    hit = _memo.get(key)
    if hit is not None and hit[0] is fir:
        return hit[1]
    if len(_memo) > 4096:
        _memo.clear()
    bwd = backward and kernel.backward_enabled()
    paths = KernelPaths(kernel.key, _forward(kernel, fir, target, debug, lanes),
                        _backward(kernel, fir, target, debug, lanes) if bwd else None)
    _memo[key] = (fir, paths)
    return paths


def _forward(kernel, fir, target, debug, lanes):
    if not target.lanes:
        return Path("cuda", "one GPU thread per launch index")
    width = getattr(kernel, "block_width", 1)
    if width > 1:
        return Path("blocks", f"cooperative blocks of {width} lanes")
    if debug:
        return Path("scalar", "debug build (every access checked)")
    if lanes:
        a = lanes_mod.qualifies(fir)
        if a is not None:
            return Path("lanes", _lanes_detail(fir, a, target))
    if _straight_line(fir):
        return Path("vectorised", "straight-line body, contiguous arrays (others: one thread at a time)")
    if not lanes:
        return Path("scalar", "lanes turned off (cpu_lanes)")
    return Path("scalar", "no lanes body: " + lanes_mod.refusal(fir))


def _lanes_detail(fir, a, target):
    w = lanes_mod.LanesWriter(fir, a, target.lanes, "", {})
    p = w.planner
    out = [f"{target.lanes} threads per vectorised pass (contiguous arrays)"]
    if p.moved:
        n = len(p.moved)
        out.append(f"{n} loop-invariant value{'s' if n > 1 else ''} computed before {'their' if n > 1 else 'its'}"
                   f" loop{_lines(p.moved)}")
    if p.accumulated:
        names = ", ".join(f"{name}[own index]" for name in dict.fromkeys(v.name for v in p.accumulated))
        out.append(f"{names} kept in a local across the loop where no other array overlaps")
    for st in statements(fir.body.stmts):
        if isinstance(st, ir.ForRange) and id(st) not in a.control:
            out.append(lanes_mod.loop_refusal(st, a) + ": it runs inside the lane passes")
    return "; ".join(out)


def _lines(stmts):
    lines = sorted({st.lineno for st in stmts if st.lineno})
    return f" (line {', '.join(map(str, lines))})" if lines else ""


def _backward(kernel, fir, target, debug, lanes):
    if not target.lanes:
        return Path("cuda", "one GPU thread per launch index")
    if getattr(kernel, "block_width", 1) > 1:
        return Path("blocks", "cooperative blocks")
    if debug:
        return Path("scalar", "debug build (every access checked)")
    reason = lanes_backward.refusal(fir) if lanes else "lanes turned off (cpu_lanes)"
    if reason is None:
        return Path("lanes", f"{target.lanes} threads' adjoints per pass; a uniform index's "
                             "gradient summed over them, one atomic")
    own = OwnIndex(fir).own_arrays(fir)
    names = [p.name for p in fir.params if isinstance(p.type, array) and id(p) in own]
    plain = f"plain adjoints of own-index reads of {', '.join(names)} (gradients that overlap no other)" \
        if names else ""
    if plain and _straight_line(fir):
        return Path("vectorised", f"straight-line adjoint, {plain}")
    return Path("scalar", f"{plain + '; ' if plain else ''}no lanes body: {reason}")
