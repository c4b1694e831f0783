"""Arrays of @wp.struct elements under a tape: loads, stores and field updates of nested structs
with vector and matrix fields differentiate (field-wise gradients in the struct array's grad),
against central finite differences in float64."""

import numpy as np
import pytest

import warp_interactive as wp

F64 = wp.float64


@wp.struct
class Inner:
    v: wp.vec3d
    m: F64


@wp.struct
class Body:
    a: F64
    v: wp.vec3d
    rot: wp.mat22d
    inner: Inner
    tag: int                       # not differentiable: carried along
    weights: wp.array(dtype=F64)   # an array field: read through, no gradient of its own


@wp.kernel
def k_read(xs: wp.array(dtype=Body), out: wp.array(dtype=F64)):
    i = wp.tid()
    s = xs[i]
    r = s.rot * wp.vec2d(s.v[1], s.v[2])
    out[i] = (s.a * s.v[0] + wp.length(s.inner.v) * s.inner.m + wp.dot(s.v, s.inner.v)
              + r[0] * r[1] + s.weights[0] * s.a)


@wp.kernel
def k_update_store(xs: wp.array(dtype=Body), ys: wp.array(dtype=Body)):
    i = wp.tid()
    s = xs[i]
    s.a = s.a * s.inner.m
    s.inner.v = wp.cross(s.v, s.inner.v)
    ys[i] = s                      # a struct store: its adjoint takes ys's gradient


@wp.kernel
def k_reduce(ys: wp.array(dtype=Body), out: wp.array(dtype=F64)):
    i = wp.tid()
    y = ys[i]
    out[i] = y.a * y.a + wp.dot(y.inner.v, wp.vec3d(1.0, -2.0, 0.5)) + wp.sin(y.rot[0, 1])


@wp.kernel
def k_shared_read(xs: wp.array(dtype=Body), out: wp.array(dtype=F64)):
    i = wp.tid()
    s = xs[0]                      # every thread reads one element: gradients add atomically
    out[i] = s.a * F64(i + 1) + s.inner.v[2]


N = 4
FLOATS = [("a", ()), ("v", (3,)), ("rot", (2, 2)), ("inner", "v", (3,)), ("inner", "m", ())]


def _bodies(seed):
    rng = np.random.default_rng(seed)
    weights = wp.array([0.5, 2.0], dtype=F64)
    items = []
    for i in range(N):
        b = Body()
        b.a = F64(rng.uniform(0.5, 1.5))
        b.v = wp.vec3d(*rng.uniform(-1, 1, 3))
        b.rot = wp.mat22d(*rng.uniform(-1, 1, 4))
        b.inner = Inner()
        b.inner.v = wp.vec3d(*rng.uniform(-1, 1, 3))
        b.inner.m = F64(rng.uniform(0.5, 1.5))
        b.tag = i
        b.weights = weights
        items.append(b)
    return wp.array(items, dtype=Body, requires_grad=True), weights


def _field(rec, path):
    for p in path:
        rec = rec[p]
    return rec


def _pipelines():
    def read(xs):
        out = wp.zeros(N, dtype=F64, requires_grad=True)
        wp.launch(k_read, dim=N, inputs=[xs, out])
        return out

    def update(xs):
        ys = wp.zeros(N, dtype=Body, requires_grad=True)
        out = wp.zeros(N, dtype=F64, requires_grad=True)
        wp.launch(k_update_store, dim=N, inputs=[xs, ys])
        wp.launch(k_reduce, dim=N, inputs=[ys, out])
        return out

    def shared(xs):
        out = wp.zeros(N, dtype=F64, requires_grad=True)
        wp.launch(k_shared_read, dim=N, inputs=[xs, out])
        return out
    return {"read": read, "update_store": update, "shared_read": shared}


PIPELINES = _pipelines()


def _fd(run, xs, path, eps=1e-6):
    grad = np.zeros(_field(xs.numpy(), path).shape)
    flat = grad.reshape(N, -1)
    for i in range(N):
        for k in range(flat.shape[1]):
            total = 0.0
            for sgn in (1.0, -1.0):
                probe = wp.clone(xs, requires_grad=False)
                field = _field(probe.numpy(), path)       # a view of probe's (host) memory
                field.reshape(N, -1)[i, k] += sgn * eps
                total += sgn * run(probe).numpy().sum()
            flat[i, k] = total / (2 * eps)
    return grad


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_struct_array_gradient_matches_finite_differences(name):
    run = PIPELINES[name]
    xs, _ = _bodies(3)
    tape = wp.Tape()
    with tape:
        out = run(xs)
    tape.backward(grads={out: np.ones(N)})
    g = xs.grad.numpy()
    for entry in FLOATS:
        path = entry[:-1]
        np.testing.assert_allclose(_field(g, path), _fd(run, xs, path), rtol=1e-6, atol=1e-8,
                                   err_msg=".".join(path))
