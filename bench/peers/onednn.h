// oneDNN's matmul primitive as a peer (Debian libdnnl-dev 2.6, OpenMP runtime).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace tsr::bench {

// "oneDNN v2.6.3 (hash); ISA ...; CPU runtime OpenMP", or why it is absent.
std::string onednn_description();
bool onednn_present();

// One matmul primitive, created once for its shape, operands and the
// OpenMP thread count current at creation (its blocking depends on it):
// C[m, n] f32 = A[m, k] * B[k, n], row-major, A and B f32 or bf16.
class OnednnMatmul {
 public:
  static std::unique_ptr<OnednnMatmul> make(int64_t m, int64_t n, int64_t k, bool bf16, const void* a,
                                            const void* b, float* c, std::string& why);
  virtual ~OnednnMatmul() = default;
  virtual void run() = 0;
  virtual std::string implementation() const = 0;   // oneDNN's name, e.g. "brg:avx512_core_bf16"
};

}  // namespace tsr::bench
