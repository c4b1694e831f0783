"""How a module's kernels are cut into units, shared by the cold build (build/cpu_build.py)
and the background merge (build/unit_merge.py), so both group and hash them the same way.
Imports nothing of the runtime: both of those import it at file level."""

from ..compiler import cache


def kernel_hash(parts, kernel, build_key):
    """``kernel``'s kernel hash (the hash of a unit holding only it) and that source's length
    (the weight ``groups`` balances)."""
    source = parts.source([kernel.cpp])
    return cache.module_hash(source, build_key), len(source)


def groups(kernels, workers, sizes):
    """Kernels to compile -> units: one each while there are at most ``workers``, else
    ``workers`` groups balanced by source length (``sizes``; longest first onto the lightest
    group), each in the module's order."""
    if len(kernels) <= workers:
        return [[k] for k in kernels]
    grouped = [[] for _ in range(workers)]
    load = [0] * workers
    for k in sorted(kernels, key=lambda k: -sizes[k.cpp]):
        i = load.index(min(load))
        grouped[i].append(k)
        load[i] += sizes[k.cpp]
    order = {k.cpp: n for n, k in enumerate(kernels)}
    return [sorted(g, key=lambda k: order[k.cpp]) for g in grouped]


def unit_sources(parts, grouped, hashes, build_key):
    """One ``(source, unit hash, [kernel hashes it provides])`` per group of ``grouped``
    (``hashes``: kernel C++ name -> kernel hash), as ``compiler.build.compile_units`` and
    ``cache.record_kernels`` take them."""
    units = []
    for group in grouped:
        source = parts.source([k.cpp for k in group])
        units.append((source, cache.module_hash(source, build_key),
                      [hashes[k.cpp] for k in group]))
    return units
