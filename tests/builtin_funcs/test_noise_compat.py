"""noise / pnoise / curlnoise give warp-lang 1.19's values (its seeds and golden images carry
over), and curlnoise has an adjoint (it had none: a silently zero gradient).

Values: measured with warp-lang 1.19 on the CPU (seed 7, the points of `_points`); gradients:
checked against central differences of the same forward."""

import numpy as np
import pytest

import warp_interactive as wp

# warp-lang 1.19, rounded to 7 decimals: point i uses x = 0.37 i - 1.3
PEER = {
    "noise1": [-0.042709, 0.0146811, 0.0555453, 0.0077, 0.0263006, 0.1904762],
    "noise2": [-0.0091095, 0.096417, -0.0269866, 0.0729643, 0.3527662, 0.1231081],
    "noise3": [-0.0080054, 0.05621, 0.2927942, 0.3199853, -0.0353414, 0.0112082],
    "noise4": [-0.0974833, -0.055135, 0.2934602, 0.0923271, 0.2066738, -0.162918],
    "pnoise1": [-0.0822577, 0.0023873, 0.1557311, 0.1281791, -0.1222887, -0.1601027],
    "pnoise3": [-0.4518036, 0.0227234, 0.2927942, 0.3199853, -0.0353414, 0.0112082],
    "curl2": [[-1.6444533, -0.576932], [-0.9603531, -0.650766], [-0.3561268, -0.6340113],
              [-1.3373718, 0.65623], [-0.194131, -0.422106], [1.1038361, -0.5654852]],
    "curl3": [[-0.1470791, 0.4483094, -1.3644133], [0.1970741, -1.0293779, 0.5476354],
              [2.3278432, 0.5722643, -0.9778947], [-0.4726603, -0.4220419, -1.0122075],
              [-0.1413404, 0.2506912, -1.501297], [-0.1696595, -1.2945564, 0.3717861]],
    "curl4": [[-0.7831867, -0.7555139, -0.6874781], [0.04486, -0.0195185, 0.4324731],
              [-0.9478322, 0.1451349, -0.148333], [0.1374132, 1.2518046, -0.4501071],
              [1.131832, 0.6587079, 0.031894], [-0.6296368, 0.6793722, 0.5551949]],
}


