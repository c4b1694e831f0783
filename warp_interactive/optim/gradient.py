"""``Adam`` and ``SGD``: warp-lang's constructors, ``set_params``, ``reset_internal_state`` and
``step(grad)``, for parameter arrays of any float scalar, vector or matrix type (updated as flat
scalar views; float16 parameters keep float32 moments)."""

from typing import Any

import warp_interactive as wp


def _flat(a, dtype=None):
    """A contiguous array as a 1-d array of its scalars."""
    scalar = getattr(a.dtype, "_wp_scalar_type_", a.dtype)
    if not a.is_contiguous:
        raise ValueError("optimizer arrays must be contiguous")
    count = a.size * wp.types.type_size(a.dtype)
    view = wp.array(ptr=a.ptr, dtype=dtype or scalar, shape=(count,), device=a.device, capacity=a.capacity)
    view._ref = a
    return view


def _check_grad(name, g, params):
    if not wp.types.types_equal(params.dtype, g.dtype):
        raise TypeError(f"{name} gradient dtype must match parameter dtype {wp.types.type_repr(params.dtype)}, "
                        f"got {wp.types.type_repr(g.dtype)}")
    if tuple(params.shape) != tuple(g.shape):
        raise ValueError(f"{name} gradient shape must match parameter shape {tuple(params.shape)}, got {tuple(g.shape)}")


def _state_buffer(buf, param, dtype):
    """Keep a state buffer that fits ``param`` (moved to its device), else a new zero one."""
    if buf is None or tuple(buf.shape) != tuple(param.shape) or not wp.types.types_equal(buf.dtype, dtype):
        return wp.zeros(param.shape, dtype=dtype, device=param.device)
    if buf.device != param.device:
        return buf.to(param.device)
    return buf


@wp.kernel
def _adam_step(g: wp.array(dtype=Any), m: wp.array(dtype=Any), v: wp.array(dtype=Any), lr: Any, beta1: Any,
               beta2: Any, t: Any, eps: Any, params: wp.array(dtype=Any)):
    i = wp.tid()
    one = type(lr)(1.0)
    gi = m.dtype(g[i])
    m[i] = beta1 * m[i] + (one - beta1) * gi
    v[i] = beta2 * v[i] + (one - beta2) * gi * gi
    mhat = m[i] / (one - wp.pow(beta1, t + one))
    vhat = v[i] / (one - wp.pow(beta2, t + one))
    params[i] = params.dtype(m.dtype(params[i]) - lr * mhat / (wp.sqrt(vhat) + eps))


def _moment_type(dtype):
    scalar = getattr(dtype, "_wp_scalar_type_", dtype)
    if scalar not in (wp.float16, wp.float32, wp.float64):
        raise RuntimeError(f"Unsupported dtype for Warp Adam optimizer: {wp.types.type_repr(dtype)}")
    if scalar is not wp.float16:
        return dtype
    if wp.types.type_is_vector(dtype):
        return wp.types.vector(dtype._length_, wp.float32)
    if wp.types.type_is_matrix(dtype):
        return wp.types.matrix(shape=dtype._shape_, dtype=wp.float32)
    return wp.float32


