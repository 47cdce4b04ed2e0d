// Limits every codec enforces on numbers that reach emitted code
// (docs/spec-format.md, "Limits"). Exceeding one is a spec error.
#pragma once

#include <cstdint>

namespace tsr {

// Largest static extent, and largest product of the static extents of one
// buffer: 2^48 elements (512 TiB of f16, beyond any one address space), so
// element counts, byte sizes (x 4) and every index an emitted kernel forms
// stay far inside int64.
constexpr int64_t kMaxStaticElements = int64_t{1} << 48;

// A constant rounds to a finite f32 exactly when its magnitude is below
// FLT_MAX + half an ulp = 2^128 - 2^103 (round to nearest even).
constexpr double kF32RoundsToInfinity = 0x1.ffffffp+127;

}  // namespace tsr
