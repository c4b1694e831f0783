"""The builtins that the registry tables cannot call generically: wp.cast (a type
argument), wp.print, wp.breakpoint (stdout, CUDA refusal), the in-place transform setters' error
path, the tuple forms, and their Python-scope spellings."""

import ctypes

import numpy as np
import pytest

import warp_interactive as wp

CAST_PAIRS = [(wp.float32, wp.int32), (wp.int32, wp.float32), (wp.float64, wp.uint64),
              (wp.uint16, wp.float16), (wp.int8, wp.uint8), (wp.vec2h, wp.uint32),
              (wp.uint64, wp.vec2f), (wp.vec4f, wp.types.matrix((2, 2), wp.int32))]


def _np_of(t):
    s = getattr(t, "_wp_scalar_type_", t)
    return np.dtype(wp.dtype_to_numpy(s)), tuple(getattr(t, "_shape_", ()))


def _cast_kernel(src, dst):
    @wp.kernel(module=f"wpi_test_cast_{src.__name__}_{dst.__name__}")
    def k(a: wp.array(dtype=src), out: wp.array(dtype=dst)):
        i = wp.tid()
        out[i] = wp.cast(a[i], dst)
    return k


@pytest.mark.parametrize("src,dst", CAST_PAIRS, ids=[f"{a.__name__}-{b.__name__}" for a, b in CAST_PAIRS])
def test_cast_reinterprets_the_bits_like_numpy_view(src, dst):
    snp, sshape = _np_of(src)
    dnp, dshape = _np_of(dst)
    rng = np.random.default_rng(4)
    raw = rng.integers(0, 256, 16 * snp.itemsize * max(1, int(np.prod(sshape))), dtype=np.uint8)
    values = raw.view(snp).reshape((16,) + sshape)
    if snp.kind == "f":   # no NaN payloads: NumPy's float16 conversions may quiet them
        values = np.where(np.isfinite(values), values, 1).astype(snp)
    out = wp.zeros(16, dtype=dst)
    wp.launch(_cast_kernel(src, dst), dim=16, inputs=[wp.array(values, dtype=src), out])
    want = np.ascontiguousarray(values).view(np.uint8).view(dnp).reshape((16,) + dshape)
    np.testing.assert_array_equal(out.numpy().view(np.uint8), want.view(np.uint8))


def test_cast_in_python_scope():
    assert wp.cast(1.0, wp.int32) == 0x3F800000
    assert wp.cast(wp.int32(0x40000000), dtype=wp.float32) == 2.0
    assert wp.cast(wp.vec2h(1.0, 2.0), wp.uint32) == 0x40003C00


def test_cast_of_different_sizes_is_a_build_error():
    @wp.kernel(module="wpi_test_bad_cast")
    def bad(a: wp.array(dtype=float), out: wp.array(dtype=wp.int64)):
        out[0] = wp.cast(a[0], wp.int64)

    with pytest.raises(wp.CodegenError, match=r"float32 \(4 bytes\) as int64 \(8 bytes\)"):
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=float), wp.zeros(1, dtype=wp.int64)])


@wp.kernel
def print_kernel(v: wp.array(dtype=wp.vec3), x: wp.array(dtype=float)):
    i = wp.tid()
    wp.print(v[i])
    wp.print(x[i])


def test_wp_print_prints_like_print(capfd):
    capfd.readouterr()
    wp.launch(print_kernel, dim=1, inputs=[wp.array([[1.0, 2.5, -3.0]], dtype=wp.vec3),
                                           wp.array([0.25], dtype=float)])
    ctypes.CDLL(None).fflush(None)
    out = capfd.readouterr().out.split()
    assert [float(t) for t in " ".join(out).replace("[", " ").replace("]", " ").split()] == \
        [1.0, 2.5, -3.0, 0.25]
    wp.print(wp.vec3(1.0, 2.0, 3.0))
    assert "1.0, 2.0, 3.0" in capfd.readouterr().out


