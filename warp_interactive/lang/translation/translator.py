"""Statement translation: a Python function's AST -> ``ir.FunctionIR``."""

import ast
import sys
import builtins as py_builtins

from ...errors import UndefinedNameError
from ...types import composite as comp
from ...types import scalars as sc
from ...types.array import array
from ...types.tile import is_tile
from ...types.tuple_type import TupleType
from ..builtins import core as builtins_core, debug as builtins_debug
from ..builtins.function import tile_ops
from .. import tiles  # noqa: F401  (fills INTRINSICS and tile_ops with the tile builtins' handlers)
from .tile_state import TileState
from . import intrinsics_texture  # noqa: F401  (wp.texture_sample's handler)
from . import intrinsics, one_path
from .. import ir
from .calls import CallsMixin
from .checks import (always_exits, check_returns, check_signature, declared_return, fixed_as_array,
                     slot_augassign_error)
from .expressions import BINOPS, EXPR_TABLE, ExpressionsMixin
from ..builtins.registry import type_name
from ..ir import PyValue
from .scope import Conflict, Scope, contains_break
from . import static as static_mod
from .slicing import SlicingMixin
from .array_views import ArrayViewsMixin
from .addresses import AddressMixin
from .pointer_ops import PointerOpsMixin


# augmented assignments into array elements that are atomics (where the element type has them)
_AUG_ATOMICS = {"add": "add", "sub": "sub", "bit_and": "and", "bit_or": "or", "bit_xor": "xor"}
# `t op= u` with two tiles writes t in place in warp-lang (others rebind the name)
_TILE_INPLACE = (ast.Add, ast.Sub, ast.BitAnd, ast.BitOr, ast.BitXor)
# how a cooperative CPU block merges its lanes' `t[i] op= x` (cpu_blocks.h block_merge_tile)
_LANE_MERGE = {ast.Add: 1, ast.Sub: 1, ast.BitAnd: 2, ast.BitOr: 3, ast.BitXor: 4}


def _bare_types():
    """The `wp.` types a kernel may name without the module (warp-lang's fallback to its own
    namespace): vec3, mat22d, quath, float32, uint8, vector, matrix..."""
    from ...types.builtin_types import named_types
    out = dict(named_types)
    out.update({t.__name__: t for t in sc.scalar_types})
    out.update(vector=comp.vector, matrix=comp.matrix, quaternion=comp.quaternion,
               transformation=comp.transformation)
    return out


