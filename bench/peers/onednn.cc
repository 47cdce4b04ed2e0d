// oneDNN 2.x C++ API (dnnl.hpp): matmul::desc -> primitive_desc -> primitive,
// executed on a CPU stream over user memory. Built only where the bench
// found libdnnl (TSR_BENCH_HAVE_DNNL); otherwise the peer is absent and each
// line says so.
#include "onednn.h"

#ifdef TSR_BENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>
#endif

namespace tsr::bench {

#ifdef TSR_BENCH_HAVE_DNNL

namespace {

class Matmul final : public OnednnMatmul {
 public:
  Matmul(int64_t m, int64_t n, int64_t k, bool bf16, const void* a, const void* b, float* c)
      : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {
    using dnnl::memory;
    const memory::data_type in = bf16 ? memory::data_type::bf16 : memory::data_type::f32;
    const memory::desc a_md({m, k}, in, memory::format_tag::ab), b_md({k, n}, in, memory::format_tag::ab),
        c_md({m, n}, memory::data_type::f32, memory::format_tag::ab);
    pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), engine_);
    prim_ = dnnl::matmul(pd_);
    a_ = memory(a_md, engine_, const_cast<void*>(a));
    b_ = memory(b_md, engine_, const_cast<void*>(b));
    c_ = memory(c_md, engine_, c);
  }
  void run() override {
    prim_.execute(stream_, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, c_}});
    stream_.wait();
  }
  std::string implementation() const override { return pd_.impl_info_str(); }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul prim_;
  dnnl::memory a_, b_, c_;
};

}  // namespace

bool onednn_present() { return true; }

std::string onednn_description() {
  const dnnl_version_t* v = dnnl_version();
  std::string s = "oneDNN v" + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                  std::to_string(v->patch) + " (" + v->hash + "); ISA " +
                  dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa()) + "; CPU runtime ";
  s += v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP (threads: omp_set_num_threads)" : "not OpenMP";
  return s;
}

std::unique_ptr<OnednnMatmul> OnednnMatmul::make(int64_t m, int64_t n, int64_t k, bool bf16, const void* a,
                                                 const void* b, float* c, std::string& why) {
  try {
    return std::make_unique<Matmul>(m, n, k, bf16, a, b, c);
  } catch (const dnnl::error& e) {
    why = std::string("oneDNN refused the matmul: ") + e.what();
    return nullptr;
  }
}

#else

bool onednn_present() { return false; }
std::string onednn_description() { return "oneDNN absent: libdnnl not found when the bench was built (libdnnl-dev)"; }
std::unique_ptr<OnednnMatmul> OnednnMatmul::make(int64_t, int64_t, int64_t, bool, const void*, const void*, float*,
                                                 std::string& why) {
  why = "oneDNN not built in";
  return nullptr;
}

#endif

}  // namespace tsr::bench
