"""Call translation: builtins, casts, constructors, user functions and intrinsics."""

import ast
import builtins as py_builtins

from ...types import composite as comp
from ...types import scalars as sc
from ...types.tuple_type import TupleType
from .. import ir
from ...errors import TypeMismatch
from ..builtins.registry import Overload, registry, resolve, type_name
from ..builtins.function import BuiltinFunction, tile_ops  # noqa: F401  (BuiltinFunction re-exported)
from ..ir import PyValue
from . import block_funcs, grad_of
from . import starred
from . import dispatch
from . import static as static_mod
from .intrinsics_transform import constructor_args as transform_constructor_args
from .intrinsics_transform import constructor_keywords
from .array_views import is_array_constructor, is_zeros
from .addresses import address_of

_PY_BUILTIN_MAP = {min: "min", max: "max", abs: "abs", round: "round", pow: "pow"}
_TYPE_FACTORIES = {comp.vector: "vector", comp.matrix: "matrix", comp.quaternion: "quaternion",
                   comp.transformation: "transformation"}


def _takes_no_keywords(obj):
    """Python's builtins and the scalar casts: their kernel forms take positional arguments only."""
    return obj in _PY_BUILTIN_MAP or obj in (float, int, py_builtins.bool, len, print) or \
        (isinstance(obj, type) and sc.is_scalar(obj))


