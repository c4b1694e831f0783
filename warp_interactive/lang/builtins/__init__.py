"""The builtin registry (one record per builtin), the declarations that fill it and the reference page made from it."""
