"""``wp.config.verify_fp``: after a launch, NaN and infinite values in the float arrays the
kernel writes are reported on stdout (warp-lang prints its kernels' checks there); arrays it
only reads, and finite results, are not; the fast launch plans step aside while it is on."""

import numpy as np
import pytest

import warp_interactive as wp


@wp.struct
class Holder:
    field: wp.float32
    count: int


@wp.kernel(enable_backward=False)
def divide(foos: wp.array(dtype=Holder), src: wp.array(dtype=float), dst: wp.array(dtype=wp.vec3),
           by: float):
    i = wp.tid()
    foos[i].field = foos[i].field / by
    dst[i] = wp.vec3(src[i] / by)


@pytest.fixture
def verify_fp():
    wp.config.verify_fp = True
    yield
    wp.config.verify_fp = False


def _run(capfd, by, src):
    foos = wp.zeros(3, dtype=Holder, device="cpu")
    dst = wp.zeros(3, dtype=wp.vec3, device="cpu")
    wp.launch(divide, dim=3, inputs=[foos, wp.array(src, dtype=float, device="cpu"), dst, by], device="cpu")
    return capfd.readouterr().out


@pytest.mark.parametrize("by, src, expected", [
    (0.0, [1.0, 2.0, 0.0], ["3 nan value(s) in array 'foos'", "3 nan and 6 inf value(s) in array 'dst'"]),
    (2.0, [1.0, np.inf, 3.0], ["3 inf", "dst"]),                    # inf/2 in each component
    (2.0, [1.0, 2.0, 3.0], []),                                     # finite: nothing printed
])
def test_nonfinite_results_are_reported(verify_fp, capfd, by, src, expected):
    out = _run(capfd, by, src)
    for _ in range(2):          # the second launch too (no fast plan skips the check)
        for words in expected:
            assert words in out
        if not expected:
            assert "verify_fp" not in out
        out = _run(capfd, by, src)


def test_off_by_default(capfd):
    assert wp.config.verify_fp is False
    assert "verify_fp" not in _run(capfd, 0.0, [0.0, 0.0, 0.0])


def test_nonfinite_inputs_that_are_only_read_are_not_reported(verify_fp, capfd):
    foos = wp.zeros(3, dtype=Holder, device="cpu")
    dst = wp.zeros(3, dtype=wp.vec3, device="cpu")

    @wp.kernel(enable_backward=False)
    def count(src: wp.array(dtype=float), n: wp.array(dtype=int)):
        if wp.isnan(src[wp.tid()]):
            wp.atomic_add(n, 0, 1)

    n = wp.zeros(1, dtype=int, device="cpu")
    wp.launch(count, dim=2, inputs=[wp.array([np.nan, 1.0], dtype=float, device="cpu"), n], device="cpu")
    assert n.numpy()[0] == 1
    assert "verify_fp" not in capfd.readouterr().out
    del foos, dst