@wp.kernel
def _values(seed: int, out1: wp.array(dtype=float), out2: wp.array(dtype=float), out3: wp.array(dtype=float),
            out4: wp.array(dtype=float), p1: wp.array(dtype=float), p3: wp.array(dtype=float),
            c2: wp.array(dtype=wp.vec2), c3: wp.array(dtype=wp.vec3), c4: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    s = wp.rand_init(seed)
    x = float(i) * 0.37 - 1.3
    out1[i] = wp.noise(s, x)
    out2[i] = wp.noise(s, wp.vec2(x, 0.61 * x + 0.2))
    out3[i] = wp.noise(s, wp.vec3(x, -0.5 * x, 2.3 - x))
    out4[i] = wp.noise(s, wp.vec4(x, -0.5 * x, 2.3 - x, 0.7 * x))
    p1[i] = wp.pnoise(s, x + 3.0, 2)
    p3[i] = wp.pnoise(s, wp.vec3(x, -0.5 * x, 2.3 - x), 3, 2, 4)
    c2[i] = wp.curlnoise(s, wp.vec2(x, 0.61 * x + 0.2), wp.uint32(3), 2.0, 0.5)
    c3[i] = wp.curlnoise(s, wp.vec3(x, -0.5 * x, 2.3 - x), wp.uint32(2), 1.7, 0.6)
    c4[i] = wp.curlnoise(s, wp.vec4(x, -0.5 * x, 2.3 - x, 0.7 * x))


def test_values_are_warp_langs():
    n = 6
    outs = [wp.zeros(n, dtype=float, device="cpu") for _ in range(6)]
    outs += [wp.zeros(n, dtype=t, device="cpu") for t in (wp.vec2, wp.vec3, wp.vec3)]
    wp.launch(_values, n, inputs=[7, *outs], device="cpu")
    for name, out in zip(PEER, outs):
        np.testing.assert_allclose(out.numpy(), np.array(PEER[name]), atol=2e-6, err_msg=name)


@wp.kernel
def _pnoise_line(seed: int, period: int, shift: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.pnoise(wp.rand_init(seed), wp.vec2(float(i) * 0.173 + shift, 0.3), period, 5)


@pytest.mark.parametrize("period", [1, 3, 16])
def test_pnoise_repeats_with_its_period_on_positive_cells(period):
    """warp-lang wraps the cell index with C's remainder (the sign kept), so the field repeats
    along the positive axis: p and p + period give the same value."""
    n = 40
    a, b = (wp.zeros(n, dtype=float, device="cpu") for _ in range(2))
    wp.launch(_pnoise_line, n, inputs=[3, period, 0.01, a], device="cpu")
    wp.launch(_pnoise_line, n, inputs=[3, period, 0.01 + period, b], device="cpu")
    np.testing.assert_allclose(a.numpy(), b.numpy(), atol=2e-5)
    assert np.abs(a.numpy()).max() > 0.01


def _curl_kernel(dim, octaves_given):
    vec = {2: wp.vec2, 3: wp.vec3, 4: wp.vec4}[dim]
    out_t = wp.vec2 if dim == 2 else wp.vec3

    if octaves_given:
        def body(seed: int, p: wp.array(dtype=vec), lac: wp.array(dtype=float), gain: wp.array(dtype=float),
                 w: wp.array(dtype=out_t), loss: wp.array(dtype=float)):
            i = wp.tid()
            v = wp.curlnoise(wp.rand_init(seed), p[i], wp.uint32(3), lac[0], gain[0])
            wp.atomic_add(loss, 0, wp.dot(v, w[i]))
    else:
        def body(seed: int, p: wp.array(dtype=vec), lac: wp.array(dtype=float), gain: wp.array(dtype=float),
                 w: wp.array(dtype=out_t), loss: wp.array(dtype=float)):
            i = wp.tid()
            v = wp.curlnoise(wp.rand_init(seed), p[i])
            wp.atomic_add(loss, 0, wp.dot(v, w[i]))
    body.__name__ = f"curl_loss_{dim}_{int(octaves_given)}"
    return wp.kernel(body, module=f"test_noise_compat_curl_{dim}_{int(octaves_given)}")


def _loss(kernel, p, lac, gain, w, grads=False):
    arrays = [wp.array(v, dtype=float if v.ndim == 1 else {2: wp.vec2, 3: wp.vec3, 4: wp.vec4}[v.shape[1]],
                       device="cpu", requires_grad=grads) for v in (p, lac, gain, w)]
    loss = wp.zeros(1, dtype=float, device="cpu", requires_grad=grads)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, len(p), inputs=[11, *arrays, loss], device="cpu")
    if not grads:
        return float(loss.numpy()[0])
    tape.backward(loss=loss)
    return [a.grad.numpy() for a in arrays[:3]]


@pytest.mark.parametrize("dim", [2, 3, 4])
@pytest.mark.parametrize("octaves_given", [False, True])
def test_curlnoise_adjoint_matches_central_differences(dim, octaves_given):
    """d loss / d p (and d / d lacunarity, d / d gain with 3 octaves) against central
    differences of the forward, in float64 on the NumPy side of the launches."""
    rng = np.random.default_rng(dim)
    p = rng.uniform(-2.0, 2.0, (5, dim)).astype(np.float32)
    w = rng.uniform(-1.0, 1.0, (5, 3 if dim > 2 else 2)).astype(np.float32)
    lac, gain = np.array([1.9], np.float32), np.array([0.45], np.float32)
    kernel = _curl_kernel(dim, octaves_given)
    got_p, got_lac, got_gain = _loss(kernel, p, lac, gain, w, grads=True)
    eps = 1e-3

    def fd(array, index):
        hi, lo = array.copy(), array.copy()
        hi[index] += eps
        lo[index] -= eps
        args = {"p": p, "lac": lac, "gain": gain}
        name = next(k for k, v in args.items() if v is array)
        return (_loss(kernel, **{**args, name: hi}, w=w) - _loss(kernel, **{**args, name: lo}, w=w)) / (2 * eps)

    want_p = np.array([[fd(p, (i, j)) for j in range(dim)] for i in range(len(p))])
    np.testing.assert_allclose(got_p, want_p, atol=2e-2 * max(1.0, np.abs(want_p).max()))
    assert np.abs(got_p).max() > 0.1       # not the silent zero it was
    if octaves_given:
        np.testing.assert_allclose(got_lac, [fd(lac, 0)], atol=5e-2 * max(1.0, abs(fd(lac, 0))))
        np.testing.assert_allclose(got_gain, [fd(gain, 0)], atol=2e-2 * max(1.0, abs(fd(gain, 0))))
