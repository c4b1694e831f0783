"""What users define: kernels, functions, structs, constants, modules (the decorators and the objects they make)."""
