"""The typed IR the translator produces and codegen consumes.

A function body is a tree of blocks of statements over SSA-style variables. Every expression
result is a fresh ``Var``; a user variable reassigned in a dynamic loop is written back with a
``Copy`` (the loop's state), and after an ``if`` a variable assigned on the branches is joined
with a ``Select``. All variables are declared at the top of the generated function, so any
statement may assign any variable.
"""

from dataclasses import dataclass, field
from typing import Optional


@dataclass(eq=False)
class Var:
    id: int
    type: object
    name: Optional[str] = None       # the user's name, for readable C++
    constant: object = None          # a folded literal value, if known at build time
    literal: bool = False            # an untyped literal: may adopt a compatible scalar type
    bound_literal: bool = False      # a name bound to a literal (`x = 0.1`), unchanged since: casts
                                     # and typed constructors read its Python value (warp-lang's)
    is_param: bool = False           # a kernel/function parameter (named param_<name> in C++)
    by_ref: bool = False             # a func out-parameter (multi-value return)

    @property
    def label(self):
        if self.is_param:
            return f"var_{self.name}"
        return f"var_{self.id}"

    @property
    def adj(self):
        if self.is_param:
            return f"adj_{self.name}"
        return f"adj_{self.id}"


@dataclass
class Stmt:
    lineno: int = 0


@dataclass
class Call(Stmt):
    out: Optional[Var] = None
    func: object = None              # registry Overload or a user Function overload
    args: list = field(default_factory=list)
    template: str = ""               # C++ template arguments, e.g. "<3, float>"


@dataclass
class Const(Stmt):
    out: Var = None
    value: object = None


@dataclass
class Copy(Stmt):
    dst: Var = None
    src: Var = None


@dataclass
class Select(Stmt):
    out: Var = None
    cond: Var = None
    if_true: Var = None
    if_false: Var = None


@dataclass
class GetField(Stmt):
    out: Var = None
    src: Var = None
    field: str = ""


@dataclass
class SetField(Stmt):
    out: Var = None                  # a copy of src with one field replaced
    src: Var = None
    field: str = ""
    value: Var = None


@dataclass
class Block:
    stmts: list = field(default_factory=list)


@dataclass
class If(Stmt):
    cond: Var = None
    body: Block = None
    orelse: Block = None


@dataclass
class ForRange(Stmt):
    var: Var = None                  # the loop index (int32)
    start: Var = None
    stop: Var = None
    step: Var = None
    body: Block = None
    body_vars: list = field(default_factory=list)   # vars created by the body (adjoints reset per iteration)


@dataclass
class While(Stmt):
    cond_block: Block = None         # recomputes cond each iteration
    cond: Var = None
    body: Block = None


@dataclass
class Break(Stmt):
    pass


@dataclass
class Continue(Stmt):
    pass


@dataclass
class Return(Stmt):
    values: list = field(default_factory=list)


@dataclass
class Print(Stmt):
    fmt: str = ""                    # printf format
    args: list = field(default_factory=list)
    adj_fmt: str = ""                # the reverse pass prints the args' adjoints with it (print())
    block_once: bool = False         # a tile in a cooperative block: lane 0 prints (warp-lang)


@dataclass
class FunctionIR:
    name: str                        # C++ name (mangled)
    params: list                     # Vars with is_param=True
    body: Block
    vars: list                       # every non-param Var, in creation order
    return_types: list               # [] for none
    is_kernel: bool
    filename: str = ""
    tid_arity: int = 0
    calls: list = field(default_factory=list)   # user Function overloads this one calls
    structs: list = field(default_factory=list)  # struct types it uses
    grad_calls: list = field(default_factory=list)  # user overloads whose adjoint wp.grad() runs
    ref_outs: list = field(default_factory=list)    # tile params written in place: extra results (lang/tiles/refs.py)
    # an error raised only where the adjoint is generated (lang/translation/checks.py slot_augassign_error)
    backward_error: object = None


class PyValue:
    """A compile-time Python object met in kernel code (a module, a type, a constant...): what
    translation hands the builtin and tile handlers where a value is known when the kernel is built."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


# --- what lang hands codegen: a module's kernels and every function they reach, translated ---
@dataclass
class CalleeIR:
    """A @wp.func overload, or the helper of a custom adjoint or replay, as codegen writes it.
    Callers name it by ``cpp`` (``FunctionIR.calls`` entries carry that name)."""
    cpp: str
    name: str                        # the user's name, for messages
    fir: FunctionIR
    native: object = None            # @wp.func_native's snippets: the body is the user's C++
    forward_only: bool = False       # a custom adjoint/replay helper: no adjoint of its own
    grad: Optional[str] = None       # C++ name of its @wp.func_grad helper
    replay: Optional[str] = None     # C++ name of its @wp.func_replay helper
    diff_params: tuple = ()          # (a grad helper) the parameters whose adjoints it returns,
    diff_types: tuple = ()           # their types,
    param_names: tuple = ()          # and its parameter names in order


@dataclass
class KernelIR:
    cpp: str
    key: str                         # the user's name
    fir: FunctionIR
    block_width: int = 1             # lanes per cooperative CPU block (Kernel.with_block_width)
    backward: bool = True            # whether the kernel has an adjoint


@dataclass
class ModuleIR:
    """The output of ``lang.lower(kernels)``: every kernel and every function they reach (by
    calls, ``wp.grad``, custom adjoints and replays), translated. Codegen reads only this, so it
    never starts a translation."""
    kernels: dict = field(default_factory=dict)      # C++ name -> KernelIR, in the given order
    functions: dict = field(default_factory=dict)    # C++ name -> CalleeIR
