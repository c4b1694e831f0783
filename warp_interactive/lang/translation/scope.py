"""Translation state: variables, the block being filled, symbol bindings, loop context."""

import ast

from .. import ir
from ...errors import CodegenError


class Conflict:
    """A name bound to values of different types on the two paths of an ``if``: reading it later
    is an error (with this message); binding it again is fine."""

    __slots__ = ("message",)

    def __init__(self, message):
        self.message = message


class Scope:
    """What the translator tracks while walking one function body."""

    def __init__(self, filename, source_lines, first_line, func_name):
        self.filename, self.source_lines = filename, source_lines
        self.first_line, self.func_name = first_line, func_name
        self.vars = []
        self.symbols = {}
        self.blocks = [ir.Block()]
        self.loop_carried = []      # stack of name sets: names defined before each dynamic loop
        self.lineno = first_line
        self.node = None

    # --- variables and statements ---------------------------------------------------------
    def new_var(self, type_, name=None, literal=False, constant=None):
        v = ir.Var(id=len(self.vars), type=type_, name=name, literal=literal, constant=constant)
        self.vars.append(v)
        return v

    def emit(self, stmt):
        stmt.lineno = self.lineno
        self.blocks[-1].stmts.append(stmt)
        return stmt

    def const(self, value, type_, literal=False):
        v = self.new_var(type_, literal=literal, constant=value)
        self.emit(ir.Const(out=v, value=value))
        return v

    def push_block(self):
        self.blocks.append(ir.Block())

    def pop_block(self):
        return self.blocks.pop()

    # --- errors ---------------------------------------------------------------------------
    def error(self, msg, node=None, kind=CodegenError):
        """A ``kind`` (CodegenError or a subclass) at ``node``'s line, to raise."""
        node = node or self.node
        lineno = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        line_text = None
        abs_line = None
        if lineno is not None:
            abs_line = lineno + self.first_line - 1
            idx = lineno - 1
            if 0 <= idx < len(self.source_lines):
                line_text = self.source_lines[idx]
                col = operator_col(node, line_text, col)
        return kind(msg, self.filename, abs_line, col, line_text, self.func_name)

    def lineno_of(self, node):
        return node.lineno + self.first_line - 1

    def set_node(self, node):
        self.node = node
        if hasattr(node, "lineno"):
            self.lineno = node.lineno + self.first_line - 1

    # --- name binding ---------------------------------------------------------------------
    def in_loop_carried(self, name):
        return any(name in s for s in self.loop_carried)

    def bind(self, name, value):
        """Bind a user name: a loop-carried variable is written back, others rebound (SSA)."""
        existing = self.symbols.get(name)
        if isinstance(value, tuple):
            return self._bind_tuple(name, value, existing)
        if isinstance(existing, ir.Var) and self.in_loop_carried(name):
            if isinstance(value, ir.Var) and value.type is not existing.type and \
                    _type_key(value.type) != _type_key(existing.type):
                raise self.error(
                    f"variable '{name}' changes type inside a loop, from {_tn(existing.type)} "
                    f"to {_tn(value.type)}; cast explicitly")
            self.emit(ir.Copy(dst=existing, src=value))
            existing.constant = None     # changes at run time: no longer a wp.static() constant
            existing.bound_literal = False
            return existing
        if isinstance(existing, ir.Var) and isinstance(value, ir.Var) and \
                _type_key(existing.type) != _type_key(value.type):
            if not _keeps_type(existing, value):
                raise self.error(_retyped(name, existing, value))
            value = self.const(type(value.constant)(value.constant) if value.constant is not None else 0,
                               existing.type, literal=True)    # the literal in the name's type
        if isinstance(value, ir.Var):
            if value.literal or value.name is not None or value.is_param:
                # a literal becomes a typed variable; a named value is copied so that a later
                # write to one name never changes the other
                # (a literal's value stays known: wp.static() expressions may read it)
                known = value.literal or value.bound_literal
                fresh = self.new_var(value.type, name=name, constant=value.constant if known else None)
                fresh.bound_literal = known
                self.emit(ir.Copy(dst=fresh, src=value))
                value = fresh
            else:
                value.name = name
        self.symbols[name] = value
        return value

    def _bind_tuple(self, name, values, existing):
        """A tuple: element-wise as variables are (written back element by element when the
        name is carried by a loop, which needs the same length and types)."""
        if isinstance(existing, tuple) and self.in_loop_carried(name):
            if len(existing) != len(values):
                raise self.error(f"tuple '{name}' changes length inside a loop, from "
                                 f"{len(existing)} to {len(values)}")
            for k, (old, new) in enumerate(zip(existing, values)):
                self._bind_element(f"{name}[{k}]", old, new)
            return existing
        if self.in_loop_carried(name) and existing is not None:
            raise self.error(f"variable '{name}' becomes a tuple inside a loop")
        fresh = []
        for v in values:
            if v.literal or v.name is not None or v.is_param:   # independent copies (as bind)
                c = self.new_var(v.type, constant=v.constant if v.literal else None)
                self.emit(ir.Copy(dst=c, src=v))
                v = c
            fresh.append(v)
        self.symbols[name] = tuple(fresh)
        return self.symbols[name]

    def _bind_element(self, label, old, new):
        if _type_key(old.type) != _type_key(new.type):
            raise self.error(f"{label} changes type inside a loop, from {_tn(old.type)} to "
                             f"{_tn(new.type)}; cast explicitly")
        self.emit(ir.Copy(dst=old, src=new))
        old.constant = None