class CallsMixin:
    def translate_call(self, node):
        if self.src.statics and static_mod.position(node) in self.src.statics:
            return static_mod.evaluate(self, node)   # evaluated when the kernel was declared
        _check_call_syntax(self, node)
        if starred.has_starred(node):                # f(*v): the elements as arguments
            node = starred.expand(self, node)
        func = self.eval(node.func)
        if isinstance(func, ir.Var) and getattr(func.type, "_wp_call_", None) is not None:
            return self.call_resolved(func.type._wp_call_, node, {k.arg: k.value for k in node.keywords},
                                      receiver=func)
        if isinstance(func, ir.Var) or isinstance(func, tuple):
            raise self.scope.error("only functions and types can be called in kernels")
        obj = func.obj
        kwargs = {k.arg: k.value for k in node.keywords}
        handler = self._call_handler(obj)
        if handler is None:
            raise self.scope.error(f"{_callable_name(obj)} cannot be called from a kernel")
        if kwargs and _takes_no_keywords(obj):   # (ignoring one, e.g. max(key=...), misleads)
            raise self.scope.error(f"{_callable_name(obj)}() got an unexpected keyword argument "
                                   f"'{next(iter(kwargs))}'")
        return handler(obj, node, kwargs)

    def _call_handler(self, obj):
        if obj is static_mod.static:
            return lambda o, n, kw: static_mod.evaluate(self, n)
        factory = _TYPE_FACTORIES.get(obj)
        if factory is not None:
            return self._type_factory_call

        if isinstance(obj, BuiltinFunction):
            return self.intrinsics.get(obj.key, CallsMixin.call_registered).__get__(self)
        if obj in _PY_BUILTIN_MAP:
            return lambda o, n, kw: self.call_builtin(_PY_BUILTIN_MAP[o], self.args_of(n))
        if obj is float or obj is int or obj is py_builtins.bool:
            return lambda o, n, kw: self.cast(sc.canonical_scalar(o), n)
        if obj is len:
            return self._len_call
        if obj is type:
            return self._type_call
        if obj is print:
            return lambda o, n, kw: self.emit_print(n)
        if isinstance(obj, type) and sc.is_scalar(obj):
            return lambda o, n, kw: self.cast(o, n)
        if comp.is_composite(obj):
            return lambda o, n, kw: self.construct(o, constructor_keywords(self, o, self.args_of(n), kw)
                                                   if kw else self.args_of(n))
        if hasattr(obj, "_wp_struct_"):
            return self.construct_struct
        if getattr(obj, "_wp_function_", False):
            return self.call_user_function
        if hasattr(obj, "_wp_resolve_call_"):
            return self.call_resolved
        if is_array_constructor(obj):
            return self.array_from_ptr
        if is_zeros(obj):
            return self.fixed_zeros
        if obj is address_of:
            return self.address_of_call
        if getattr(obj, "_wp_pointer_op_", None):
            return self.pointer_op_call
        if obj is grad_of.grad:
            return lambda o, n, kw: PyValue(grad_of.GradOf(self._grad_target(n, kw)))
        if isinstance(obj, grad_of.GradOf):
            return lambda o, n, kw: grad_of.translate(self, o, n, kw)
        return None

    def _len_call(self, obj, node, kwargs):
        """``len(x)``; of a tuple, its length (a constant, as the reference)."""
        values = [self.eval(a) for a in node.args]
        if len(values) == 1 and isinstance(values[0], tuple) and not \
                (values[0] and isinstance(values[0][0], str)):
            return PyValue(len(values[0]))
        return self.call_builtin("len", [self.to_var(v, a) for v, a in zip(values, node.args)])

    def _type_call(self, obj, node, kwargs):
        """``type(x)``: the type of a kernel value, known at build time (``type(v)()`` makes a
        zero of it, as warp-lang)."""
        if len(node.args) != 1:
            raise self.scope.error("type() in a kernel takes one value")
        v = self.eval(node.args[0])
        if isinstance(v, ir.Var) and not v.literal:
            return PyValue(v.type)
        if isinstance(v, (ir.Var, PyValue)):     # a literal: Python's type (float / int / bool)
            return PyValue(type(v.constant if isinstance(v, ir.Var) else v.obj))
        raise self.scope.error("type() of a tuple is not supported in kernels")

    def _type_factory_call(self, obj, node, kwargs):
        """``wp.types.vector(x, y, z)`` / ``wp.types.matrix(shape=(3, 3), dtype=float)`` in a
        kernel: the anonymous constructor (with no components, a zero value), as the reference."""
        return self.intrinsics[_TYPE_FACTORIES[obj]].__get__(self)(obj, node, kwargs)

    def args_of(self, node):
        return [self.eval_var(a) for a in node.args]

    def call_registered(self, obj, node, kwargs, args=None):
        if kwargs:   # by the overloads' parameter names, as the reference (expect_near(a, b, tolerance=t))
            node = self._keywords_as_positions(obj.key, node, kwargs)
            args = None
        args = self.args_of(node) if args is None else args
        if any(ov.writes for ov in registry[obj.key].overloads):
            return self.call_with_writes(obj.key, args, node)
        return self.call_builtin(obj.key, args)

    def _keywords_as_positions(self, name, node, kwargs):
        """The call with its keyword arguments moved to their positions: the first overload whose
        parameters after the positional ones are exactly the keywords' names sets the order."""
        n = len(node.args)
        for ov in registry[name].overloads:
            rest = list(ov.input_types)[n:]
            if set(rest) == set(kwargs) and len(rest) == len(kwargs):
                return ast.copy_location(ast.Call(func=node.func, keywords=[],
                                                  args=list(node.args) + [kwargs[k] for k in rest]), node)
        accepted = sorted({", ".join(ov.input_types) for ov in registry[name].overloads})
        raise self.scope.error(f"wp.{name}(): no overload takes {n} positional argument(s) and the "
                               f"keyword(s) {', '.join(kwargs)}; its parameters: "
                               + "; ".join(f"({a})" for a in accepted))

    def call_with_writes(self, name, args, node):
        """A builtin with out-parameters: the written arguments' names are rebound to new values."""
        try:
            ov, ret = resolve(name, [a.type for a in args])
        except TypeMismatch as first_error:
            found = self._resolve_with_literals(name, args)
            if found is None:
                raise self.scope.error(str(first_error)) from None
            ov, ret, args = found
        if not ov.writes:
            return self.emit_call(ov, ret, args)
        for i in ov.writes:
            if not isinstance(node.args[i], ast.Name):
                raise self.scope.error(f"argument {i + 1} of wp.{name}() must be a variable name: "
                                       f"the call assigns a new value to it", node.args[i])
        result = [self.scope.new_var(ret)] if ret is not None else []
        written = [self.scope.new_var(args[i].type) for i in ov.writes]
        self.scope.emit(ir.Call(out=result + written, func=ov, args=args))
        for i, v in zip(ov.writes, written):
            self.scope.bind(node.args[i].id, v)
        return result[0] if result else None

    # --- casts and constructors -------------------------------------------------------------------
    def cast(self, to, node):
        if len(node.args) != 1:
            raise self.scope.error(f"{to.__name__}() takes exactly one argument")
        v = self.eval(node.args[0])
        if isinstance(v, ir.Var) and v.bound_literal and isinstance(v.constant, (int, float)):
            v = PyValue(v.constant)    # `x = 0.1; wp.float64(x)` is 0.1 in float64 (warp-lang)
        if isinstance(v, PyValue) and isinstance(v.obj, (int, float)):
            value = float(v.obj) if sc.is_float(to) else (py_builtins.bool(v.obj) if to is sc.bool_
                                                          else int(v.obj))
            return self.scope.const(value, to)
        v = self.to_var(v, node.args[0])
        if not sc.is_scalar(v.type):
            raise self.scope.error(f"cannot cast {type_name(v.type)} to {to.__name__}")
        return self.cast_var(v, to)

    def cast_var(self, v, to):
        """The scalar variable ``v`` converted to scalar type ``to`` (C++'s conversion)."""
        if v.type is to:
            return v
        ov = Overload(name=to.__name__, input_types={"x": v.type}, value_func=None,
                      cpp="cast", differentiable=sc.is_float(to) and sc.is_float(v.type))
        return self.emit_call(ov, to, [v], template=f"<{to._cpp}>")

    def construct(self, t, args):
        """``vec3(...)``, ``mat22(...)``, ``quat(...)``, ``transform(p, q)`` in a kernel."""
        s = t._wp_scalar_type_
        args = [self._literal_arg(a, s) for a in args]
        if comp.is_vector(t) and t._length_ == 6 and len(args) == 2 and \
                all(comp.is_vector(a.type) and a.type._length_ == 3 for a in args):
            return self.call_builtin("spatial_vector", args)  # spatial_vector(w, v)
        if t._kind_ == "transform":
            args = transform_constructor_args(self, t, args)
        self._check_constructor_args(t, args)
        kind = {"vector": "vec_t", "matrix": "mat_t", "quaternion": "quat_t",
                "transform": "transform_t"}[t._kind_]
        cpp = t._cpp
        if _are_rows(t, [a.type for a in args]):
            cpp, kind = "matrix_from_rows", "matrix_from_rows"
        ov = Overload(name=t.__name__, input_types={f"a{i}": a.type for i, a in enumerate(args)},
                      value_func=None, cpp=cpp, native_adjoint=f"adj_{kind}",
                      differentiable=sc.is_float(s))
        if len(args) == 1 and comp.is_composite(args[0].type) and args[0].type is t:
            return args[0]
        return self.emit_call(ov, t, args)

    def _literal_arg(self, a, s):
        """A literal argument of a typed constructor in its scalar type ``s``; a name bound to a
        literal converts its Python value too (`x = 0.1; wp.vec3d(x, ...)`, as warp-lang)."""
        if a.bound_literal and a.type is not s and isinstance(a.constant, (int, float)):
            typed = self.retype_literal(ir.Var(id=a.id, type=a.type, constant=a.constant, literal=True), s)
            return typed if typed is not None else a
        return self.retype_literal(a, s) if a.literal else a

    def _check_constructor_args(self, t, args):
        s, n = t._wp_scalar_type_, t._length_
        types = [a.type for a in args]
        if not args:
            return
        if len(args) == 1 and (types[0] is s or (comp.is_composite(types[0])
                                                 and types[0]._shape_ == t._shape_)):
            return  # fill from a scalar, or an explicit element-type conversion
        if len(args) == n and all(x is s for x in types) or _are_rows(t, types):
            return
        if t._kind_ == "quaternion" and len(args) == 2 and comp.is_vector(types[0]) and \
                types[0]._length_ == 3 and types[1] is s and types[0]._wp_scalar_type_ is s:
            return
        if t._kind_ == "transform" and len(args) == 2 and comp.is_vector(types[0]) and \
                comp.is_composite(types[1]) and types[1]._kind_ == "quaternion" and \
                types[0]._wp_scalar_type_ is s and types[1]._wp_scalar_type_ is s:
            return
        got = ", ".join(type_name(x) for x in types)
        raise self.scope.error(
            f"cannot construct {t.__name__} from ({got}) (expected no arguments, one {s.__name__} "
            f"(fill), {n} {s.__name__} components, {_rows_hint(t)}or one {t._kind_} of the same "
            f"shape (conversion)): {_reference_reason(t, types)}")

    def construct_struct(self, obj, node, kwargs):
        """``S()`` (every field zero) or ``S(a, b, ...)`` (every field, in declaration order), as
        the reference; each given value is set like ``s.a = a``."""
        fields = list(obj._wp_struct_.fields)
        if kwargs or node.args and len(node.args) != len(fields):
            raise self.scope.error(
                f"{obj.__name__}() in a kernel takes no arguments (every field zero) or all "
                f"{len(fields)} fields in order ({', '.join(fields)}), got {len(node.args)} "
                f"positional{' and keyword' if kwargs else ''} argument(s)")
        out = self.scope.new_var(obj)
        self.scope.emit(ir.Const(out=out, value=None))
        for name, arg in zip(fields, self.args_of(node)):
            out = self.with_attribute(out, name, arg)
        return out

    # --- user functions ---------------------------------------------------------------------------
    def call_user_function(self, func, node, kwargs):
        args = [self._user_arg(a) for a in node.args]
        kwargs = {k: self._user_arg(v) for k, v in kwargs.items()}
        try:
            ov, args = func.resolve_overload(args, self.retype_literal, kwargs, self._default_arg)
        except TypeMismatch as e:
            raise self.scope.error(str(e)) from None
        # a tuple argument travels as its elements (the function rebinds them: translator.py)
        args = [e for a in args for e in (a.elems if isinstance(a, TupleArg) else (a,))]
        return self.emit_user_call(ov, args, node, kwargs)

    def call_resolved(self, resolver, node, kwargs, receiver=None):
        """A call whose function its arguments' types choose (lang/translation/dispatch.py):
        by the positional arguments' types; keyword arguments then go to the chosen function."""
        args = [self._user_arg(a) for a in node.args]
        kwargs = {k: self._user_arg(v) for k, v in (kwargs or {}).items()}
        if receiver is not None:
            args.insert(0, receiver)
        if any(isinstance(a, TupleArg) for a in args):
            raise self.scope.error(f"{_callable_name(resolver)}() does not take tuples")
        try:
            target = dispatch.resolve(resolver, [a.type for a in args])
        except (TypeError, ValueError, KeyError) as e:
            raise self.scope.error(f"{_callable_name(resolver)}(): {e}") from None
        if kwargs and (isinstance(target, dispatch.Call) or not getattr(target, "_wp_function_", False)):
            raise self.scope.error(f"{_callable_name(resolver)}() takes positional arguments only")
        if isinstance(target, dispatch.Call):
            args = [self._picked_arg(args, src) for src in target.sources]
            target = target.func
        if not getattr(target, "_wp_function_", False):
            return PyValue(target)
        try:
            ov, args = target.resolve_overload(args, self.retype_literal, kwargs, self._default_arg)
        except TypeMismatch as e:
            raise self.scope.error(str(e)) from None
        return self.emit_user_call(ov, args, node, kwargs or None)

    def _picked_arg(self, args, source):
        value = args[source[0]]
        for field in source[1:]:
            value = self.attribute_of(value, field)
        return value

    def _user_arg(self, node):
        value = self.eval(node)
        if isinstance(value, tuple) and value and not isinstance(value[0], str):
            return TupleArg([self.to_var(v, node) for v in value])
        return self.to_var(value, node)

    def emit_user_call(self, ov, args, node=None, kwargs=None):
        """The call of a resolved `@wp.func` overload: its result, or a tuple of its results
        (``node``/``kwargs``: the call's, where tiles it writes in place are rebound)."""
        ov = block_funcs.at_width(ov, self.block_width)    # block-wide primitives in the function
        self.calls.append(ov)
        from .checks import RecursiveFunction
        try:
            rets = ov.return_types()
        except RecursiveFunction:
            raise self.scope.error(f"'{ov.name}' calls itself (directly or through other "
                                   f"functions): recursion is not supported in kernels") from None
        refs = getattr(ov, "ir", None).ref_outs if hasattr(ov, "ir") else []
        if getattr(ov, "ref_params", None) and node is not None:
            self._check_ref_args(ov, node, kwargs)
        if len(rets) <= 1 and not refs:
            out = self.scope.new_var(rets[0]) if rets else None
            self.scope.emit(ir.Call(out=out, func=ov, args=args))
            return out
        outs = tuple(self.scope.new_var(t) for t in rets)
        self.scope.emit(ir.Call(out=list(outs) if len(outs) > 1 else outs[0], func=ov, args=args))
        if refs:     # tiles the function wrote in place (passed by reference: lang/tiles/refs.py)
            outs = self._rebind_tile_args(ov, node, kwargs, refs, outs)
        return outs

    def _rebind_tile_args(self, ov, node, kwargs, refs, outs):
        """The caller's tiles take the values the function wrote into them; the function's own
        results are the rest."""
        names = list(ov.arg_types)
        user = outs[:len(outs) - len(refs)]
        for pos, value in zip(refs, outs[len(user):]):
            arg = self._arg_node(node, kwargs, names, pos)
            if tile_ops.refs_is_value(ov, pos):      # wp.ref[T]: the caller's storage is written
                self.write(_store_ctx(arg), value)
            elif isinstance(arg, ast.Name) and isinstance(self.scope.symbols.get(arg.id), ir.Var):
                tile_ops.bind_tile(self, arg.id, value)
        return None if not user else user[0] if len(user) == 1 else user

    @staticmethod
    def _arg_node(node, kwargs, names, pos):
        if pos < len(node.args):
            return node.args[pos]
        return next((k.value for k in node.keywords if k.arg == names[pos]), None)

    def _check_ref_args(self, ov, node, kwargs):
        """warp-lang's rule for wp.ref[T] arguments: an addressable expression (a local, an array
        element, a struct field, a component, a reference parameter), not a literal, a constant
        local or a temporary."""
        names = list(ov.arg_types)
        what = ("reference argument requires an addressable expression (local variable, array "
                "element, struct field, or wp.ref[T] parameter)")
        for pos, name in enumerate(names):
            if name not in ov.ref_params:
                continue
            arg = self._arg_node(node, kwargs, names, pos)
            root = arg
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if not isinstance(root, ast.Name):
                raise self.scope.error(f"'{ov.name}' parameter '{name}': {what}", arg or node)
            v = self.scope.symbols.get(root.id)
            if isinstance(v, ir.Var) and (getattr(v, "bound_literal", False) or getattr(v, "literal", False)) \
                    and root is arg:
                t = v.type.__name__
                raise self.scope.error(
                    f"Error taking a mutable reference to constant local '{root.id}', use the following "
                    f"syntax: {root.id} = wp.{t}({v.constant!r}) to declare a dynamic variable", arg)
            if not isinstance(v, ir.Var) and not (isinstance(v, tuple) and root is not arg):
                raise self.scope.error(f"'{ov.name}' parameter '{name}': {what}", arg)

    def _grad_target(self, node, kwargs):
        f = self.eval(node.args[0]) if len(node.args) == 1 and not kwargs else None
        if not isinstance(f, PyValue) or not (getattr(f.obj, "_wp_function_", False) or
                                              isinstance(f.obj, BuiltinFunction)):
            raise self.scope.error("wp.grad() takes one @wp.func or kernel builtin, e.g. "
                                   "wp.grad(f)(x)")
        return f.obj

    def _default_arg(self, value):
        """A @wp.func parameter's default value (``def f(a: int = 123)``) as a Var."""
        return self.to_var(PyValue(value), None)