@wp.kernel(module="wpi_test_breakpoint")
def breakpoint_kernel(out: wp.array(dtype=int)):
    i = wp.tid()
    if i == 1:
        wp.breakpoint()
    out[i] = i


def test_breakpoint_without_a_debugger_prints_and_goes_on(capfd):
    capfd.readouterr()
    out = wp.zeros(4, dtype=int)
    wp.launch(breakpoint_kernel, dim=4, inputs=[out])
    ctypes.CDLL(None).fflush(None)
    assert capfd.readouterr().out.count("wp.breakpoint(): no debugger attached") == 1
    np.testing.assert_array_equal(out.numpy(), np.arange(4))


def test_breakpoint_is_a_clear_cuda_build_error():
    pytest.importorskip("cuda.bindings.nvrtc", reason="the CUDA extra is not installed")
    from warp_interactive.codegen.target import CUDA
    from warp_interactive.compiler import nvrtc
    from warp_interactive.runtime.module import get_module
    m = get_module("wpi_test_breakpoint")
    with pytest.raises(wp.CompileError, match="wp.breakpoint.. is not supported in CUDA kernels"):
        nvrtc.compile_source(m.source(CUDA, False), 90, name="breakpoint_check")


@wp.kernel(module="wpi_test_bad_setter")
def set_element(xs: wp.array(dtype=wp.transform)):
    wp.transform_set_translation(xs[0], wp.vec3(1.0, 2.0, 3.0))


def test_transform_setter_on_an_array_element_names_the_fix():
    with pytest.raises(wp.CodegenError, match="must be a variable name"):
        wp.launch(set_element, dim=1, inputs=[wp.zeros(1, dtype=wp.transform)])


@wp.kernel
def setters(xs: wp.array(dtype=wp.transform), out: wp.array(dtype=wp.transform)):
    i = wp.tid()
    x = xs[i]
    wp.transform_set_translation(x, wp.vec3(0.0, 0.0, 1.0))
    wp.transform_set_rotation(x, wp.quat_identity())
    out[i] = x


def test_transform_setters_example_of_the_reference():
    xform = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_rpy(0.0, 0.0, np.pi / 2.0))
    out = wp.empty(1, dtype=wp.transform)
    wp.launch(setters, dim=1, inputs=[wp.array([xform], dtype=wp.transform)], outputs=[out])
    np.testing.assert_allclose(out.numpy(), [[0, 0, 1, 0, 0, 0, 1]], atol=1e-6)


