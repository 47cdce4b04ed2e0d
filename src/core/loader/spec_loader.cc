#include "loader/spec_loader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>

#include "codecs/candidate_codec.h"
#include "codecs/codec.h"
#include "document/map_reader.h"
#include "document/yaml_document.h"
#include "support/file_io.h"
#include "spec/target_catalogue.h"

namespace tsr {
namespace {

namespace fs = std::filesystem;

void decode_accuracy(const MapReader& m, KernelSpec& spec) {
  const DocNode* node = m.map_value("accuracy", true);
  if (!node) return;
  MapReader a(*node, m.file(), "'accuracy'", m.diag());
  a.check_keys({"kind", "atol", "rtol"});
  std::optional<std::string> kind = a.required_enum("kind", {"reference_exact", "tolerance_bounded"}, "accuracy kind");
  if (!kind) return;
  if (*kind == "reference_exact") {
    spec.accuracy.kind = Accuracy::Kind::reference_exact;
    a.reject_if_present("atol", "does not apply to reference_exact (it uses the oracle's default budget for the dtype)");
    a.reject_if_present("rtol", "does not apply to reference_exact (it uses the oracle's default budget for the dtype)");
    return;
  }
  spec.accuracy.kind = Accuracy::Kind::tolerance_bounded;
  spec.accuracy.atol = a.number("atol", true);
  spec.accuracy.rtol = a.number("rtol", true);
  for (const char* key : {"atol", "rtol"}) {
    std::optional<double> v = std::string(key) == "atol" ? spec.accuracy.atol : spec.accuracy.rtol;
    if (v && *v < 0.0) a.error(a.get(key), std::string("'") + key + "' must not be negative");
  }
}

void decode_targets(const MapReader& m, KernelSpec& spec, const TargetRefusals& refusals) {
  const DocNode* list = m.list_value("targets", false);
  if (!list) return;
  for (const DocNode& item : list->items) {
    std::optional<std::string> text = m.scalar(item, "targets");
    if (!text) continue;
    std::optional<TargetName> name = parse_target_name(*text);
    if (!name || !is_known_target(*name)) {
      m.error(item, unknown_target_message(*text, refusals));
      continue;
    }
    if (std::find(spec.targets.begin(), spec.targets.end(), *text) != spec.targets.end()) {
      m.error(item, "target '" + *text + "' is listed twice");
      continue;
    }
    spec.targets.push_back(*text);
  }
}

// Target support is checked after the family body decoded: it needs the body.
void check_target_support(const MapReader& m, const KernelSpec& spec, const TargetRefusals& refusals) {
  const DocNode* list = m.get("targets");
  if (!list || !list->is_list()) return;
  for (const DocNode& item : list->items) {
    if (!item.is_scalar()) continue;
    std::optional<TargetName> name = parse_target_name(item.text);
    if (!name || !find_target_kind(name->kind)) continue;
    std::string why = refusals.refusal(*name, spec);
    if (!why.empty()) m.error(item, "target '" + item.text + "' cannot build this kernel: " + why);
  }
}

std::optional<KernelSpec> decode_root(const DocNode& root, const std::string& file, DiagnosticEngine& diag,
                                      const TargetRefusals& refusals) {
  if (!root.is_map()) {
    diag.error(root.location.line ? root.location : SourceLocation{file, 1, 1},
               std::string("expected a map at the top of the spec, got ") + describe_node(root));
    return std::nullopt;
  }
  const size_t errors_before = diag.error_count();
  // The family names the map in every later message ("unknown key 'tile' in matmul spec").
  MapReader top(root, file, "spec", diag);
  const FamilyCodec* codec = nullptr;
  KernelSpec spec;
  if (std::optional<std::string> fam = top.required_enum("family", family_names())) {
    const std::optional<Family> family = family_from_name(*fam);
    if (family) spec.family = *family;
    codec = family ? find_codec(*family) : nullptr;
    if (!codec) top.error(top.get("family"), "family '" + *fam + "' has no codec in this tesserac");
  }
  MapReader m(root, file, codec ? std::string(family_name(spec.family)) + " spec" : "spec", diag);
  spec.location = m.location();

  if (std::optional<int64_t> version = m.required_int("tesserac")) {
    if (*version != 1) m.error(m.get("tesserac"), unsupported_version_message("spec", *version, 1));
  }
  decode_kernel_name(m, spec);
  if (std::optional<std::string> dt = m.required_enum("dtype", {"f32", "f16", "bf16"})) spec.dtype = *dtype_from_name(*dt);
  decode_accuracy(m, spec);
  if (auto det = m.required_enum("determinism", {"deterministic", "nondeterministic_allowed"}))
    spec.determinism = *det == "deterministic" ? Determinism::deterministic : Determinism::nondeterministic_allowed;
  decode_targets(m, spec, refusals);

  std::vector<std::string> allowed = common_keys();
  if (codec) {
    for (const std::string& k : codec->keys()) allowed.push_back(k);
    m.check_keys(allowed, codec->rejected_keys());
    const bool body_ok = codec->decode(m, spec);
    decode_candidates(m, spec, body_ok, refusals);
    if (body_ok && diag.error_count() == errors_before) check_target_support(m, spec, refusals);
  }
  if (diag.error_count() != errors_before) return std::nullopt;
  return spec;
}


}  // namespace

std::optional<KernelSpec> decode_spec(const std::string& text, const std::string& file, DiagnosticEngine& diag,
                                      const TargetRefusals& refusals) {
  // Each file's errors are shown (in source order, up to the error limit)
  // as soon as it is decoded, not gathered for the whole run.
  struct FlushAtEnd { DiagnosticEngine& diag; ~FlushAtEnd() { diag.flush(); } } flush_at_end{diag};
  diag.add_source(file, text);
  if (text.find('\0') != std::string::npos) {
    diag.error(SourceLocation{file, 1, 1}, "spec file contains a NUL byte (expected YAML text)");
    return std::nullopt;
  }
  std::optional<DocNode> root = parse_yaml_document(text, file, diag);
  if (!root) return std::nullopt;
  std::optional<KernelSpec> spec;
  try {
    spec = decode_root(*root, file, diag, refusals);
  } catch (const std::exception& e) {
    diag.error(SourceLocation{file, 1, 1}, std::string("invalid spec: ") + e.what());
  }
  return spec;
}

namespace {
// The *.yaml / *.yml entries of one directory, sorted. Whether each is a
// readable regular file is for the reader to say, so a dangling link, a
// symlink loop or a FIFO named x.yaml is an error, not silently skipped.
std::vector<std::string> specs_in_directory(const std::string& dir, DiagnosticEngine& diag) {
  std::vector<std::string> found;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    if (ext == ".yaml" || ext == ".yml") found.push_back(it->path().string());
  }
  if (ec) {
    diag.error(SourceLocation{dir, 0, 0}, "cannot read directory: " + system_error_text(ec));
    return {};
  }
  std::sort(found.begin(), found.end());
  if (found.empty()) diag.error(SourceLocation{dir, 0, 0}, "directory contains no *.yaml or *.yml spec");
  return found;
}
}  // namespace