def _store_ctx(node):
    """``node`` (an argument expression) as an assignment target."""
    import copy
    target = copy.copy(node)
    target.ctx = ast.Store()
    return target


def _are_rows(t, types):
    """``mat22(vec2(...), vec2(...))``: a matrix from its row vectors."""
    if t._kind_ != "matrix" or len(types) != t._shape_[0] or len(types) < 2:
        return False
    row = comp.vector(t._shape_[1], t._wp_scalar_type_)
    return all(x is row for x in types)


def _reference_reason(t, types):
    """warp-lang's wording of why a typed constructor refuses its arguments (its tests match it)."""
    s, kind = t._wp_scalar_type_, ("matrix" if t._kind_ == "matrix" else "vector")
    size = f"shape {tuple(t._shape_)}" if kind == "matrix" else f"length {t._length_}"
    if len(types) == 1 and comp.is_composite(types[0]):
        given = f"shape {tuple(types[0]._shape_)}" if kind == "matrix" else f"length {types[0]._length_}"
        return f"incompatible {kind} of {size} given when copy constructing a {kind} of {given}"
    if len(types) == 1:
        return f"the value used to fill this {kind} is expected to be of the type `{s.__name__}`"
    if len(types) != t._length_:
        return f"incompatible number of values given ({len(types)}) when constructing a {kind} of {size}"
    return f"all values used to initialize this {kind} are expected to be of the type `{s.__name__}`"