@wp.kernel
def polar(m: wp.array(dtype=wp.mat22), s: wp.array(dtype=wp.vec2), p: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    U, sigma, V = wp.svd2(m[i])
    s[i] = sigma
    p[i] = U * wp.transpose(V)


def test_svd2_tuple_form_example_of_the_reference():
    s, p = wp.empty(1, dtype=wp.vec2), wp.empty(1, dtype=wp.mat22)
    m = np.array([[3.0, 0.0], [4.0, 5.0]])
    wp.launch(polar, dim=1, inputs=[wp.array([m], dtype=wp.mat22)], outputs=[s, p])
    u, sv, vt = np.linalg.svd(m)
    np.testing.assert_allclose(s.numpy()[0], sv, rtol=1e-5)
    np.testing.assert_allclose(p.numpy()[0], u @ vt, atol=1e-5)


def test_python_scope_calls_of_the_new_builtins():
    assert wp.bit_count(45) == 4 and wp.bit_count(wp.int8(-1)) == 8 and wp.bit_count(wp.int64(-1)) == 64
    assert wp.copysign(3.0, -1.0) == -3.0 and wp.copysign(-3.0, 1.0) == 3.0
    assert wp.unot(False) and not wp.unot(wp.int32(3))
    np.testing.assert_allclose(wp.quat_to_rpy(wp.quat_rpy(0.1, 0.2, 0.3)), [0.1, 0.2, 0.3], atol=1e-6)
    np.testing.assert_allclose(wp.norm_huber(wp.vec3(3.0, 4.0, 0.0)), 4.5)


# --- spatial_jacobian / spatial_mass: a branched chain, against loops over the documented layout ---------
@wp.kernel
def chain_matrices(S: wp.array(dtype=wp.spatial_vectord), parents: wp.array(dtype=int),
                   qd_start: wp.array(dtype=int), I_s: wp.array(dtype=wp.spatial_matrixd),
                   J: wp.array(dtype=wp.float64), M: wp.array(dtype=wp.float64)):
    wp.spatial_jacobian(S, parents, qd_start, 1, 4, 3, J)
    wp.spatial_mass(I_s, 1, 4, 2, M)


def _chain():
    # joints 0..5; the articulation is joints 1..4: 1 is a root, 2 and 3 hang off 1, 4 off 3
    parents = np.array([-1, -1, 1, 1, 3, -1], np.int32)
    qd_start = np.array([0, 2, 5, 6, 8, 9, 11], np.int32)        # dofs per joint: 2 3 1 2 1 2
    rng = np.random.default_rng(11)
    return parents, qd_start, rng.normal(size=(11, 6)), rng.normal(size=(6, 6, 6))


def _chain_reference(parents, qd_start, S, I):
    dof0, ndof = qd_start[1], qd_start[5] - qd_start[1]
    J = np.zeros(3 + 24 * ndof)
    for i in range(4):
        j = 1 + i
        while j >= 0:
            for k in range(qd_start[j], qd_start[j + 1]):
                J[3 + (i * 6 + np.arange(6)) * ndof + (k - dof0)] = S[k]
            j = parents[j]
    M = np.zeros(2 + 24 * 24)
    for m in range(4):
        for r in range(6):
            M[2 + (m * 6 + r) * 24 + m * 6: 2 + (m * 6 + r) * 24 + m * 6 + 6] = I[1 + m][r]
    return J, M


def test_spatial_jacobian_and_mass_layout_and_gradients():
    parents, qd_start, S, I = _chain()
    Jw, Mw = _chain_reference(parents, qd_start, S, I)
    s = wp.array(S, dtype=wp.spatial_vectord, requires_grad=True)
    i_s = wp.array(I, dtype=wp.spatial_matrixd, requires_grad=True)
    J = wp.zeros(len(Jw), dtype=wp.float64, requires_grad=True)
    M = wp.zeros(len(Mw), dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(chain_matrices, dim=1, inputs=[s, wp.array(parents, dtype=int),
                                                 wp.array(qd_start, dtype=int), i_s, J, M])
    np.testing.assert_array_equal(J.numpy(), Jw)
    np.testing.assert_array_equal(M.numpy(), Mw)
    # the outputs are linear in S and I_s: the gradient of sum(w * out) is the reference's map of w
    rng = np.random.default_rng(12)
    wj, wm = rng.normal(size=len(Jw)), rng.normal(size=len(Mw))
    tape.backward(grads={J: wp.array(wj, dtype=wp.float64), M: wp.array(wm, dtype=wp.float64)})
    gs, gi = np.zeros_like(S), np.zeros_like(I)
    for idx in np.ndindex(S.shape):
        e = np.zeros_like(S)
        e[idx] = 1
        gs[idx] = wj @ _chain_reference(parents, qd_start, e, np.zeros_like(I))[0]
    for idx in np.ndindex(I.shape):
        e = np.zeros_like(I)
        e[idx] = 1
        gi[idx] = wm @ _chain_reference(parents, qd_start, np.zeros_like(S), e)[1]
    np.testing.assert_allclose(s.grad.numpy(), gs, atol=1e-12)
    np.testing.assert_allclose(i_s.grad.numpy(), gi, atol=1e-12)
