// Shared between the binding files of warp_interactive._native (module.cpp, fast_plan.cpp).
#pragma once

#include <Python.h>

#include <cstdint>

namespace wpi_py {

// Runs a kernel entry over [0, total) with automatic chunks, the GIL released (see module.cpp's
// launch()). Returns false with a Python error set (KeyboardInterrupt, or an internal error).
bool run_launch(uintptr_t entry, const void* args, const void* bounds, int64_t total, int nthreads);

// The FastPlan type (fast_plan.cpp), a new reference; nullptr with an error set on failure.
PyObject* fast_plan_type();

}  // namespace wpi_py
