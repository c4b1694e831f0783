"""build/unit_plan.py: how a module's kernels are cut into units (the cold build and the
background merge share it)."""

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warp_interactive.build import unit_plan


def _kernels(sizes):
    return [SimpleNamespace(cpp=f"k{i}") for i in range(len(sizes))], \
        {f"k{i}": s for i, s in enumerate(sizes)}


@pytest.mark.parametrize("sizes, workers, expected", [
    ([5], 2, [["k0"]]),
    ([5, 7], 2, [["k0"], ["k1"]]),                       # at most `workers`: one unit each
    ([1, 1, 1, 1], 2, [["k0", "k2"], ["k1", "k3"]]),
    ([10, 1, 1, 1, 1], 2, [["k0"], ["k1", "k2", "k3", "k4"]]),   # the long one alone
    ([3, 3, 2, 2, 2], 2, [["k0", "k2", "k4"], ["k1", "k3"]]),    # longest first, lightest group
])
def test_groups_table(sizes, workers, expected):
    kernels, weights = _kernels(sizes)
    got = unit_plan.groups(kernels, workers, weights)
    assert [[k.cpp for k in g] for g in got] == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 10_000), min_size=1, max_size=60), st.integers(1, 16))
def test_groups_partition_in_order_and_balanced(sizes, workers):
    kernels, weights = _kernels(sizes)
    got = unit_plan.groups(kernels, workers, weights)
    names = [k.cpp for g in got for k in g]
    assert sorted(names) == sorted(k.cpp for k in kernels)       # each kernel exactly once
    order = {k.cpp: i for i, k in enumerate(kernels)}
    for g in got:
        assert [order[k.cpp] for k in g] == sorted(order[k.cpp] for k in g)
    assert len(got) == min(len(kernels), workers) or len(kernels) > workers
    if len(kernels) > workers:
        assert len(got) == workers
        loads = [sum(weights[k.cpp] for k in g) for g in got]
        # greedy longest-first: the heaviest group exceeds the mean by at most one kernel
        assert max(loads) <= sum(sizes) / workers + max(sizes)


def test_unit_sources_hash_each_group_source():
    from warp_interactive.compiler import cache

    class Parts:
        def source(self, names):     # ModuleParts.source: the kernels' C++ names
            return "// " + " ".join(names)

    kernels, _ = _kernels([1, 1, 1])
    hashes = {k.cpp: "h" + k.cpp for k in kernels}
    got = unit_plan.unit_sources(Parts(), [kernels[:2], kernels[2:]], hashes, "key")
    assert got == [("// k0 k1", cache.module_hash("// k0 k1", "key"), ["hk0", "hk1"]),
                   ("// k2", cache.module_hash("// k2", "key"), ["hk2"])]
    assert unit_plan.kernel_hash(Parts(), kernels[1], "key") == \
        (cache.module_hash("// k1", "key"), len("// k1"))
