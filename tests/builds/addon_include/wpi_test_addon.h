// A header a test module includes through wp.ModuleBuildOptions(extra_*_include_dirs=[...]);
// ADDON_K comes from the module's preamble, after this include.
#pragma once
static inline CUDA_CALLABLE float wpi_test_addon_affine(float x, float k) { return k * x + 1.0f; }
