"""warp-lang's element-access builtins, callable by name in kernels and functions:
``wp.address(a, i, ...)`` (the element, all indices given), ``wp.view(a, i, ...)`` (the
sub-array of fewer indices, or with slices), ``wp.array_store(a, i, ..., value)``,
``wp.index(v, i)`` / ``wp.indexref(v, i[, j])`` (a vector/quaternion/transform component, a
matrix row or element), ``wp.load(x)`` (the value) and ``wp.store(target, value)`` (a write to
what ``target`` designates: an ``address``/``index``/``indexref`` call, an element, a field or a
local).

warp-lang's code generator emits them for ``a[i]``, ``a[i] = v`` and ``v[i]``; here each is that
very expression, translated as the subscript or assignment it stands for, so values, index
checks and gradients are those of the subscript. In Python scope they raise, as warp-lang's
hidden builtins have no Python form."""

import ast

from ...types.array import array


def _kernel_only(name):
    def fn(*args, **kwargs):
        raise RuntimeError(f"wp.{name}() can only be called inside a @wp.kernel or @wp.func body")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``wp.{name}``: element access in kernels (lang/translation/pointer_ops.py)."
    fn._wp_pointer_op_ = name
    return fn


address = _kernel_only("address")
view = _kernel_only("view")
array_store = _kernel_only("array_store")
index = _kernel_only("index")
indexref = _kernel_only("indexref")
load = _kernel_only("load")
store = _kernel_only("store")

_REFERENCES = ("address", "index", "indexref")


def _subscript(base, indices, like):
    sl = indices[0] if len(indices) == 1 else ast.Tuple(elts=list(indices), ctx=ast.Load())
    node = ast.Subscript(value=base, slice=sl, ctx=ast.Load())
    ast.copy_location(node, like)
    if isinstance(sl, ast.Tuple):
        ast.copy_location(sl, like)
    return node


class PointerOpsMixin:
    def pointer_op_call(self, obj, node, kwargs):
        name = obj._wp_pointer_op_
        if kwargs:
            raise self.scope.error(f"wp.{name}() takes positional arguments only", node)
        return getattr(self, f"_p_{name}")(node, list(node.args))

    def _array_arg(self, name, args, node, least):
        if len(args) < least:
            raise self.scope.error(f"wp.{name}() takes an array and its indices", node)
        base = self.eval(args[0])
        t = getattr(base, "type", None)
        if not isinstance(t, array):
            raise self.scope.error(f"{name}() first argument must be an array", node)
        return t

    def _p_address(self, node, args):
        self._check_address(node, args)
        return self.eval(_subscript(args[0], args[1:], node))

    def _check_address(self, node, args):
        t = self._array_arg("address", args, node, 2)
        if len(args) - 1 != t.ndim:
            raise self.scope.error(f"The number of indices provided ({len(args) - 1}) does not match the "
                                   f"array dimensions ({t.ndim}) for array load", node)

    def _p_view(self, node, args):
        t = self._array_arg("view", args, node, 2)
        n = len(args) - 1
        if n > t.ndim:
            raise self.scope.error(f"Trying to create an array view with {n} indices, but the array only "
                                   f"has {t.ndim} dimension(s)", node)
        if n == t.ndim and not any(isinstance(a, ast.Slice) for a in args[1:]):
            raise self.scope.error("Expected to call `address()` instead of `view()`", node)
        return self.eval(_subscript(args[0], args[1:], node))

    def _p_array_store(self, node, args):
        t = self._array_arg("array_store", args, node, 3)
        if len(args) - 2 != t.ndim:
            raise self.scope.error(f"The number of indices provided ({len(args) - 2}) does not match the "
                                   f"array dimensions ({t.ndim}) for array store", node)
        target = _subscript(args[0], args[1:-1], node)
        target.ctx = ast.Store()
        self.assign_to(target, self.eval(args[-1]), args[-1])
        return None

    def _p_component(self, name, node, args, counts):
        if len(args) - 1 not in counts:
            raise self.scope.error(f"wp.{name}() takes a value and {' or '.join(map(str, counts))} "
                                   "index(es)", node)
        return self.eval(_subscript(args[0], args[1:], node))

    def _p_index(self, node, args):
        return self._p_component("index", node, args, (1,))

    def _p_indexref(self, node, args):
        return self._p_component("indexref", node, args, (1, 2))

    def _p_load(self, node, args):
        if len(args) != 1:
            raise self.scope.error("wp.load() takes one argument", node)
        return self.eval(args[0])

    def _p_store(self, node, args):
        if len(args) != 2:
            raise self.scope.error("wp.store() takes a reference and a value", node)
        target = self._store_target(args[0], node)
        self.assign_to(target, self.eval(args[1]), args[1])
        return None

    def _store_target(self, e, node):
        """The assignment target ``e`` designates: a reference call's subscript, or ``e`` itself."""
        if isinstance(e, ast.Call) and e.args and not e.keywords:
            fn = self.eval(e.func)
            op = getattr(getattr(fn, "obj", None), "_wp_pointer_op_", None)
            if op in _REFERENCES:
                if op == "address":
                    self._check_address(e, list(e.args))
                target = _subscript(e.args[0], e.args[1:], e)
                target.ctx = ast.Store()
                return target
        if isinstance(e, (ast.Name, ast.Subscript, ast.Attribute)):
            return e
        raise self.scope.error("wp.store() writes through wp.address(), wp.index() or wp.indexref(), "
                               "or to an element, a field or a local", node)
