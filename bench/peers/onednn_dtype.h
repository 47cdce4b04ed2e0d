// Our storage dtypes as oneDNN's memory data types (dnnl.hpp); included only
// where the bench found libdnnl (TSR_BENCH_HAVE_DNNL).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "spec/kernel_spec.h"

namespace tsr::bench {

inline dnnl::memory::data_type onednn_data_type(DType dtype) {
  switch (dtype) {
    case DType::f32: return dnnl::memory::data_type::f32;
    case DType::bf16: return dnnl::memory::data_type::bf16;
    case DType::f16: return dnnl::memory::data_type::f16;
  }
  return dnnl::memory::data_type::undef;
}

}  // namespace tsr::bench