class Translator(ExpressionsMixin, CallsMixin, SlicingMixin, ArrayViewsMixin, AddressMixin,
                 PointerOpsMixin):
    expr_table = EXPR_TABLE
    intrinsics = intrinsics.INTRINSICS
    block_width = 1    # lanes per block (a kernel built for cooperative CPU blocks sets it)
    _tile_add = 0  # how the lanes' `t[i] op= x` merge: 0 a write, 1 `+=`/`-=`, 2-4 `&=`/`|=`/`^=`
    backward_error = None   # the first construct whose adjoint would be wrong (lang/translation/checks.py)

    def __init__(self, source_info, py_globals, max_unroll=16):
        self.src = source_info
        self.py_globals = py_globals
        self.max_unroll = max_unroll
        self.scope = Scope(source_info.filename, source_info.lines, source_info.first_line,
                           source_info.name)
        self.calls = []
        self.grad_calls = []      # user function overloads whose adjoint wp.grad() calls
        self.tid_arity = 0
        self.return_types = None
        self.tile_state = TileState()   # the tile handlers' fields (lang/translation/tile_state.py)

    # --- entry point ------------------------------------------------------------------------------
    def translate(self, cpp_name, param_types, is_kernel):
        try:
            return self._translate(cpp_name, param_types, is_kernel)
        except RecursionError:      # an expression of thousands of operators nests that deep
            raise self.scope.error(
                "this statement nests too deeply to translate (Python's recursion limit, "
                f"{sys.getrecursionlimit()}): an expression of thousands of operators, such as a "
                "chain of additions, is one nested tree; split it into several statements "
                "(partial sums) or loop over the terms") from None

    def _translate(self, cpp_name, param_types, is_kernel):
        fn = self.src.tree
        params = []
        for (name, t) in param_types.items():
            if isinstance(t, TupleType):    # one C++ parameter per element; the name is their tuple
                elems = [ir.Var(id=-1, type=x, name=f"{name}_{k}", is_param=True) for k, x in enumerate(t.types)]
                params += elems
                self.scope.symbols[name] = tuple(elems)
                continue
            v = ir.Var(id=-1, type=t, name=name, is_param=True)
            params.append(v)
            self.scope.symbols[name] = v
        self.is_kernel = is_kernel
        check_signature(self.scope, fn, is_kernel)
        if not is_kernel:
            self.declared_return = declared_return(self, fn)
            tile_ops.refs_start(self, params)     # tiles are passed by reference, as in warp-lang
        try:
            for stmt in fn.body:
                self.stmt(stmt)
        except RecursionError:
            raise self.scope.error("this expression or statement is nested too deeply to "
                                   "translate; split it into several statements") from None
        if not is_kernel:
            check_returns(self, fn)
        tile_ops.check_stack_budget(self, self.scope.vars)
        body = self.scope.pop_block()
        ref_outs = [] if is_kernel else tile_ops.refs_finish(self, body, params)
        return ir.FunctionIR(
            name=cpp_name, params=params, body=body, vars=self.scope.vars,
            return_types=list(self.return_types or []), is_kernel=is_kernel,
            filename=self.src.filename, tid_arity=self.tid_arity, calls=self.calls,
            grad_calls=self.grad_calls, ref_outs=ref_outs, backward_error=self.backward_error)

    def lookup_global(self, name, node):
        if name in self.src.closure:
            return self.src.closure[name]
        if name in self.py_globals:
            return self.py_globals[name]
        if hasattr(py_builtins, name):
            return getattr(py_builtins, name)
        # as in the reference, a kernel builtin may be named bare (expect_eq(a, b))
        from ..builtins.function import BuiltinFunction, intrinsic_names
        from ..builtins.registry import registry
        if name in registry or name in intrinsic_names():
            return BuiltinFunction(name)
        # warp-lang also resolves its own types bare (v = vec3(1.0, 2.0, 3.0), with no import)
        bare = _bare_types().get(name)
        if bare is not None:
            return bare
        e = self.scope.error(f"name '{name}' is not defined", node)
        raise UndefinedNameError(e.msg, e.filename, e.lineno, e.col, e.source_line, e.func_name)

    def emit_print(self, node):
        intrinsics.emit_print(self, node)

    # --- statements -------------------------------------------------------------------------------
    def stmt(self, node):
        self.scope.set_node(node)
        fn = STMT_TABLE.get(type(node))
        if fn is None:
            raise self.scope.error(f"{type(node).__name__} statements are not supported in kernels")
        fn(self, node)

    def stmts(self, nodes):
        for n in nodes:
            self.stmt(n)

    def s_Pass(self, node):
        pass

    def s_Assert(self, node):
        builtins_debug.kernel_assert(self, node, getattr(self.src, "text", None))

    def s_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        self.eval(node.value)

    def s_Assign(self, node):
        if len(node.targets) > 1:   # a = b = value
            value = self.to_var(self.eval(node.value), node.value)
            for target in node.targets:
                if isinstance(target, ast.Tuple):
                    raise self.scope.error("chained assignment to a tuple is not supported")
                self.write(target, value)
            return
        target = node.targets[0]
        if isinstance(target, ast.Tuple):
            return self.assign_tuple(target, node.value)
        self.assign_to(target, self.eval(node.value), node.value)

    def s_AnnAssign(self, node):
        if node.value is None:
            raise self.scope.error("a variable annotation needs a value")
        self.assign_to(node.target, self.eval(node.value), node.value)

    def assign_tuple(self, target, value_node):
        n = len(target.elts)
        if isinstance(value_node, ast.Call) and self._is_tid(value_node):
            values = intrinsics.tid_tuple(self, n) if n > 1 else (self.eval(value_node),)
        else:
            values = self.eval(value_node)
        if not isinstance(values, tuple) or len(values) != n:
            got = len(values) if isinstance(values, tuple) else 1
            raise self.scope.error(f"cannot unpack {got} value(s) into {n} names")
        for t, v in zip(target.elts, values):
            self.assign_to(t, v, value_node)

    def _is_tid(self, call):
        f = self.eval(call.func)
        return isinstance(f, PyValue) and getattr(f.obj, "key", None) == "tid"

    def assign_to(self, target, value, value_node):
        if isinstance(target, ast.Name) and isinstance(value, PyValue) and _is_callable(value.obj):
            self.scope.symbols[target.id] = value   # f = my_func / g = wp.grad(f): a local alias
            return
        if isinstance(target, ast.Name) and _is_tuple_value(value):
            # t = (a, b) / t = f() of several results: a tuple of values, indexed and unpacked
            # at build time (t[0], len(t), x, y = t), as the reference
            self.scope.bind(target.id, tuple(self.to_var(v, value_node) for v in value))
            return
        self.write(target, self.to_var(value, value_node))

    def write(self, target, value):
        """Assign ``value`` to a name, an array element, or a component/field of a local value;
        a changed component or field is written back up its path (``s.inner.v.x = 1.0``)."""
        if isinstance(target, ast.Name):
            tile_ops.refs_rebound(self, target.id)     # a new local value, no longer the caller's tile
            self.scope.bind(target.id, value)
            tile_ops.refs_assigned(self, target.id, value)   # a wp.ref[T] parameter: the caller's
        elif isinstance(target, ast.Subscript) and self._tile_base(target) is not None:
            base = self._tile_base(target)    # a view's new value reaches its tile (bind_tile)
            new = tile_ops.write(self, base, target, value)
            new = tile_ops.merge_lanes(self, base, new, self._tile_add)   # every lane's write (blocks)
            tile_ops.bind_tile(self, target.value.id, new)
        elif isinstance(target, ast.Subscript) and self.has_slice(target):
            self.write_slice(target, value)
        elif isinstance(target, ast.Subscript):
            base = self.eval(target.value)
            idx = self.subscript_indices(target)
            if isinstance(base, ir.Var) and isinstance(base.type, array):
                self.store(base, idx, value, None)
            elif isinstance(base, ir.Var) and comp.is_composite(base.type):
                idx = self.check_component_index(base.type, idx)
                self.write(target.value, self.call_builtin("assign", [base] + idx + [value]))
            else:
                raise self.scope.error("only arrays and vector/matrix values accept item assignment")
        elif isinstance(target, ast.Attribute):
            base = self.eval(target.value)
            if not isinstance(base, ir.Var):
                raise self.scope.error(f"cannot assign attribute '{target.attr}' here")
            self.write(target.value, self.with_attribute(base, target.attr, value))
        else:
            raise self.scope.error(f"cannot assign to {type(target).__name__}")

    def _tile_base(self, target):
        """The tile a subscript target indexes (``t[...] = x``), or None."""
        if not isinstance(target.value, ast.Name):
            return None
        base = self.scope.symbols.get(target.value.id)
        return base if isinstance(base, ir.Var) and is_tile(base.type) else None

    def subscript_indices(self, node):
        indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return [self.eval_index(i) for i in indices]

    def store(self, arr, idx, value, op):
        t = arr.type
        if len(idx) != t.ndim:
            raise self.scope.error(
                f"storing into an array of {t.ndim} dimensions needs {t.ndim} indices, got {len(idx)}")
        atomic = _AUG_ATOMICS.get(op)
        if atomic and builtins_core.has_atomic(atomic, t.dtype):   # as the reference: a += b is atomic
            self.call_builtin("atomic_" + atomic, [arr] + idx + [value])
        elif op is not None:    # types without that atomic (int8...): a plain read-modify-write
            current = self.call_builtin("load", [arr] + idx)
            self.call_builtin("array_store", [arr] + idx + [self.binary(op, current, value)])
        else:
            self.call_builtin("array_store", [arr] + idx + [value])

    def with_attribute(self, base, attr, value):
        """A copy of ``base`` with field or component ``attr`` replaced by ``value``."""
        t = base.type
        if hasattr(t, "_wp_struct_"):
            ftype = t._wp_struct_.fields.get(attr)
            if ftype is None:
                raise self.scope.error(f"struct {t._wp_struct_.name} has no field '{attr}'")
            if value.literal:
                value = self.retype_literal(value, ftype) or value
            if value.type is not ftype and type_name(value.type) != type_name(ftype):
                raise self.scope.error(
                    f"field {attr} has type {type_name(ftype)}, got {type_name(value.type)}")
            out = self.scope.new_var(t)
            self.scope.emit(ir.SetField(out=out, src=base, field=attr, value=value))
            return out
        if comp.is_composite(t) and t._kind_ == "transform" and attr in ("p", "q"):
            # t.p = v / t.q = q: a transform rebuilt from the new part and the kept one
            keep = self.call_builtin("transform_get_rotation" if attr == "p" else
                                     "transform_get_translation", [base])
            return self.construct(t, [value, keep] if attr == "p" else [keep, value])
        if comp.is_composite(t) and t._kind_ != "matrix" and attr in "xyzw" and len(attr) == 1 \
                and "xyzw".index(attr) < t._length_:
            return self.call_builtin("assign", [base, self.index_const("xyzw".index(attr)), value])
        raise self.scope.error(f"cannot assign attribute '{attr}' of {type_name(t)}")

    def s_AugAssign(self, node):
        op = BINOPS.get(type(node.op))
        if op is None:
            raise self.scope.error(f"operator {type(node.op).__name__}= is not supported")
        value = self.eval_var(node.value)
        target = node.target
        struct_element = False
        if isinstance(target, ast.Subscript):
            base = self.eval(target.value)
            if isinstance(base, ir.Var) and isinstance(base.type, array):
                return self.store(base, self.subscript_indices(target), value, op)
            if isinstance(base, ir.Var) and is_tile(base.type):
                tile_ops.check_augassign(self, base, target)
                # t[i] += x in a cooperative CPU block adds every lane's x (warp-lang's shared tiles)
                self._tile_add = _LANE_MERGE.get(type(node.op), 0)
                struct_element = tile_ops.is_struct(base.type.dtype)
        current = self.eval_var(target)
        if self.backward_error is None:
            self.backward_error = slot_augassign_error(self, node, value)
        if isinstance(target, ast.Name) and (hasattr(current, "tile_view_of") or (
                type(node.op) in _TILE_INPLACE and is_tile(current.type) and is_tile(value.type))):
            # in place (warp-lang's tile add_inplace...): reaches a viewed tile, a caller's tile
            tile_ops.bind_tile(self, target.id, self.binary(op, current, value),
                                    additive=isinstance(node.op, (ast.Add, ast.Sub)))
            return
        try:
            if struct_element:     # an element of a tile of structs (t[i] += s): field by field
                self.write(target, tile_ops.struct_element_op(self, op, current, value))
                return
            self.write(target, self.binary(op, current, value))
        finally:
            self._tile_add = 0

    # --- control flow -----------------------------------------------------------------------------
    def s_If(self, node):
        test = self.eval(node.test)
        if isinstance(test, PyValue):     # decided now (wp.static, a constant): one branch only
            self.stmts(node.body if test.obj else node.orelse)
            return
        cond = self.as_bool(self.to_var(test, node.test))
        before = dict(self.scope.symbols)
        line = self.scope.lineno        # the if statement's own line (its branches move it on)
        body, after_body = self._branch(node.body, before)
        orelse, after_else = self._branch(node.orelse, before)
        self.scope.symbols = dict(before)
        self.scope.lineno = line        # the if and its joins (Selects) sit on the if's line
        self.scope.emit(ir.If(cond=cond, body=body, orelse=orelse))
        self._join(cond, before, after_body, after_else, node)

    def _branch(self, nodes, before):
        self.scope.symbols = dict(before)
        self.scope.push_block()
        self.stmts(nodes)
        return self.scope.pop_block(), self.scope.symbols

    def _join(self, cond, before, a, b, node):
        """After an if: a name bound differently on the two paths gets a Select (SSA join)."""
        for name in dict.fromkeys(list(a) + list(b)):
            va, vb = a.get(name, before.get(name)), b.get(name, before.get(name))
            if va is vb:
                self.scope.symbols[name] = va
            elif va is None or vb is None:
                # defined on one path only: fine when the other path leaves (return, break,
                # continue); otherwise reading it after the if would read an unassigned value
                missing = node.orelse if va is not None else node.body
                self.scope.symbols[name] = va or vb
                if not always_exits(missing):     # warp-lang's value when the path did not run
                    self.scope.symbols[name] = one_path.join(self, name, cond, va or vb, va is not None, node)
            elif isinstance(va, Conflict) or isinstance(vb, Conflict):
                # a name that may be unassigned (or of two types) on one path stays so after the
                # join (an elif chain without else: `if a: y = 1 elif b: y = 2`), unless that
                # path leaves; taking the other path's value would read an unassigned variable
                conflicted = node.body if isinstance(va, Conflict) else node.orelse
                other = vb if isinstance(va, Conflict) else va
                keep = va if isinstance(va, Conflict) else vb
                self.scope.symbols[name] = other if always_exits(conflicted) and not isinstance(other, Conflict) \
                    else keep
            elif isinstance(va, tuple) and isinstance(vb, tuple) and len(va) == len(vb) and \
                    all(isinstance(x, ir.Var) for x in va + vb):
                self.scope.symbols[name] = self._join_tuple(name, cond, va, vb, node)
            elif isinstance(va, tuple) or isinstance(vb, tuple):
                self.scope.symbols[name] = Conflict(
                    f"variable '{name}' is a tuple on one path through the if at line "
                    f"{self.scope.lineno_of(node)} and something else (or a tuple of another "
                    f"length) on the other")
            elif isinstance(va, ir.Var) and isinstance(vb, ir.Var):
                if type_name(va.type) != type_name(vb.type):
                    self.scope.symbols[name] = Conflict(
                        f"variable '{name}' has type {type_name(va.type)} on one path through the "
                        f"if at line {self.scope.lineno_of(node)} and {type_name(vb.type)} on the "
                        f"other; cast one of them")
                    continue
                out = self.scope.new_var(va.type, name=name)
                self.scope.emit(ir.Select(out=out, cond=cond, if_true=va, if_false=vb))
                self.scope.symbols[name] = out
            else:
                self.scope.symbols[name] = va

    def _join_tuple(self, name, cond, va, vb, node):
        out = []
        for x, y in zip(va, vb):
            if x is y:
                out.append(x)
                continue
            if type_name(x.type) != type_name(y.type):
                return Conflict(f"tuple '{name}' holds {type_name(x.type)} on one path through "
                                f"the if at line {self.scope.lineno_of(node)} and "
                                f"{type_name(y.type)} on the other")
            v = self.scope.new_var(x.type)
            self.scope.emit(ir.Select(out=v, cond=cond, if_true=x, if_false=y))
            out.append(v)
        return tuple(out)

    def s_For(self, node):
        if node.orelse:
            raise self.scope.error("for ... else is not supported")
        if not isinstance(node.target, ast.Name):
            raise self.scope.error("a for loop needs a single loop variable")
        it, reverse = node.iter, False
        if _is_call_of(it, "reversed") and len(it.args) == 1 and not it.keywords and \
                _is_call_of(it.args[0], "range"):
            it, reverse = it.args[0], True       # for i in reversed(range(...)), as the reference
        if not _is_call_of(it, "range"):
            return self._for_over_python_values(node)
        if not 1 <= len(it.args) <= 3:
            raise self.scope.error("range() takes 1 to 3 arguments")
        consts = [self._static_int(a) for a in it.args]
        if len(consts) == 3 and consts[2] == 0:
            raise self.scope.error("range() step is 0: the loop would never advance; the step is "
                                   "a nonzero integer (range(start, stop, step))", it.args[2])
        if all(c is not None for c in consts):
            values = range(*consts)[::-1] if reverse else range(*consts)
            # a body whose wp.static() reads the loop variable needs it constant: unroll
            forced = static_mod.mentions_static(node.body, node.target.id)
            if (len(values) <= self.max_unroll or forced) and not contains_break(node.body):
                if forced:
                    self._count_unroll(node, len(values), "its body reads wp.static() of the loop "
                                       f"variable '{node.target.id}', which needs a constant per copy",
                                       "loop at run time instead (no wp.static() of the loop variable)")
                return self._unrolled(node, values)
        self._dynamic_for(node, it.args, reverse)

    def _count_unroll(self, node, n, why, remedy):
        """Unrolled copies of loop bodies are bounded (wp.config.max_static_unroll per function):
        past the bound an unroll is an error that says why it had to unroll."""
        from ...config import config
        limit = config.max_static_unroll
        self.unrolled = getattr(self, "unrolled", 0) + n
        if limit is not None and self.unrolled > limit:
            raise self.scope.error(
                f"this loop would be unrolled {n} times ({why}), past wp.config.max_static_unroll "
                f"= {limit} loop-body copies per function (an unroll that large builds for "
                f"minutes): {remedy}, or raise the limit", node.iter)

    def _static_int(self, node):
        if _is_call_of(node, "len") and len(node.args) == 1 and isinstance(node.args[0], ast.Name) \
                and _is_tuple_value(self.scope.symbols.get(node.args[0].id)):
            return len(self.scope.symbols[node.args[0].id])    # range(len(t)): unrolled
        # a call is evaluated here only if it emits nothing (wp.static): the dynamic loop would
        # evaluate it again
        v = self.eval(node) if not isinstance(node, ast.Call) or static_mod.is_static_call(node) \
            else None
        if isinstance(v, PyValue) and isinstance(v.obj, int):
            return int(v.obj)     # a Python bool counts as 0 or 1 (range(wp.static(True)))
        return None

    def _for_over_python_values(self, node):
        """``for f in wp.static([f1, f2])`` (or a global tuple/list): unrolled, one copy of the
        body per value, the loop variable bound to the value itself."""
        it = self.eval(node.iter)
        if isinstance(it, ir.Var) and type_name(it.type) in _QUERY_NEXT:
            return self._for_over_query(node, it)
        if not (isinstance(it, PyValue) and isinstance(it.obj, (list, tuple))):
            raise self.scope.error("for loops iterate over range(...), or over a Python list or "
                                   "tuple known when the kernel is built (wp.static(...))")
        if contains_break(node.body):
            raise self.scope.error("a loop over Python values is unrolled: break/continue are "
                                   "not supported in it")
        self._count_unroll(node, len(it.obj), "a loop over Python values makes one copy per value",
                           "put the values in a wp.array and loop over it with range()")
        for value in it.obj:
            self.scope.symbols[node.target.id] = PyValue(value)
            self.scope.set_node(node)
            self.stmts(node.body)

    def _for_over_query(self, node, query):
        """``for index in wp.hash_grid_query(...)`` (and mesh AABB / BVH queries), as the
        reference: ``while <query>_next(query, index)`` over the query's results."""
        from ..builtins.function import BuiltinFunction
        q, f, i = f"__query_{id(node)}", f"__query_next_{id(node)}", node.target.id
        self.scope.bind(q, query)
        self.scope.bind(i, self.scope.const(0, sc.int32))
        self.scope.symbols[f] = PyValue(BuiltinFunction(_QUERY_NEXT[type_name(query.type)]))
        test = ast.Call(func=ast.Name(id=f, ctx=ast.Load()),
                        args=[ast.Name(id=q, ctx=ast.Load()), ast.Name(id=i, ctx=ast.Load())],
                        keywords=[])
        loop = ast.fix_missing_locations(ast.copy_location(
            ast.While(test=ast.copy_location(test, node.iter), body=node.body, orelse=[]), node))
        self.stmt(loop)

    def _unrolled(self, node, values):
        # the index is int32 unless a bound is past 32 bits (then int64: never wrapped)
        t = sc.int32 if all(-2**31 <= v < 2**31 for v in (values.start, values.stop)) else sc.int64
        for i in values:
            self.scope.symbols[node.target.id] = self.scope.const(i, t)
            self.scope.set_node(node)
            self.stmts(node.body)

    def _dynamic_for(self, node, arg_nodes, reverse=False):
        args = [self.eval_var(a) for a in arg_nodes]
        if any(not sc.is_int(a.type) for a in args):
            raise self.scope.error(
                f"range() arguments must be integers, got ({', '.join(type_name(a.type) for a in args)})")
        typed = {type_name(a.type): a.type for a in args if not a.literal}
        if len(typed) > 1:
            raise self.scope.error(f"range() arguments must have one integer type, got "
                                   f"{' and '.join(typed)}; cast explicitly")
        # untyped bounds: int32, or the widest literal's type (a bound past 32 bits is int64)
        widest = max((a.type for a in args), key=lambda t: (t.size, t._kind == "uint"))
        loop_type = next(iter(typed.values()), widest)
        args = [self.retype_literal(a, loop_type) if a.literal else a for a in args]
        if len(args) == 1:
            args = [self.scope.const(0, args[0].type)] + args
        if len(args) == 2:
            args.append(self.scope.const(1, args[0].type))
        if reverse:
            args = self._reversed_bounds(args)
        loop_var = self.scope.new_var(args[0].type, name=node.target.id)
        first = len(self.scope.vars)
        self._loop_body(node.body, lambda body: ir.ForRange(
            var=loop_var, start=args[0], stop=args[1], step=args[2], body=body,
            body_vars=self.scope.vars[first:]),
            pre=lambda: self.scope.symbols.__setitem__(node.target.id, loop_var))

    def _reversed_bounds(self, args):
        """(start, stop, step) of ``reversed(range(start, stop, step))``: the same values, last
        first; an empty range stays empty (start == stop)."""
        if args[0].type._kind == "uint":
            raise self.scope.error("reversed(range(...)) needs signed integer bounds (it counts "
                                   f"down with a negative step), got {type_name(args[0].type)}")
        return [self.call_builtin("range_reversed_start", args),
                self.call_builtin("range_reversed_stop", args), self.call_builtin("neg", [args[2]])]

    def s_While(self, node):
        if node.orelse:
            raise self.scope.error("while ... else is not supported")
        state = {}

        def pre():
            self.scope.push_block()
            state["cond"] = self.as_bool(self.eval_var(node.test))
            state["block"] = self.scope.pop_block()
        self._loop_body(node.body, lambda body: ir.While(
            cond_block=state["block"], cond=state["cond"], body=body), pre=pre)

    def _loop_body(self, body_nodes, make, pre):
        """Translate a dynamic loop: names defined before it are loop-carried (written back)."""
        self.scope.loop_carried.append(set(self.scope.symbols))
        # a name the loop assigns is no compile-time constant inside it, even before the
        # assignment (the next iteration sees the new value): wp.static() must not read it
        for name in _assigned_names(body_nodes):
            v = self.scope.symbols.get(name)
            for e in (v if isinstance(v, tuple) else (v,)):
                if isinstance(e, ir.Var):
                    e.constant = None
        before = dict(self.scope.symbols)
        pre()
        line = self.scope.lineno        # the loop statement's own line (its body moves it on)
        self.scope.push_block()
        self.stmts(body_nodes)
        body = self.scope.pop_block()
        self.scope.loop_carried.pop()
        # names first bound inside the loop stay visible after it (as in Python)
        inner = self.scope.symbols
        self.scope.symbols = dict(before)
        for k, v in inner.items():
            self.scope.symbols.setdefault(k, v)
        self.scope.emit(make(body)).lineno = line

    def s_Break(self, node):
        self.scope.emit(ir.Break())

    def s_Continue(self, node):
        self.scope.emit(ir.Continue())

    def s_Return(self, node):
        if self.is_kernel:
            if node.value is not None:
                raise self.scope.error("kernels cannot return a value")
            self.scope.emit(ir.Return(values=[]))
            return
        value = self.eval(node.value) if node.value is not None else ()
        values = value if isinstance(value, tuple) else (value,)
        values = [self.to_var(v, node.value) for v in values]
        values = self._check_return_types(values)
        tile_ops.refs_on_return(self, self.scope.emit(ir.Return(values=values)))

    def _check_return_types(self, values):
        declared = getattr(self, "declared_return", None)
        if declared is not None and self.return_types is None:
            self.return_types = declared      # later returns are checked against the annotation
        types = [v.type for v in values]
        fixed_as_array(self, types)
        if self.return_types is None:
            self.return_types = types
            return values
        # a literal adopts the annotated type, or an earlier return's type of its own kind (as
        # warp-lang, `return 1` after `return 1.0` is a second type)
        values = [self.retype_literal(v, t) if v.literal and (declared is not None or _same_kind(v.type, t))
                  else v for v, t in zip(values, self.return_types)]
        if [type_name(v.type) for v in values] != [type_name(t) for t in self.return_types]:
            given = ", ".join(type_name(v.type) for v in values)
            first = ", ".join(type_name(t) for t in self.return_types)
            raise self.scope.error(
                f"this return gives ({given}) but "
                + (f"the function is annotated -> {', '.join(type_name(t) for t in declared)}"
                   if declared is not None else
                   f"an earlier one gave ({first}): a function returns one type on every path "
                   f"(warp-lang: function returned different types); convert the value ({first}(...))"))
        return values