def _keeps_type(existing, value):
    """Whether binding ``value`` to a name that holds ``existing`` keeps the name's type (as
    warp-lang requires); an untyped literal of the same kind adopts it (``x = 0.5`` after
    ``x = wp.float64(1.0)``)."""
    if _type_key(existing.type) == _type_key(value.type):
        return True
    if value.literal:
        from ...types.scalars import is_float, is_int
        return (is_int(existing.type) and is_int(value.type)) or \
            (is_float(existing.type) and is_float(value.type))
    return False


def _retyped(name, existing, value):
    from ...types.scalars import is_float, is_int
    what = "parameter" if existing.is_param else "variable"
    old = _tn(existing.type)
    fix = f"convert the value ({old}(...)) or use another name" if \
        is_int(existing.type) or is_float(existing.type) else "use another name"
    return (f"{what} '{name}' is {old} and is assigned a {_tn(value.type)} value here: a name keeps "
            f"one type in a kernel (warp-lang: assigning to existing symbol {name} ({old}) with "
            f"different type ({_tn(value.type)})); {fix}")


def _type_key(t):
    return t.type_key() if hasattr(t, "type_key") else t


def _tn(t):
    from ..builtins.registry import type_name
    return type_name(t)


def contains_break(body):
    """True if a loop body breaks or continues at its own level (nested loops excluded)."""
    for stmt in body:
        for node in _walk_same_loop(stmt):
            if isinstance(node, (ast.Break, ast.Continue)):
                return True
    return False


def _walk_same_loop(node):
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.For, ast.While, ast.FunctionDef)):
            continue
        yield from _walk_same_loop(child)




def operator_col(node, line_text, col):
    """The caret's column: a binary operation's operator (``+`` of ``a * b + i``), not the start
    of its left operand, where both operands sit on the line; else ``col``."""
    if not isinstance(node, ast.BinOp) or node.left.end_lineno != node.lineno or \
            node.right.lineno != node.lineno:
        return col
    text = line_text.encode()          # ast columns count UTF-8 bytes
    at = node.left.end_col_offset
    while at < node.right.col_offset and text[at:at + 1] in (b" ", b"\t", b")"):
        at += 1                         # past the spaces and the closing brackets
    return at if at < node.right.col_offset else col
