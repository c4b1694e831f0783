"""``jax_kernel`` for what the FFI handler (jax_ffi.py) does not take: kernels with scalar
parameters (static values in JAX, as warp-lang's), in-out arguments (``in_out_argnames``),
outputs whose shape is not the launch shape (``output_dims``), or a ``vmap_method`` other than
``sequential``.

Such a call is a JAX host callback (as ``jax_callable``, jax_callable.py): the inputs are copied
into Warp CPU arrays, the kernel is launched on the CPU device and the outputs are copied back.
With ``enable_backward=True`` the kernel's adjoint is the call's VJP (``jax.custom_vjp`` over a
second callback that launches the kernel with ``adjoint=True``).
"""

import numpy as np

from .jax_callable import FfiCallable, _Param


class HostJaxKernel(FfiCallable):
    """A warp kernel called like a JAX function through a host callback."""

    def __init__(self, kernel, num_outputs, vmap_method, launch_dims, output_dims, in_out_argnames,
                 enable_backward, has_side_effect, block_dim):
        if enable_backward and (output_dims is not None or in_out_argnames):
            raise ValueError("output_dims and in_out_argnames are not supported when enable_backward=True")
        self.kernel, self.launch_dims, self.block_dim = kernel, launch_dims, block_dim
        self.enable_backward = bool(enable_backward)
        params = [_Param(name, t) for name, t in kernel.arg_types.items()]
        super().__init__(kernel, num_outputs, 1, vmap_method, output_dims, in_out_argnames, has_side_effect,
                         params=params)
        self.__name__ = kernel.key

    def __call__(self, *args, output_dims=None, launch_dims=None, vmap_method=None):
        if launch_dims is not None and self.enable_backward:
            raise ValueError("launch_dims cannot be overridden per call when enable_backward=True")
        self._call_launch_dims = launch_dims if launch_dims is not None else self.launch_dims
        if not self.enable_backward:
            return super().__call__(*args, output_dims=output_dims, vmap_method=vmap_method)
        return self._differentiable_call(args, vmap_method)

    # --- what the callback runs -----------------------------------------------------------------
    def _launch_shape(self, args):
        dims = self._call_launch_dims
        if dims is None:
            if self.first_array_arg is None:
                raise ValueError("Unable to determine launch dimensions")
            first = self.input_args[self.first_array_arg]
            return tuple(int(d) for d in args[self.first_array_arg].shape[:first.type.ndim])
        return (int(dims),) if isinstance(dims, (int, np.integer)) else tuple(int(d) for d in dims)

    def _dims(self, p, output_dims, args):
        if output_dims is None:     # warp-lang's kernels: outputs take the launch shape
            return self._launch_shape(args)
        return super()._dims(p, output_dims, args)

    def _context(self, args):
        return self._launch_shape(args)

    def _invoke(self, inputs, outputs, shape):
        from ..runtime.launch import launch
        launch(self.kernel, dim=shape, inputs=list(inputs.values()), outputs=outputs,
               device="cpu", block_dim=self.block_dim or 1)

    # --- enable_backward: the kernel's adjoint as the VJP ---------------------------------------
    def _differentiable_call(self, args, vmap_method):
        import jax
        if len(args) != self.num_inputs:
            return super().__call__(*args)      # its message
        statics = {p.name: x for p, x in zip(self.input_args, args) if not p.is_array}
        arrays = [x for p, x in zip(self.input_args, args) if p.is_array]
        shape = self._launch_shape(args)

        def rebuild(xs):
            it = iter(xs)
            return [next(it) if p.is_array else statics[p.name] for p in self.input_args]

        @jax.custom_vjp
        def call(*xs):
            return tuple(FfiCallable.__call__(self, *rebuild(xs), vmap_method=vmap_method))

        def call_fwd(*xs):
            return call(*xs), xs

        def call_bwd(xs, cotangents):
            return tuple(self._adjoint(xs, cotangents, statics, shape, vmap_method))

        call.defvjp(call_fwd, call_bwd)
        return list(call(*arrays))

    def _adjoint(self, xs, cotangents, statics, shape, vmap_method):
        """Gradients of the array inputs: the kernel's adjoint launched on host copies of the
        inputs, zeroed outputs and the outputs' cotangents."""
        import jax
        grad_types = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in xs]
        arrays = [p for p in self.input_args if p.is_array]
        cots = [jax.numpy.asarray(c).astype(o.dtype) for c, o in zip(cotangents, self._out_types_for(xs, shape))]

        def host(*values):
            from ..runtime.launch import launch
            from ..runtime.utils import synchronize_device
            from ..types.array import array
            n = len(arrays)
            ins = [array(np.array(v, copy=True), dtype=p.type.dtype, device="cpu") for p, v in zip(arrays, values[:n])]
            adj_ins = [array(np.zeros(v.shape, dtype=np.asarray(v).dtype), dtype=p.type.dtype, device="cpu")
                       for p, v in zip(arrays, values[:n])]
            outs = [array(shape=tuple(c.shape[:p.type.ndim]), dtype=p.type.dtype, device="cpu")
                    for p, c in zip(self.output_args, values[n:])]
            for o in outs:
                o.zero_()
            adj_outs = [array(np.array(c, copy=True), dtype=p.type.dtype, device="cpu")
                        for p, c in zip(self.output_args, values[n:])]
            it_in, it_adj = iter(ins), iter(adj_ins)
            inputs = [next(it_in) if p.is_array else statics[p.name] for p in self.input_args]
            adj_inputs = [next(it_adj) if p.is_array else type(statics[p.name])(0) for p in self.input_args]
            launch(self.kernel, dim=shape, inputs=inputs, outputs=outs, adj_inputs=adj_inputs,
                   adj_outputs=adj_outs, adjoint=True, device="cpu", block_dim=self.block_dim or 1)
            synchronize_device("cpu")
            return tuple(np.asarray(g.numpy()).reshape(t.shape).astype(t.dtype, copy=False)
                         for g, t in zip(adj_ins, grad_types))

        grads = jax.pure_callback(host, grad_types, *xs, *cots,
                                  vmap_method=vmap_method or self.vmap_method or "sequential")
        return [g if jax.numpy.issubdtype(x.dtype, jax.numpy.inexact)
                else np.zeros(x.shape, dtype=jax.dtypes.float0) for g, x in zip(grads, xs)]

    def _out_types_for(self, xs, shape):
        return [p.output_type(shape) for p in self.output_args]
