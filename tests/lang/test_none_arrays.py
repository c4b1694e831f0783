"""An array argument may be None when the kernel indexes it only under a test of it (``if a:``,
the ``else`` of ``if not a:``, also inside a @wp.func), as warp-lang launches such kernels; a
kernel that would index the None anywhere else is refused with the argument's name. Expected
values: the same kernels run by warp-lang 1.19 (None: the untested branch; an array: the tested
one), and NumPy for the arrays."""

import numpy as np
import pytest

import warp_interactive as wp

N = 4


@wp.kernel
def n_copy_if(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    if b:
        b[i] = a[i]
    a[i] = 2.0


@wp.kernel
def n_if_not_else(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    if not b:
        a[i] = 3.0
    else:
        a[i] = b[i]


@wp.kernel
def n_if_else(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    if b:
        a[i] = 4.0 + b[i]
    else:
        a[i] = 5.0


@wp.func
def n_read_or(b: wp.array(dtype=float), i: int, default: float):
    if b:
        return b[i] * 2.0
    return default


@wp.kernel
def n_tested_in_func(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = n_read_or(b, i, 6.0)


@wp.kernel
def n_nested(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    if b:
        for j in range(2):
            if i > 0:
                a[i] = a[i] + b[i - 1]
    else:
        a[i] = 7.0


@wp.kernel
def n_unguarded(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    if b:
        a[i] = b[i]
    a[i] = a[i] + b[0]       # indexed outside the test


@wp.kernel
def n_tests_another(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    if c:
        a[i] = b[i]          # b is not the array tested


@wp.func
def n_plain_read(b: wp.array(dtype=float), i: int):
    return b[i]


@wp.kernel
def n_func_unguarded(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = n_plain_read(b, i)


@wp.kernel
def n_and_chain(arr: wp.array(dtype=int), result: wp.array(dtype=int)):
    tid = wp.tid()
    if arr and tid >= 0 and arr[tid] == 0:     # `and` stops at a None array
        result[tid] = -1
        return
    result[tid] = 1


@wp.kernel
def n_or_chain(arr: wp.array(dtype=int), result: wp.array(dtype=int)):
    tid = wp.tid()
    if not arr or tid < 0 or arr[tid] == 0:    # `or` stops at `not arr`
        result[tid] = -1
        return
    result[tid] = 1


B = np.arange(1.0, N + 1.0, dtype=np.float32)


# (kernel, expected a with b=None, expected a with b=B)
ACCEPTED = [
    (n_copy_if, np.full(N, 2.0), np.full(N, 2.0)),
    (n_if_not_else, np.full(N, 3.0), B),
    (n_if_else, np.full(N, 5.0), 4.0 + B),
    (n_tested_in_func, np.full(N, 6.0), 2.0 * B),
    (n_nested, np.full(N, 7.0), np.concatenate([[0.0], 2.0 * B[:-1]])),
]


@pytest.mark.parametrize("kernel, with_none, with_array", ACCEPTED, ids=lambda v: getattr(v, "key", ""))
def test_a_none_array_tested_before_it_is_indexed_is_accepted(kernel, with_none, with_array):
    a = wp.zeros(N, dtype=float)
    wp.launch(kernel, N, inputs=[a, None])
    np.testing.assert_array_equal(a.numpy(), with_none)
    a, b = wp.zeros(N, dtype=float), wp.array(B)
    wp.launch(kernel, N, inputs=[a, b])
    np.testing.assert_array_equal(a.numpy(), with_array)


@pytest.mark.parametrize("kernel, values, with_none, with_array", [
    (n_and_chain, [0, 1, 0, 2], [1, 1, 1, 1], [-1, 1, -1, 1]),
    (n_or_chain, [5, 0, 7, 8], [-1, -1, -1, -1], [1, -1, 1, 1]),
], ids=["and", "or"])
def test_short_circuit_chains_guard_a_none_array(kernel, values, with_none, with_array):
    r = wp.zeros(N, dtype=int)
    wp.launch(kernel, N, inputs=[None, r])
    assert r.numpy().tolist() == with_none
    wp.launch(kernel, N, inputs=[wp.array(values, dtype=int), r])
    assert r.numpy().tolist() == with_array


@pytest.mark.parametrize("kernel, args, name", [
    (n_unguarded, [None], "b"),
    (n_tests_another, [None, wp.zeros(N)], "b"),
    (n_func_unguarded, [None], "b"),
], ids=lambda v: getattr(v, "key", None) if hasattr(v, "key") else None)
def test_a_none_array_indexed_outside_a_test_is_refused(kernel, args, name):
    with pytest.raises(TypeError) as err:
        wp.launch(kernel, N, inputs=[wp.zeros(N, dtype=float)] + args)
    msg = str(err.value)
    assert f"argument '{name}'" in msg and "is None, but kernel" in msg
    assert f"indexes it outside a test of it" in msg and f"'if {name}:'" in msg
