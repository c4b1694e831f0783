"""Expression translation: AST expression -> Var (runtime value) or PyValue (compile time)."""

import ast
import builtins as py_builtins

import numpy as np

from ...types import composite as comp
from ...types import scalars as sc
from ...types.array import array
from ...types.tile import is_tile
from .. import ir
from ..builtins import registry
from ..builtins.function import tile_ops
from . import starred
from ...errors import CodegenTypeError, TypeMismatch
from ..builtins.registry import type_name
from ..ir import PyValue
from .scope import Conflict

BINOPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.BitAnd: "bit_and",
    ast.BitOr: "bit_or", ast.BitXor: "bit_xor", ast.LShift: "lshift", ast.RShift: "rshift",
}
CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
UNARYOPS = {ast.USub: "neg", ast.UAdd: "pos", ast.Not: "bool_not", ast.Invert: "invert"}

_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}


_MODULE_CASTS = {"float": float, "int": int, "bool": py_builtins.bool}

_INT_RANK = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 3, "uint32": 3, "int64": 4, "uint64": 4}
_FLOAT_RANK = {"float16": 1, "bfloat16": 1, "float32": 2, "float64": 3}


def comparison_type(a, b):
    """The type two typed scalar variables of different types are compared in, by C++'s usual
    arithmetic conversions (warp-lang emits the comparison as a C++ expression): the wider
    float if either is one (a half or bfloat16 with anything else compares as float32 at
    least); else integer promotion to int32, then the wider type, the unsigned one at equal
    width (so int32 -1 < uint32 1 is false, as in C++). None when no conversion applies (same
    types, an untyped literal, non-scalars)."""
    ta, tb = a.type, b.type
    if ta is sc.bool_ and tb is sc.bool_:      # bools compare as ints (`(a < b) < (c > d)`)
        return sc.int32
    if ta is tb or a.literal or b.literal or not (sc.is_scalar(ta) and sc.is_scalar(tb)):
        return None
    na, nb = ta.__name__, tb.__name__
    if na in _FLOAT_RANK or nb in _FLOAT_RANK:
        rank = max(_FLOAT_RANK.get(na, 0), _FLOAT_RANK.get(nb, 0), 2)
        return {2: sc.float32, 3: sc.float64}[rank]
    ra, rb = max(_INT_RANK.get(na, 0), 3), max(_INT_RANK.get(nb, 0), 3)   # bool/small ints -> int32
    ua, ub = na.startswith("uint") and ra == _INT_RANK.get(na), nb.startswith("uint") and rb == _INT_RANK.get(nb)
    rank = max(ra, rb)
    unsigned = (ua and ra == rank) or (ub and rb == rank)
    return {(3, False): sc.int32, (3, True): sc.uint32, (4, False): sc.int64, (4, True): sc.uint64}[rank, unsigned]


