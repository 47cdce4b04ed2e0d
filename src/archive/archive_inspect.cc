#include "archive/archive_inspect.h"

#include <memory>
#include <nlohmann/json.hpp>

#include "support/sha256.h"
#include "tesserart.h"

namespace tsr {

Expected<std::string> inspect_json(std::span<const uint8_t> bytes) {
  char message[256] = "";
  tsr_open_options options{0, message, sizeof message};
  tsr_archive* raw = nullptr;
  tsr_status s = tsr_archive_open_memory(bytes.data(), bytes.size(), &options, &raw);
  if (s != TSR_OK) return invalid_input(*message ? message : tsr_status_string(s));
  std::unique_ptr<tsr_archive, void (*)(tsr_archive*)> a(raw, tsr_archive_close);

  tsr_archive_info info;
  (void)tsr_archive_get_info(raw, &info);
  nlohmann::json j;
  j["format"] = std::to_string(info.major) + "." + std::to_string(info.minor);
  j["file_size"] = info.file_size;
  j["metadata"] = nlohmann::json::object();
  for (size_t i = 0; i < info.metadata_count; ++i) {
    const char *key, *value;
    (void)tsr_archive_metadata_at(raw, i, &key, &value);
    j["metadata"][key] = value;
  }
  j["kernels"] = nlohmann::json::array();
  for (size_t k = 0; k < info.kernel_count; ++k) {
    tsr_kernel_info ki;
    (void)tsr_archive_kernel_at(raw, k, &ki);
    nlohmann::json jk{{"name", ki.name}, {"identity", ki.identity}, {"family", ki.family}, {"dtype", ki.dtype}};
    jk["abi"] = nlohmann::json::array();
    for (size_t b = 0; b < ki.binding_count; ++b) {
      tsr_binding_info bi;
      (void)tsr_kernel_binding_at(raw, k, b, &bi);
      static const char* const roles[] = {"in", "out", "scalar"};
      nlohmann::json jb{{"name", bi.name}, {"role", roles[bi.role]}, {"dtype", tsr_dtype_name(bi.dtype)}};
      if (bi.role != TSR_ROLE_SCALAR) {
        jb["shape"] = nlohmann::json::array();
        for (size_t d = 0; d < bi.dim_count; ++d) {
          tsr_dim_info di;
          (void)tsr_kernel_dim_at(raw, k, b, d, &di);
          if (di.is_scalar) jb["shape"].push_back(di.scalar_name);
          else jb["shape"].push_back(di.value);
        }
      }
      jk["abi"].push_back(jb);
    }
    jk["variants"] = nlohmann::json::array();
    for (size_t v = 0; v < ki.variant_count; ++v) {
      tsr_variant_info vi;
      (void)tsr_kernel_variant_at(raw, k, v, &vi);
      static const char* const kinds[] = {"unknown", "shared_object", "ptx", "cubin", "code_object", "xclbin"};
      nlohmann::json jv{{"target", std::string(vi.target_kind) + ":" + vi.arch},
                        {"artifact_kind", kinds[vi.artifact_kind]},
                        {"entry", vi.entry}, {"key", vi.key}, {"toolchain", vi.toolchain},
                        {"offset", vi.offset}, {"size", vi.size}, {"sha256", to_hex(vi.sha256, 32)}};
      jv["metadata"] = nlohmann::json::object();
      for (size_t m = 0; m < vi.metadata_count; ++m) {
        const char *key, *value;
        (void)tsr_variant_metadata_at(raw, k, v, m, &key, &value);
        jv["metadata"][key] = value;
      }
      jk["variants"].push_back(jv);
    }
    jk["verdicts"] = nlohmann::json::array();
    for (size_t v = 0; v < ki.verdict_count; ++v) {
      tsr_verdict_info di;
      (void)tsr_kernel_verdict_at(raw, k, v, &di);
      static const char* const verdicts[] = {"NOT_RUN", "PASS", "FAIL"};
      jk["verdicts"].push_back({{"target", std::string(di.target_kind) + ":" + di.arch},
                                {"verdict", unsigned(di.verdict) < 3 ? verdicts[di.verdict] : "UNKNOWN"},
                                {"max_abs_err", di.max_abs_err}, {"max_rel_err", di.max_rel_err},
                                {"budget_atol", di.budget_atol}, {"budget_rtol", di.budget_rtol},
                                {"seed", di.seed}, {"reason", di.reason}});
    }
    j["kernels"].push_back(jk);
  }
  return j.dump(2) + "\n";
}

}  // namespace tsr
