"""`wp.randn` draws warp-lang 1.19's sequence: the same seed gives the same normal samples (Box-Muller
with u1 = randf + 5.96e-8 drawn first, then u2). Reference: values printed by warp-lang 1.19 on
the CPU for `wp.randn(wp.rand_init(tid))`, tid = 0..9."""

import numpy as np

import warp_interactive as wp

WARP_LANG_RANDN = [-1.8213254, 0.27881497, -1.1122388, 0.5936895, 0.04976363, 0.69087356, 0.2935363,
                   0.84050184, -0.8436684, 0.53108305]


@wp.kernel
def _randn_per_thread(out: wp.array(dtype=float)):
    tid = wp.tid()
    state = wp.rand_init(tid)
    out[tid] = wp.randn(state)


def test_randn_matches_warp_lang_sequence():
    out = wp.zeros(len(WARP_LANG_RANDN), dtype=float)
    wp.launch(_randn_per_thread, dim=len(WARP_LANG_RANDN), inputs=[out])
    np.testing.assert_allclose(out.numpy(), WARP_LANG_RANDN, rtol=0, atol=1e-6)


def test_randn_is_finite_over_many_seeds():
    out = wp.zeros(1 << 16, dtype=float)
    wp.launch(_randn_per_thread, dim=out.shape[0], inputs=[out])
    samples = out.numpy()
    assert np.isfinite(samples).all()
    assert abs(samples.mean()) < 0.02 and abs(samples.std() - 1.0) < 0.02