def _same_kind(a, b):
    from ...types.scalars import is_float, is_int
    return (is_int(a) and is_int(b)) or (is_float(a) and is_float(b))


def _is_tuple_value(value):
    return isinstance(value, tuple) and not (value and isinstance(value[0], str))


def _is_callable(obj):
    """A function a kernel may call through a local name (a @wp.func, a builtin, wp.grad(f))."""
    from ..builtins.function import BuiltinFunction
    from .grad_of import GradOf
    return getattr(obj, "_wp_function_", False) or isinstance(obj, (BuiltinFunction, GradOf))


def _is_call_of(node, name):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _assigned_names(nodes):
    """The names a block of statements assigns (targets of =, +=, for, with out-params)."""
    out = set()
    for stmt in nodes:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
            elif isinstance(n, ast.Call):    # builtins with out-parameters rebind their names
                out.update(a.id for a in n.args if isinstance(a, ast.Name))
    return out


_QUERY_NEXT = {"HashGridQuery": "hash_grid_query_next", "MeshQueryAABB": "mesh_query_aabb_next",
               "BvhQuery": "bvh_query_next", "MeshQuerySphere": "mesh_query_next"}

STMT_TABLE = {
    ast.Pass: Translator.s_Pass,
    ast.Assert: Translator.s_Assert,
    ast.Expr: Translator.s_Expr,
    ast.Assign: Translator.s_Assign,
    ast.AnnAssign: Translator.s_AnnAssign,
    ast.AugAssign: Translator.s_AugAssign,
    ast.If: Translator.s_If,
    ast.For: Translator.s_For,
    ast.While: Translator.s_While,
    ast.Break: Translator.s_Break,
    ast.Continue: Translator.s_Continue,
    ast.Return: Translator.s_Return,
}