class ExpressionsMixin:
    def eval(self, node):
        """Translate an expression; Python constants come back as PyValue."""
        self.scope.set_node(node)
        fn = self.expr_table.get(type(node))
        if fn is None:
            raise self.scope.error(f"{type(node).__name__} expressions are not supported in kernels")
        return fn(self, node)

    def eval_var(self, node):
        """Translate an expression that must produce a runtime value."""
        return self.to_var(self.eval(node), node)

    def to_var(self, value, node=None):
        if isinstance(value, ir.Var):
            return value
        if isinstance(value, tuple):
            raise self.scope.error("a tuple cannot be used as a value here; use a vector "
                                   "(wp.vec2(a, b)) or unpack it (a, b = ...)", node)
        if value is None:     # a call of a @wp.func that returns nothing
            what = f"'{ast.unparse(node)}'" if isinstance(node, ast.AST) else "this expression"
            raise self.scope.error(f"{what} has no value: the function it calls returns nothing "
                                   "(it has no 'return <value>'); call it as a statement of its own, "
                                   "or make it return a value", node)
        obj = value.obj
        if isinstance(obj, py_builtins.bool):
            return self.scope.const(obj, sc.bool_, literal=False)
        if isinstance(obj, int):
            return self.scope.const(obj, self.int_literal_type(obj), literal=True)
        if isinstance(obj, float):
            return self.scope.const(obj, sc.float32, literal=True)
        if isinstance(obj, sc.Scalar):
            return self.scope.const(obj.value, type(obj))
        if isinstance(obj, comp.Composite):
            return self.scope.const(obj.numpy_view().reshape(-1).tolist(), type(obj))
        if getattr(type(obj), "_wp_struct_", None) is not None:
            return self._struct_constant(obj, node)
        raise self.scope.error(f"{_describe(obj)} cannot be used as a value in a kernel", node)

    def _struct_constant(self, obj, node):
        """A struct instance from Python (a global, a wp.static() result) as a kernel value: a
        zeroed struct with each field set from the instance's values."""
        t = type(obj)
        out = self.scope.new_var(t)
        self.scope.emit(ir.Const(out=out, value=None))
        for name, ftype in t._wp_struct_.fields.items():
            value = getattr(obj, name)
            if isinstance(value, array) or value is None:
                raise self.scope.error(f"struct {t.__name__} field '{name}' holds an array: a "
                                       "struct constant in a kernel holds values only", node)
            v = self.to_var(PyValue(_python_scalar(value)), node)
            if v.literal:
                v = self.retype_literal(v, ftype) or v
            nxt = self.scope.new_var(t)
            self.scope.emit(ir.SetField(out=nxt, src=out, field=name, value=v))
            out = nxt
        return out

    # --- leaves -------------------------------------------------------------------------------
    def eval_Constant(self, node):
        if isinstance(node.value, (py_builtins.bool, int, float, str)):
            return PyValue(node.value)
        raise self.scope.error(f"constant {node.value!r} is not supported in kernels")

    def eval_Name(self, node):
        if node.id in self.scope.symbols:
            value = self.scope.symbols[node.id]
            if isinstance(value, Conflict):
                raise self.scope.error(value.message, node)
            return value
        return PyValue(_python_scalar(self.lookup_global(node.id, node)))

    def eval_Attribute(self, node):
        base = self.eval(node.value)
        if isinstance(base, PyValue):
            try:
                return PyValue(_python_scalar(getattr(base.obj, node.attr)))
            except AttributeError:
                # `wp.float(x)`, `wp.int(x)`, `wp.bool(x)`: warp-lang's kernels take the
                # casts through its module (the Python scope has no such attributes)
                if node.attr in _MODULE_CASTS and getattr(base.obj, "float32", None) is sc.float32:
                    return PyValue(_MODULE_CASTS[node.attr])
                raise self.scope.error(f"{_describe(base.obj)} has no attribute '{node.attr}'") from None
        return self.attribute_of(base, node.attr)

    def attribute_of(self, var, attr):
        t = var.type
        if isinstance(t, array) and attr == "shape":
            return ("shape", var)
        if isinstance(t, array) and attr == "dtype":     # a type, known at compile time
            return PyValue(t.dtype)
        if isinstance(t, array):
            return self.array_attribute(var, attr)      # ptr, ndim (lang/translation/array_views.py)
        if comp.is_composite(t) and attr == "dtype":
            return PyValue(t._wp_scalar_type_)
        if hasattr(t, "_wp_struct_"):
            ftype = t._wp_struct_.fields.get(attr)
            if ftype is None:
                raise self.scope.error(f"struct {t._wp_struct_.name} has no field '{attr}'")
            out = self.scope.new_var(ftype)
            self.scope.emit(ir.GetField(out=out, src=var, field=attr))
            return out
        native_fields = getattr(t, "_wp_native_fields_", None)   # geometry query results
        if native_fields is not None:
            if attr not in native_fields:
                raise self.scope.error(f"{t.__name__} has no field '{attr}'; it has "
                                       f"{', '.join(native_fields) or 'no readable fields'}")
            out = self.scope.new_var(native_fields[attr])
            self.scope.emit(ir.GetField(out=out, src=var, field=attr))
            return out
        if comp.is_composite(t) and t._kind_ == "transform" and attr in ("p", "q"):
            name = "transform_get_translation" if attr == "p" else "transform_get_rotation"
            return self.call_builtin(name, [var])
        if comp.is_composite(t) and attr in _COMPONENTS and _COMPONENTS[attr] < t._length_:
            return self.call_builtin("extract", [var, self.index_const(_COMPONENTS[attr])])
        raise self.scope.error(f"a value of type {type_name(t)} has no attribute '{attr}'")

    def index_const(self, i):
        return self.scope.const(int(i), sc.int32)

    # --- operators ------------------------------------------------------------------------------
    def eval_BinOp(self, node):
        # a left-leaning chain (a + b + c + ...) is walked in a loop, not by recursion, so a
        # long sum translates however many terms it has
        chain = []
        while isinstance(node, ast.BinOp):
            chain.append(node)
            node = node.left
        acc = self.eval(node)
        for n in reversed(chain):
            op = BINOPS.get(type(n.op))
            if op is None:
                self.scope.set_node(n)
                raise self.scope.error(f"operator {type(n.op).__name__} is not supported")
            right = self.eval(n.right)
            self.scope.set_node(n)
            folded = _fold(op, acc, right)
            acc = folded if folded is not None else \
                self.binary(op, self.to_var(acc, n), self.to_var(right, n))
        return acc

    def binary(self, op, a, b):
        user = self._user_operator(op, [a, b])
        if user is not None:
            return user
        if op == "matmul":
            if not (comp.is_matrix(a.type) or comp.is_matrix(b.type)):
                raise self.scope.error(
                    f"'@' needs a matrix operand, got {type_name(a.type)} @ {type_name(b.type)}")
            op = "mul"
        return self.call_builtin(op, [a, b])

    def _user_operator(self, op, args):
        """A `@wp.func` named as the operator (``add``, ``mul``...) in the kernel's globals or
        closure overloads it, as in warp-lang (``a + b`` on structs); where none of its overloads
        takes these arguments (or inside the function itself), the builtin operator applies."""
        f = self.src.closure.get(op, self.py_globals.get(op))
        if not getattr(f, "_wp_function_", False):
            return None
        from .checks import RecursiveFunction
        try:
            ov, args = f.resolve_overload(args, self.retype_literal, {}, self._default_arg)
            ov.return_types()
        except (TypeMismatch, RecursiveFunction):   # (inside `add` itself, `a + b` is the builtin)
            return None
        if getattr(ov.ir, "ref_outs", None):        # writes tiles in place: not an operator
            return None
        return self.emit_user_call(ov, args)

    def eval_UnaryOp(self, node):
        v = self.eval(node.operand)
        if isinstance(v, PyValue) and isinstance(v.obj, (int, float)) and \
                isinstance(node.op, ast.USub) and not isinstance(v.obj, py_builtins.bool):
            return PyValue(-v.obj)  # keep negative literals literal
        if isinstance(node.op, ast.Not):
            if isinstance(v, PyValue):           # `not wp.static(...)`: still known now
                return PyValue(not v.obj)
            v = self.to_var(v, node)
            if isinstance(v.type, array):
                v = self.as_bool(v)
            elif not (sc.is_int(v.type) or sc.is_float(v.type) or v.type is sc.bool_):    # a vector, matrix, tile...: no truth value (warp-lang)
                raise self.scope.error(
                    f"'not' needs a bool, a number or an array (a null test), not a {type_name(v.type)}: "
                    "test what you mean, e.g. wp.length(v) == 0.0 or v[0] == 0.0", node)
            return self.call_builtin("bool_not", [v])
        return self.call_builtin(UNARYOPS[type(node.op)], [self.to_var(v, node)])

    def eval_Compare(self, node):
        left = self.eval_var(node.left)
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            name = CMPOPS.get(type(op))
            if name is None:
                raise self.scope.error(f"comparison {type(op).__name__} is not supported")
            right = self.eval_var(right_node)
            if result is not None and left.type is not right.type:    # warp-lang's rule for chains
                raise self.scope.error(f"Cannot chain comparisons of unequal types: {type_name(left.type)} "
                                       f"{type(op).__name__} {type_name(right.type)}", right_node,
                                       kind=CodegenTypeError)
            a, b = left, right
            common = comparison_type(a, b)
            if common is not None:    # mixed scalar types compare as C++ compares them (warp-lang)
                a, b = self.cast_var(a, common), self.cast_var(b, common)
            r = self.call_builtin(name, [a, b])
            result = r if result is None else self.call_builtin("bool_and", [result, r])
            left = right
        return result

    def eval_BoolOp(self, node):
        """Short-circuit ``and``/``or``: later operands run only when they decide the result."""
        out = self.scope.new_var(sc.bool_)
        first = self.as_bool(self.eval_var(node.values[0]))
        self.scope.emit(ir.Copy(dst=out, src=first))
        self._short_circuit(out, node.values[1:], isinstance(node.op, ast.And))
        return out

    def _short_circuit(self, out, rest, is_and):
        if not rest:
            return
        cond = out if is_and else self.call_builtin("bool_not", [out])
        self.scope.push_block()
        nxt = self.as_bool(self.eval_var(rest[0]))
        self.scope.emit(ir.Copy(dst=out, src=nxt))
        self._short_circuit(out, rest[1:], is_and)
        body = self.scope.pop_block()
        self.scope.emit(ir.If(cond=cond, body=body, orelse=ir.Block()))

    def as_bool(self, v):
        if v.type is sc.bool_:
            return v
        if sc.is_scalar(v.type):
            return self.call_builtin("nonzero_bool", [v])
        if isinstance(v.type, array):     # as in the reference: true when it has memory
            return self.call_builtin("array_nonnull", [v])
        raise self.scope.error(f"a condition must be a scalar, got {type_name(v.type)}")

    def eval_IfExp(self, node):
        cond = self.as_bool(self.eval_var(node.test))
        branches = []
        for sub in (node.body, node.orelse):
            self.scope.push_block()
            v = self.eval_var(sub)
            branches.append((v, self.scope.pop_block()))
        (a, body), (b, orelse) = branches
        a, b = self.unify_literals(a, b)
        if a.type is not b.type and registry.type_name(a.type) != registry.type_name(b.type):
            raise self.scope.error(
                f"the branches of a conditional expression have different types: "
                f"{type_name(a.type)} and {type_name(b.type)}")
        out = self.scope.new_var(a.type)
        body.stmts.append(ir.Copy(dst=out, src=a, lineno=self.scope.lineno))
        orelse.stmts.append(ir.Copy(dst=out, src=b, lineno=self.scope.lineno))
        self.scope.emit(ir.If(cond=cond, body=body, orelse=orelse))
        return out

    def unify_literals(self, a, b):
        """Give a literal operand the type of the other operand when that is allowed."""
        if a.literal and not b.literal:
            a = self.retype_literal(a, b.type) or a
        elif b.literal and not a.literal:
            b = self.retype_literal(b, a.type) or b
        return a, b

    # --- subscripts -----------------------------------------------------------------------------
    def eval_Subscript(self, node):
        base = self.eval(node.value)
        indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if isinstance(base, tuple) and base and base[0] == "shape":
            return self.call_builtin("array_shape", [base[1], self.eval_var(indices[0])])
        if isinstance(base, tuple):
            return self._tuple_item(base, indices)
        if isinstance(base, PyValue):
            base = self._python_subscript(base, indices)
            if isinstance(base, PyValue):
                return base
        if isinstance(base, ir.Var) and is_tile(base.type):    # views, slices, gathers, elements
            return tile_ops.read(self, base, node)
        if self.has_slice(node):
            if isinstance(base.type, array):
                return self.array_slice_view(base, node)
            return self.read_slice(base, node)
        idx = [self.eval_index(i) for i in indices]
        t = base.type
        if isinstance(t, array):
            if len(idx) > t.ndim:
                raise self.scope.error(
                    f"too many indices ({len(idx)}) for an array of {t.ndim} dimensions")
            return self.call_builtin("load" if len(idx) == t.ndim else "view", [base] + idx)
        if comp.is_composite(t):
            idx = self.check_component_index(t, idx)
            return self.call_builtin("extract", [base] + idx)
        raise self.scope.error(f"a value of type {type_name(t)} cannot be indexed")

    def _tuple_item(self, values, indices):
        """``t[i]`` of a tuple value: ``i`` must be known when the kernel is built (a literal, a
        wp.static() value, the index of an unrolled loop); negative counts from the end."""
        key = self.eval(indices[0]) if len(indices) == 1 else None
        c = key.obj if isinstance(key, PyValue) else getattr(key, "constant", None)
        if not isinstance(c, int) or isinstance(c, py_builtins.bool):
            raise self.scope.error("a tuple is indexed with one integer known when the kernel is "
                                   "built (a literal, wp.static(...), the index of an unrolled "
                                   "loop), not a value known only at run time")
        if not -len(values) <= c < len(values):
            raise self.scope.error(f"tuple index {c} is out of range for a tuple of {len(values)} "
                                   f"values")
        return values[c]

    def _python_subscript(self, base, indices):
        """A Python value indexed in a kernel: a list/tuple/dict element at a compile-time index
        (a PyValue), or a warp constant made a value to index at run time."""
        obj = base.obj
        if isinstance(obj, comp.Composite):
            return self.to_var(base)
        if isinstance(obj, (list, tuple, dict)) and len(indices) == 1:
            key = self.eval(indices[0])
            if isinstance(key, ir.Var) and key.constant is not None and not key.literal:
                key = PyValue(key.constant)
            if isinstance(key, PyValue):
                try:
                    return PyValue(_python_scalar(obj[key.obj]))
                except (IndexError, KeyError, TypeError) as e:
                    raise self.scope.error(f"cannot index {_describe(obj)} with {key.obj!r}: {e}") from None
        raise self.scope.error(f"cannot index {_describe(obj)} in a kernel with a value known "
                               "only at run time")

    def check_component_index(self, t, idx):
        """The indices with constant negative ones counted from the end (``v[-1]``, as in Python
        and the reference); a constant index out of range is a build error (it would read or
        write another variable's memory)."""
        out = list(idx)
        for k, (v, n) in enumerate(zip(idx, getattr(t, "_shape_", ()))):
            c = v.constant
            if not isinstance(c, int) or isinstance(c, bool):
                continue
            if not -n <= c < n:
                raise self.scope.error(f"index {c} is out of range for {type_name(t)} "
                                       f"(dimension {k} has {n} components: {-n}..{n - 1})")
            if c < 0:
                out[k] = self.index_const(c + n)
        return out

    def eval_index(self, node):
        if isinstance(node, ast.Slice):
            raise self.scope.error("slices are not supported in kernels; index with integers")
        v = self.eval_var(node)
        if not sc.is_int(v.type):
            raise self.scope.error(f"an index must be an integer, got {type_name(v.type)}", node)
        if v.literal:   # an index never adopts the type of the values it indexes
            v = self.index_const(v.constant)
        return v

    def eval_Tuple(self, node):
        return tuple(self.eval(e) for e in node.elts)

    def eval_Call(self, node):
        return self.translate_call(node)

    def int_literal_type(self, value):
        """int32 as in the reference, int64/uint64 for a literal past 32/63 bits (never wrapped)."""
        for t in (sc.int32, sc.int64, sc.uint64):
            if _fits(value, t):
                return t
        raise self.scope.error(f"the integer literal {value} does not fit in 64 bits")

    def retype_literal(self, v, target):
        """A Const of ``target``'s scalar type replacing literal ``v``, or None if not allowed."""
        s = literal_type(v, target)
        if s is None:
            return None
        if v.type is s:
            return v
        value = float(v.constant) if sc.is_float(s) else int(v.constant)
        if sc.is_int(s) and not _fits(value, s):
            raise self.scope.error(f"the literal {value} does not fit in {type_name(s)}, the type "
                                   f"of the value it is used with; cast one of them (wp.int64(...))")
        return self.scope.const(value, s)

    def call_builtin(self, name, args, template=""):
        """Emit a call of builtin ``name``; literals adopt the other arguments' scalar type."""
        arg_types = [a.type for a in args]
        if any(is_tile(t) for t in arg_types):   # operators on tiles (lang/tiles/arith.py)
            return tile_ops.operator(self, name, args)
        try:
            ov, ret = registry.resolve(name, arg_types)
        except TypeMismatch as first_error:
            found = self._resolve_with_literals(name, args)
            if found is None:
                raise self.scope.error(str(first_error)) from None
            ov, ret, args = found
        return self.emit_call(ov, ret, args, template)

    def _resolve_with_literals(self, name, args):
        """(overload, return type, args) with literal arguments retyped to the scalar type of the
        other arguments (or of an array's elements); an index argument keeps its integer type."""
        target = next((s for s in (registry.element_scalar_of(a.type) for a in args if not a.literal)
                       if s not in (None, sc.bool_)), None)
        if target is None or not any(a.literal for a in args):
            return None
        for ov in registry.registry[name].overloads:
            try:
                pats = ov.patterns(len(args))
                types = [(literal_type(a, target) or a.type) if a.literal and p is not registry.Index
                         else a.type for a, p in zip(args, pats)]
                ret = ov.match(types)
            except TypeMismatch:
                continue
            return ov, ret, [self.retype_literal(a, t) if t is not a.type else a
                             for a, t in zip(args, types)]
        return None

    def emit_call(self, ov, ret, args, template=""):
        out = self.scope.new_var(ret) if ret is not None else None
        if ov.template is not None:
            template = ov.template([a.type for a in args], ret)
        self.scope.emit(ir.Call(out=out, func=ov, args=args, template=template))
        return out


