// tesserac inspect FILE [--json]: kernels, ABI, variants, sizes, hashes, receipts, verdicts.
#include <cstring>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "archive/archive_inspect.h"
#include "archive/archive_reader.h"
#include "cli/commands.h"
#include "driver/reason_notes.h"
#include "support/file_io.h"
#include "xdna/xclbin_reader.h"

namespace tsr::cli {

namespace {
struct InspectOptions {
  std::string archive;
  bool json = false;
};

std::string shape_text(const nlohmann::json& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + (shape[i].is_string() ? shape[i].get<std::string>() : std::to_string(shape[i].get<int64_t>()));
  return out + "]";
}

void print_receipt(const nlohmann::json& r) {
  std::cout << "    receipt " << r["size"].get<uint64_t>() << " bytes  sha256 " << r["sha256"].get<std::string>().substr(0, 16)
            << "…  ";
  const nlohmann::json& sig = r["signature"];
  if (sig.is_null()) std::cout << "unsigned";
  else if (sig.contains("key_id")) std::cout << "signed by key " << sig["key_id"].get<std::string>().substr(0, 16) << "…";
  else std::cout << sig["error"].get<std::string>();
  const nlohmann::json& facts = r["facts"];
  if (facts.is_null()) std::cout << "  (does not decode: see tesserac verify)\n";
  else std::cout << "  " << facts["device"].get<std::string>() << ", " << facts["qualified_at"].get<std::string>() << "\n";
}

// A tuned variant's route and measurements (docs/arbiter.md): the route.*
// and tune.* keys of its metadata, one bucket and one candidate per line.
void print_tuning(const nlohmann::json& meta) {
  auto get = [&](const std::string& key) { return meta.contains(key) ? meta[key].get<std::string>() : std::string(); };
  if (!meta.contains("route.0")) return;
  if (meta.contains("tune.device"))
    std::cout << "    tuned on " << get("tune.device") << ", " << get("tune.workers") << " workers, "
              << get("tune.method") << "\n";
  for (size_t b = 0; meta.contains("route." + std::to_string(b)); ++b) {
    const std::string label = get("tune.bucket." + std::to_string(b));
    std::cout << "    route " << b << (label.empty() ? "" : " (" + label + ")") << ": "
              << get("route." + std::to_string(b)) << "\n";
  }
  const std::string prefix = "tune.candidate.";
  for (const auto& [key, value] : meta.items()) {
    if (key.rfind(prefix, 0) != 0) continue;
    const std::string name = key.substr(prefix.size());
    std::cout << "    candidate " << name << ": " << get("tune.outcome." + name);
    for (size_t b = 0; meta.contains("tune.median_ns." + std::to_string(b) + "." + name); ++b)
      std::cout << (b ? ", " : "; median ") << get("tune.median_ns." + std::to_string(b) + "." + name) << " ns";
    std::cout << "\n      " << value.get<std::string>() << "\n";
  }
}

void print_text(const nlohmann::json& j) {
  // A long reason tail that many verdicts share (the xdna manifest's
  // description) is printed once at the end, as a note they refer to.
  std::vector<std::string> reasons;
  for (const auto& k : j["kernels"])
    for (const auto& v : k["verdicts"]) reasons.push_back(v["reason"].get<std::string>());
  ReasonNotes notes(reasons);
  std::cout << "format " << j["format"].get<std::string>() << ", " << j["file_size"].get<uint64_t>() << " bytes, "
            << j["kernels"].size() << " kernels\n";
  for (const auto& [key, value] : j["metadata"].items()) std::cout << "  " << key << " = " << value.get<std::string>() << "\n";
  for (const auto& k : j["kernels"]) {
    std::cout << "\nkernel " << k["name"].get<std::string>() << " (" << k["family"].get<std::string>() << ", "
              << k["dtype"].get<std::string>() << ")\n  identity " << k["identity"].get<std::string>() << "\n  abi     ";
    bool first = true;
    for (const auto& b : k["abi"]) {
      std::cout << (first ? "" : ", ") << b["role"].get<std::string>() << " " << b["name"].get<std::string>();
      if (b.contains("shape")) std::cout << ":" << b["dtype"].get<std::string>() << shape_text(b["shape"]);
      else std::cout << ":i64";
      first = false;
    }
    std::cout << "\n";
    for (const auto& v : k["variants"]) {
      std::cout << "  variant " << v["target"].get<std::string>() << "  " << v["artifact_kind"].get<std::string>() << "  "
                << v["size"].get<uint64_t>() << " bytes  sha256 " << v["sha256"].get<std::string>().substr(0, 16)
                << "…  " << v["toolchain"].get<std::string>() << "\n";
      print_tuning(v["metadata"]);
      for (const auto& r : v["receipts"]) print_receipt(r);
    }
    for (const auto& v : k["verdicts"]) {
      std::cout << "  verdict " << v["target"].get<std::string>() << "  " << v["verdict"].get<std::string>();
      if (!v["reason"].get<std::string>().empty()) std::cout << "  (" << notes.shorten(v["reason"].get<std::string>()) << ")";
      std::cout << "\n";
    }
  }
  if (const std::string text = notes.render(); !text.empty()) std::cout << "\n" << text;
}
}  // namespace

RunFn register_inspect(CLI::App& app) {
  auto opts = std::make_shared<InspectOptions>();
  CLI::App* sub = app.add_subcommand("inspect", "Describe a .tfat archive (kernels, ABI, variants, hashes, verdicts) or an .xclbin (sections, kernels)");
  sub->add_option("archive", opts->archive, "The archive")->required();
  sub->add_flag("--json", opts->json, "Print JSON");
  return [opts]() -> int {
    Expected<std::vector<uint8_t>> bytes = read_file_bytes(opts->archive);
    if (!bytes) return report(bytes.error());
    // An xclbin (an xdna variant written with build --out-dir): its own bounds-checked reader.
    if (bytes->size() >= 8 && std::memcmp(bytes->data(), "xclbin2", 8) == 0 && !opts->json) {
      Expected<xdna::XclbinSummary> xclbin = xdna::read_xclbin(bytes->data(), bytes->size());
      if (!xclbin) return report_error(opts->archive + ": " + xclbin.error().message(), kExitInvalid);
      std::cout << xdna::render_xclbin_summary(*xclbin);
      return kExitOk;
    }
    Expected<std::string> json = inspect_json(*bytes);
    if (!json) return report_error(opts->archive + ": " + json.error().message(), kExitInvalid);
    if (opts->json) {
      std::cout << *json;
      return kExitOk;
    }
    print_text(nlohmann::json::parse(*json));
    return kExitOk;
  };
}

}  // namespace tsr::cli
