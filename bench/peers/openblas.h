// OpenBLAS as a peer, on the best kernel set this CPU supports.
#pragma once

#include <cstdint>
#include <string>

namespace tsr::bench {

// Call first in main. OpenBLAS 0.3.21 (Debian 12) picks its kernels when the
// library loads and does not recognise newer CPU models: on some AVX-512
// Xeons it falls back to its Prescott kernels (17-20 GFLOP/s instead of
// 99-147). When its choice (or an OPENBLAS_CORETYPE already in the
// environment) is weaker than CPUID allows, this re-executes the program with OPENBLAS_CORETYPE set to the best set it has (Cooperlake with
// AVX512-BF16, SkylakeX with AVX-512, Haswell with AVX2); it returns only
// when no re-execution is needed (or it failed, said on stderr).
void openblas_pin_best_kernels(char** argv);

// "OpenBLAS <config>; core <name> (<how it was chosen>)".
std::string openblas_description();

void openblas_threads(int threads);

// C[m, n] = A[m, k] * B[k, n], all row-major f32.
void openblas_sgemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c);

}  // namespace tsr::bench