std::vector<std::string> expand_spec_paths(const std::vector<std::string>& paths, DiagnosticEngine& diag) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    struct stat st;
    if (stat(p.c_str(), &st) != 0) {
      diag.error(SourceLocation{p, 0, 0}, errno_text(errno));
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      std::vector<std::string> found = specs_in_directory(p, diag);
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);   // the reader refuses what is not a regular file
    }
    if (files.size() > kMaxSpecFiles) {
      diag.error(SourceLocation{p, 0, 0}, "more than " + std::to_string(kMaxSpecFiles) +
                                              " spec files in one run (the limit; split the run)");
      return {};
    }
  }
  return files;
}

std::vector<KernelSpec> load_specs(const std::vector<std::string>& paths, DiagnosticEngine& diag,
                                   const TargetRefusals& refusals) {
  std::vector<KernelSpec> specs;
  std::map<std::string, SourceLocation> first_definition;
  const std::vector<std::string> files = expand_spec_paths(paths, diag);
  diag.flush();
  for (const std::string& file : files) {
    Expected<std::string> text = read_input_file(file, kMaxSpecFileBytes, "spec file");
    if (!text) {
      diag.error(SourceLocation{file, 0, 0}, text.error().message());
      diag.flush();
      continue;
    }
    std::optional<KernelSpec> spec = decode_spec(*text, file, diag, refusals);
    if (!spec) continue;
    spec->source_text = *text;
    auto [it, inserted] = first_definition.emplace(spec->name, spec->location);
    if (!inserted) {
      const SourceLocation& first = it->second;
      diag.error(spec->location, "duplicate kernel name '" + spec->name + "' (first defined at " + first.file + ":" +
                                     std::to_string(first.line) + ":" + std::to_string(first.column) + ")");
      diag.flush();
      continue;
    }
    specs.push_back(std::move(*spec));
  }
  return specs;
}

}  // namespace tsr