def _rows_hint(t):
    if t._kind_ != "matrix":
        return ""
    return f"{t._shape_[0]} row vectors of length {t._shape_[1]}, "


def _callable_name(obj):
    return getattr(obj, "__name__", type(obj).__name__)




class TupleArg:
    """A tuple given to a @wp.func: its elements, and its type for overload resolution."""
    literal = False

    def __init__(self, elems):
        self.elems = elems
        self.type = TupleType(e.type for e in elems)


_NUMBER_TYPES = {"float", "int", "float16", "float32", "float64", "int32", "int64", "uint32", "uint64"}


def _check_call_syntax(tr, node):
    """Call forms a kernel cannot express, refused in the user's words before evaluating."""
    name = ast.unparse(node.func)
    for k in node.keywords:
        if k.arg is None:
            raise tr.scope.error(
                f"{name}(**{ast.unparse(k.value)}): unpacking a dict into keyword arguments is not "
                f"supported in kernels; pass the arguments by name ({name}(a=..., b=...)) or by "
                "position", k.value)
    last = name.rsplit(".", 1)[-1]
    if last in _NUMBER_TYPES and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        text = node.args[0].value
        special = {"inf": "wp.inf", "+inf": "wp.inf", "-inf": "-wp.inf", "nan": "wp.nan",
                   "infinity": "wp.inf", "-infinity": "-wp.inf"}.get(text.strip().lower())
        hint = f"write {special}" if special else "write the number itself"
        raise tr.scope.error(
            f"{name}({text!r}): a number from a string is not supported in kernels; {hint}"
            + (f" (or {name}({special}))" if special and last != "float" else ""), node.args[0])