def _python_scalar(obj):
    """A NumPy scalar constant (``np.int64(3)``) is used as the Python number it holds."""
    return obj.item() if isinstance(obj, (np.integer, np.floating, np.bool_)) else obj


_FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "floordiv": lambda a, b: a // b, "mod": lambda a, b: _trunc_mod(a, b),
         "pow": lambda a, b: a ** b, "lshift": lambda a, b: a << b, "rshift": lambda a, b: a >> b,
         "bit_and": lambda a, b: a & b, "bit_or": lambda a, b: a | b, "bit_xor": lambda a, b: a ^ b}


def _trunc_mod(a, b):
    """C's remainder of integers (sign of ``a``: ``-7 % 3 == -1``), as kernels compute ``%``."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _fold(op, a, b):
    """Integer constants combined exactly at build time (``2**40`` is 1099511627776, typed by
    its size, instead of an int32 power that wraps); None when not foldable (the operation is
    then emitted). Floor division folds as Python's and modulo as C's truncated remainder, as
    kernels compute them (the reference's rules)."""
    if not (isinstance(a, PyValue) and isinstance(b, PyValue)):
        return None
    x, y = a.obj, b.obj
    if type(x) is not int or type(y) is not int or op not in _FOLD:
        return None
    if (op in ("floordiv", "mod") and y == 0) or (op in ("pow", "lshift", "rshift") and not 0 <= y <= 64):
        return None
    r = _FOLD[op](x, y)
    return PyValue(r) if -2**63 <= r < 2**64 else None


def _fits(value, t):
    info = np.iinfo(t._np_dtype)
    return info.min <= value <= info.max


def literal_type(v, target):
    """The scalar type literal ``v`` may take to match ``target`` (a float literal never becomes
    an integer), or None."""
    s = registry.scalar_of(target)
    if s is None or s is sc.bool_ or (v.type is sc.float32 and not sc.is_float(s)):
        return None
    return s


def _describe(obj):
    if isinstance(obj, type):
        return f"type {obj.__name__}"
    return f"{type(obj).__name__} {getattr(obj, '__name__', repr(obj))!s}"


EXPR_TABLE = {
    ast.Constant: ExpressionsMixin.eval_Constant,
    ast.Name: ExpressionsMixin.eval_Name,
    ast.Attribute: ExpressionsMixin.eval_Attribute,
    ast.BinOp: ExpressionsMixin.eval_BinOp,
    ast.UnaryOp: ExpressionsMixin.eval_UnaryOp,
    ast.Compare: ExpressionsMixin.eval_Compare,
    ast.BoolOp: ExpressionsMixin.eval_BoolOp,
    ast.IfExp: ExpressionsMixin.eval_IfExp,
    ast.Subscript: ExpressionsMixin.eval_Subscript,
    ast.Tuple: ExpressionsMixin.eval_Tuple,
    ast.Call: ExpressionsMixin.eval_Call,
    starred.Evaluated: starred.eval_evaluated,
}
