"""warp.optim.Adam and SGD against torch.optim (an independent implementation) over parameter
dtypes (float16/32/64 scalars, vectors, matrices) and options, and their error messages."""

import numpy as np
import pytest

import warp_interactive as wp
import warp_interactive.optim as optim

torch = pytest.importorskip("torch")

DTYPES = [(wp.float32, ()), (wp.float64, ()), (wp.float16, ()), (wp.vec3, (3,)), (wp.vec2d, (2,)), (wp.mat22, (2, 2))]
IDS = ["f32", "f64", "f16", "vec3", "vec2d", "mat22"]


def _np(dtype):
    scalar = getattr(dtype, "_wp_scalar_type_", dtype)
    return {wp.float16: np.float16, wp.float32: np.float32, wp.float64: np.float64}[scalar]


def _run(opt_wp, opt_torch, p_wp, p_t, grads, dtype, inner):
    for g in grads:
        opt_wp.step([wp.array(g.astype(_np(dtype)), dtype=dtype)])
        p_t.grad = torch.tensor(g.astype(np.float64))
        opt_torch.step()
    tol = 2e-2 if _np(dtype) is np.float16 else (1e-5 if _np(dtype) is np.float32 else 1e-12)
    np.testing.assert_allclose(p_wp.numpy().astype(np.float64), p_t.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,inner", DTYPES, ids=IDS)
def test_adam_matches_torch(dtype, inner):
    rng = np.random.default_rng(0)
    start = rng.standard_normal((5, *inner))
    grads = [rng.standard_normal((5, *inner)) for _ in range(6)]
    p = wp.array(start.astype(_np(dtype)), dtype=dtype)
    pt = torch.tensor(start.astype(_np(dtype)).astype(np.float64), requires_grad=True)
    opt = optim.Adam([p], lr=0.05, betas=(0.8, 0.95), eps=1e-6)
    _run(opt, torch.optim.Adam([pt], lr=0.05, betas=(0.8, 0.95), eps=1e-6), p, pt, grads, dtype, inner)
    assert opt.t == 6
    opt.reset_internal_state()
    assert opt.t == 0 and not opt.m[0].numpy().any()


@pytest.mark.parametrize("dtype,inner", [d for d in DTYPES if d[0] is not wp.float16],
                         ids=[i for d, i in zip(DTYPES, IDS) if d[0] is not wp.float16])
@pytest.mark.parametrize("options", [dict(), dict(momentum=0.9), dict(momentum=0.9, dampening=0.3),
                                     dict(momentum=0.8, nesterov=True, weight_decay=0.1), dict(weight_decay=0.5)])
def test_sgd_matches_torch(dtype, inner, options):
    rng = np.random.default_rng(1)
    start = rng.standard_normal((4, *inner))
    grads = [rng.standard_normal((4, *inner)) for _ in range(5)]
    p = wp.array(start.astype(_np(dtype)), dtype=dtype)
    pt = torch.tensor(start.astype(np.float64), requires_grad=True)
    _run(optim.SGD([p], lr=0.1, **options), torch.optim.SGD([pt], lr=0.1, **options), p, pt, grads, dtype, inner)


def test_optimizer_errors():
    p = wp.zeros(2, dtype=float)
    with pytest.raises(RuntimeError, match=r"Adam parameters must be set before calling step\(\), got None"):
        optim.Adam().step([p])
    with pytest.raises(TypeError, match="Adam gradient dtype must match parameter dtype float32, got int32"):
        optim.Adam([p]).step([wp.zeros(2, dtype=int)])
    with pytest.raises(ValueError, match=r"SGD gradient shape must match parameter shape \(2,\), got \(3,\)"):
        optim.SGD([p]).step([wp.zeros(3, dtype=float)])
    with pytest.raises(RuntimeError, match="Unsupported dtype for Warp Adam optimizer: int32"):
        optim.Adam([wp.zeros(2, dtype=int)])
