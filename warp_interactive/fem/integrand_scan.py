"""Whether a bilinear integrand may be assembled by evaluating it on unit basis values
(fem/dispatch.py), decided from its source, conservatively.

That assembly evaluates the integrand per quadrature point with the test and trial functions
replaced by unit shape weights / gradient directions, and combines those values with each
node's basis values afterwards. It gives the same matrix as evaluating the integrand per node
pair only if the integrand sees the test and trial functions through operators linear in the
basis function's weight and gradient at its own quadrature point, and does not tell nodes
apart. So it is used only when the integrand

- uses the test/trial parameters only as ``u(s)``, ``fem.grad(u, s)``, ``fem.div(u, s)``,
  ``fem.D(u, s)`` or ``fem.curl(u, s)``, with ``s`` its own sample parameter;
- never assigns its sample, test or trial parameter, nor reads ``s.test_dof``/``s.trial_dof``;
- passes its sample only to those, to fem operators on other arguments (discrete fields, the
  domain) and to calls of its other field/domain parameters (``k(s)``), or reads its members;
- defines no nested function or lambda.

Anything else (another integrand or a ``@wp.func`` given the sample or a test function, a moved
sample, ``fem.at_node``/``fem.inner``... on a test function) keeps the generic assembly. The
integrand is assumed bilinear in the test and trial functions, as a bilinear form is (and as
warp-lang's default assembly assumes)."""

import ast
import builtins

from .operator import Operator

VALUE, GRAD = "value", "grad"
_GRAD_OPS = frozenset(("grad", "div", "D", "curl"))
_DOF_MEMBERS = frozenset(("test_dof", "trial_dof"))


class _Resolver:
    """What a callee expression names in the integrand's globals/closure (None when it is
    unknown, a local name, or not a plain name/attribute chain)."""

    def __init__(self, func, local_names):
        self.names = dict(vars(builtins))
        self.names.update(func.__globals__)
        for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
            try:
                self.names[name] = cell.cell_contents
            except ValueError:
                self.names.pop(name, None)
        self.local_names = local_names

    def __call__(self, node):
        if isinstance(node, ast.Name):
            if node.id in self.local_names:
                return None
            return self.names.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self(node.value)
            return getattr(base, node.attr, None) if base is not None else None
        return None


def _is_name(node, name):
    return isinstance(node, ast.Name) and node.id == name


def _plain_call(call, n):
    """A call with ``n`` positional arguments, no keywords and no ``*``/``**``."""
    return (len(call.args) == n and not call.keywords
            and not any(isinstance(a, ast.Starred) for a in call.args))


class _Scan:
    def __init__(self, integrand, sample, test, trial, callables):
        self.tree = integrand.function.src.tree
        self.sample, self.test, self.trial = sample, test, trial
        self.callables = set(callables)     # other field / domain parameters: k(s) is allowed
        self.parents = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        local = {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        self.resolve = _Resolver(integrand.func, local | {a.arg for a in self.tree.args.args})
        self.needs = {test: set(), trial: set()}

    def operator(self, call):
        op = self.resolve(call.func)
        # by class name: in the float64 twin of this module (fem/precision.py) ``Operator`` is
        # the twin class, while integrands name the float32 ``fem.grad``... objects
        if isinstance(op, Operator) or (type(op).__name__ == Operator.__name__ and hasattr(op, "_wp_resolve_call_")):
            return op.name
        return None

    def field_use(self, node, parent):
        """VALUE or GRAD for an allowed use of a test/trial parameter, else None."""
        if not isinstance(parent, ast.Call):
            return None
        if parent.func is node:
            return VALUE if _plain_call(parent, 1) and _is_name(parent.args[0], self.sample) else None
        if (_plain_call(parent, 2) and parent.args[0] is node and _is_name(parent.args[1], self.sample)
                and self.operator(parent) in _GRAD_OPS):
            return GRAD
        return None

    def sample_use(self, node, parent):
        if isinstance(parent, ast.Attribute):
            return parent.value is node and parent.attr not in _DOF_MEMBERS
        if not isinstance(parent, ast.Call) or parent.func is node or node not in parent.args:
            return False
        if any(isinstance(a, ast.Starred) for a in parent.args):
            return False
        first = parent.args[0] if parent.args else None
        if isinstance(parent.func, ast.Name) and parent.func.id in (self.test, self.trial, *self.callables):
            return _plain_call(parent, 1)
        if self.operator(parent) is None or first is node or first is None:
            return False
        if isinstance(first, ast.Name) and first.id in (self.test, self.trial):
            return self.field_use(first, parent) is not None
        return True

    def run(self):
        for stmt in self.tree.body:
            for node in ast.walk(stmt):
                if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                     ast.Global, ast.Nonlocal)):
                    return None
                if not isinstance(node, ast.Name) or node.id not in (self.sample, self.test, self.trial):
                    continue
                if not isinstance(node.ctx, ast.Load):
                    return None
                parent = self.parents.get(node)
                if node.id == self.sample:
                    if not self.sample_use(node, parent):
                        return None
                    continue
                use = self.field_use(node, parent)
                if use is None:
                    return None
                self.needs[node.id].add(use)
        return frozenset(self.needs[self.test]), frozenset(self.needs[self.trial])


_scans = {}


def taylor_needs(integrand, sample, test, trial, callables=()):
    """(test needs, trial needs): the sets of VALUE/GRAD the integrand takes of its test and
    trial functions, when it qualifies for the dispatch assembly (module doc); else None."""
    key = (integrand, sample, test, trial, tuple(sorted(callables)))
    if key not in _scans:
        if sample is None or getattr(integrand.function, "src", None) is None:
            _scans[key] = None
        else:
            _scans[key] = _Scan(integrand, sample, test, trial, callables).run()
    return _scans[key]
