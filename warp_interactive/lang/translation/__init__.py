"""Python AST -> typed IR: statements, expressions, calls, scopes and the checks on them."""