class Adam:
    """Adam (adaptive moment estimation), as ``torch.optim.Adam``: ``step(grad)`` updates each
    parameter array in place from its gradient."""

    def __init__(self, params=None, lr=0.001, betas=(0.9, 0.999), eps=1e-08):
        self.m = []
        self.v = []
        self.set_params(params)
        self.lr = lr
        self.beta1, self.beta2 = betas[0], betas[1]
        self.eps = eps
        self.t = 0

    def set_params(self, params):
        """Parameters to optimize; moment buffers that still fit are kept (moved with them)."""
        self.params = params
        if params is None or not isinstance(params, list) or not params:
            return
        if len(self.m) != len(params):
            self.m = [None] * len(params)
        if len(self.v) != len(params):
            self.v = [None] * len(params)
        for i, p in enumerate(params):
            dtype = _moment_type(p.dtype)
            self.m[i] = _state_buffer(self.m[i], p, dtype)
            self.v[i] = _state_buffer(self.v[i], p, dtype)

    def reset_internal_state(self):
        for a in self.m + self.v:
            a.zero_()
        self.t = 0

    def step(self, grad):
        if self.params is None:
            raise RuntimeError("Adam parameters must be set before calling step(), got None")
        for i, p in enumerate(self.params):
            Adam.step_detail(grad[i], self.m[i], self.v[i], self.lr, self.beta1, self.beta2, self.t, self.eps, p)
        self.t += 1

    @staticmethod
    def step_detail(g, m, v, lr, beta1, beta2, t, eps, params):
        """One Adam update of ``params`` (step index ``t``)."""
        _check_grad("Adam", g, params)
        if params.size == 0:
            return
        fm = _flat(m)
        s = fm.dtype
        wp.launch(_adam_step, dim=fm.shape[0], device=params.device,
                  inputs=[_flat(g), fm, _flat(v), s(lr), s(beta1), s(beta2), s(t), s(eps), _flat(params)])


@wp.kernel
def _sgd_step(g: wp.array(dtype=Any), b: wp.array(dtype=Any), lr: Any, momentum: Any, dampening: Any,
              weight_decay: Any, nesterov: int, t: int, params: wp.array(dtype=Any)):
    i = wp.tid()
    zero = type(lr)(0.0)
    gt = g[i]
    if weight_decay != zero:
        gt += weight_decay * params[i]
    if momentum != zero:
        bt = gt
        if t > 0:
            bt = momentum * b[i] + (type(lr)(1.0) - dampening) * gt
        if nesterov == 1:
            gt += momentum * bt
        else:
            gt = bt
        b[i] = bt
    params[i] = params[i] - lr * gt


class SGD:
    """Stochastic gradient descent with momentum, dampening, weight decay and Nesterov momentum,
    as ``torch.optim.SGD``."""

    def __init__(self, params=None, lr=0.001, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        self.b = []
        self.set_params(params)
        self.lr = lr
        self.momentum = momentum
        self.dampening = dampening
        self.weight_decay = weight_decay
        self.nesterov = nesterov
        self.t = 0

    def set_params(self, params):
        self.params = params
        if params is None or not isinstance(params, list) or not params:
            return
        if len(self.b) != len(params):
            self.b = [None] * len(params)
        for i, p in enumerate(params):
            self.b[i] = _state_buffer(self.b[i], p, p.dtype)

    def reset_internal_state(self):
        for b in self.b:
            b.zero_()
        self.t = 0

    def step(self, grad):
        if self.params is None:
            raise RuntimeError("SGD parameters must be set before calling step(), got None")
        for i, p in enumerate(self.params):
            SGD.step_detail(grad[i], self.b[i], self.lr, self.momentum, self.dampening, self.weight_decay,
                            self.nesterov, self.t, p)
        self.t += 1

    @staticmethod
    def step_detail(g, b, lr, momentum, dampening, weight_decay, nesterov, t, params):
        """One SGD update of ``params`` with momentum buffer ``b`` (step index ``t``)."""
        _check_grad("SGD", g, params)
        if not wp.types.types_equal(params.dtype, b.dtype):
            raise TypeError(f"SGD momentum buffer dtype must match parameter dtype {wp.types.type_repr(params.dtype)}, "
                            f"got {wp.types.type_repr(b.dtype)}")
        if params.size == 0:
            return
        fp = _flat(params)
        s = fp.dtype
        wp.launch(_sgd_step, dim=fp.shape[0], device=params.device,
                  inputs=[_flat(g), _flat(b), s(lr), s(momentum), s(dampening), s(weight_decay), int(bool(nesterov)),
                          int(t), fp])
