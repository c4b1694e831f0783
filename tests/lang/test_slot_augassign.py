"""``a[i].x *= v`` (an operator other than += / -= on a component of an array element) in a
kernel with backward code is refused, with warp-lang 1.19's words: its adjoint would replay the
load after the store and read the new value, a silently wrong gradient (it gave d/dv = 10 where
the derivative is 5 below). Forward-only kernels run it; += and -= (whose adjoints read no old
value) and components of local values keep exact gradients."""

import numpy as np
import pytest

import warp_interactive as wp

MESSAGE = "Differentiable composite slot augmented assignments with this operator are not supported"


@wp.kernel(module="unique")
def imul(src: wp.array(dtype=float), dst: wp.array(dtype=wp.vec3)):
    dst[0].x *= src[0]


@wp.kernel(module="unique")
def idiv(src: wp.array(dtype=float), dst: wp.array(dtype=wp.mat22)):
    dst[0][1, 1] /= src[0]


@wp.kernel(module="unique", enable_backward=False)
def imul_forward_only(src: wp.array(dtype=float), dst: wp.array(dtype=wp.vec3)):
    dst[0].x *= src[0]


@wp.kernel(module="unique")
def iadd(src: wp.array(dtype=float), dst: wp.array(dtype=wp.vec3)):
    dst[0].x += src[0] * src[0]


@wp.kernel(module="unique")
def local_imul(src: wp.array(dtype=float), dst: wp.array(dtype=wp.vec3)):
    v = dst[0]
    v.x *= src[0]
    dst[1] = v


@pytest.mark.parametrize("kernel,dtype", [(imul, wp.vec3), (idiv, wp.mat22)], ids=["imul", "idiv"])
def test_refused_with_backward(kernel, dtype):
    src = wp.array([2.0], dtype=float, requires_grad=True)
    dst = wp.zeros(1, dtype=dtype, requires_grad=True)
    with pytest.raises(wp.CodegenError, match=MESSAGE):
        wp.launch(kernel, dim=1, inputs=[src, dst])


def test_forward_only_kernels_run_it():
    src = wp.array([2.0], dtype=float)
    dst = wp.array([[5.0, 1.0, 1.0]], dtype=wp.vec3)
    wp.launch(imul_forward_only, dim=1, inputs=[src, dst])
    np.testing.assert_allclose(dst.numpy(), [[10.0, 1.0, 1.0]])


def test_add_and_local_components_keep_exact_gradients():
    src = wp.array([2.0], dtype=float, requires_grad=True)
    dst = wp.array([[5.0, 0.0, 0.0]], dtype=wp.vec3, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(iadd, dim=1, inputs=[src, dst])
    tape.backward(grads={dst: wp.array([[1.0, 1.0, 1.0]], dtype=wp.vec3)})
    np.testing.assert_allclose(dst.numpy(), [[9.0, 0.0, 0.0]])
    np.testing.assert_allclose(src.grad.numpy(), [4.0])        # d(x + s^2)/ds = 2s

    src = wp.array([2.0], dtype=float, requires_grad=True)
    dst = wp.array([[5.0, 0.0, 0.0], [0.0, 0.0, 0.0]], dtype=wp.vec3, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(local_imul, dim=1, inputs=[src, dst])
    tape.backward(grads={dst: wp.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], dtype=wp.vec3)})
    np.testing.assert_allclose(dst.numpy()[1], [10.0, 0.0, 0.0])
    np.testing.assert_allclose(src.grad.numpy(), [5.0])        # d(x * s)/ds = x
