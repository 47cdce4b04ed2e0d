#include "cache/compile_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "cache/build_id.h"
#include "support/file_io.h"
#include "support/sha256.h"

extern char** environ;

namespace tsr {

namespace fs = std::filesystem;

namespace {

// Entry layout (docs/cache.md): the line "tesserac-cache 1 KIND\n", the
// payload, and the SHA-256 of both (32 raw bytes). Artifacts' payload is a
// decimal length line, that many bytes of JSON (every field but the bytes),
// then the bytes; verdicts' is JSON.
constexpr const char* kMagic = "tesserac-cache 1 ";
constexpr uint64_t kMaxEntryBytes = uint64_t{1} << 30;
// A temporary older than this belongs to a process that died mid-write.
constexpr auto kStaleTemporary = std::chrono::minutes(10);

std::string header_line(const std::string& kind) { return std::string(kMagic) + kind + "\n"; }

nlohmann::json report_to_json(const OracleReport& r) {
  nlohmann::json j;
  j["verdict"] = static_cast<int>(r.verdict);
  j["reason"] = r.reason;
  j["max_abs_err"] = r.max_abs_err;
  j["max_rel_err"] = r.max_rel_err;
  j["budget_use"] = r.budget_use;
  j["absolute_term_decided"] = r.absolute_term_decided;
  j["atol"] = r.budget.atol;
  j["rtol"] = r.budget.rtol;
  j["seed"] = r.seed;
  j["trials"] = r.trials;
  j["determinism_checked"] = r.determinism_checked;
  j["median_latency_ns"] = r.median_latency_ns;
  j["timed_launches"] = r.timed_launches;
  return j;
}

OracleReport report_from_json(const nlohmann::json& j) {
  OracleReport r;
  const int v = j.at("verdict").get<int>();
  if (v != static_cast<int>(Verdict::pass) && v != static_cast<int>(Verdict::pass_emulated))
    throw std::runtime_error("only passes are cached");
  r.verdict = static_cast<Verdict>(v);
  r.reason = j.at("reason").get<std::string>();
  r.max_abs_err = j.at("max_abs_err").get<double>();
  r.max_rel_err = j.at("max_rel_err").get<double>();
  r.budget_use = j.at("budget_use").get<double>();
  r.absolute_term_decided = j.at("absolute_term_decided").get<bool>();
  r.budget.atol = j.at("atol").get<double>();
  r.budget.rtol = j.at("rtol").get<double>();
  r.seed = j.at("seed").get<uint64_t>();
  r.trials = j.at("trials").get<int>();
  r.determinism_checked = j.at("determinism_checked").get<bool>();
  r.median_latency_ns = j.at("median_latency_ns").get<double>();
  r.timed_launches = j.at("timed_launches").get<int>();
  return r;
}

}  // namespace

std::string default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') return std::string(xdg) + "/tesserac";
  if (const char* home = std::getenv("HOME"); home && home[0] == '/') return std::string(home) + "/.cache/tesserac";
  return "";
}

std::optional<uint64_t> parse_cache_size(const std::string& text) {
  if (text.empty()) return std::nullopt;
  uint64_t unit = 1;
  std::string digits = text;
  switch (text.back()) {
    case 'K': unit = uint64_t{1} << 10; break;
    case 'M': unit = uint64_t{1} << 20; break;
    case 'G': unit = uint64_t{1} << 30; break;
    default: break;
  }
  if (unit != 1) digits.pop_back();
  if (digits.empty() || digits.size() > 12 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return std::nullopt;
  const uint64_t value = std::stoull(digits) * unit;
  if (value == 0) return std::nullopt;
  return value;
}

Expected<CompileCache> CompileCache::open(const std::string& dir, uint64_t max_bytes) {
  std::error_code ec;
  fs::create_directories(dir + "/v1", ec);
  if (ec) return toolchain_error("cannot create the compile cache '" + dir + "': " + ec.message());
  return CompileCache(dir, max_bytes);
}

std::string CompileCache::entry_path(const std::string& key, const std::string& kind) const {
  return dir_ + "/v1/" + key.substr(0, 2) + "/" + key.substr(2) + "." + kind;
}

std::optional<std::string> CompileCache::read_entry(const std::string& key, const std::string& kind) {
  const std::string path = entry_path(key, kind);
  Expected<std::string> bytes = read_input_file(path, kMaxEntryBytes, "cache entry");
  if (!bytes) {
    ++stats_.misses;
    return std::nullopt;
  }
  const std::string head = header_line(kind);
  const std::string& b = *bytes;
  const bool framed = b.size() >= head.size() + 32 && b.compare(0, head.size(), head) == 0;
  if (!framed || sha256(b.data(), b.size() - 32) != std::vector<uint8_t>(b.end() - 32, b.end())) {
    ++stats_.corrupt;
    ++stats_.misses;
    std::remove(path.c_str());
    return std::nullopt;
  }
  // A hit is a use: the entry's time orders eviction (least recently used first).
  utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  ++stats_.hits;
  return b.substr(head.size(), b.size() - head.size() - 32);
}

void CompileCache::write_entry(const std::string& key, const std::string& kind, const std::string& payload) {
  std::error_code ec;
  const std::string path = entry_path(key, kind);
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::string bytes = header_line(kind) + payload;
  const std::vector<uint8_t> digest = sha256(bytes.data(), bytes.size());
  bytes.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  // A cache that cannot be written is no cache: the build goes on.
  if (!ec && write_file_atomic(path, bytes).ok()) ++stats_.stored;
}

// The checksum held but the content is not ours (another version's layout):
// the read counted as a hit becomes a miss of a corrupt entry.
void CompileCache::drop_unreadable(const std::string& key, const std::string& kind) {
  --stats_.hits;
  ++stats_.misses;
  ++stats_.corrupt;
  std::remove(entry_path(key, kind).c_str());
}

std::optional<Artifact> CompileCache::find_artifact(const std::string& key) {
  std::optional<std::string> payload = read_entry(key, "artifact");
  if (!payload) return std::nullopt;
  try {
    const size_t eol = payload->find('\n');
    const size_t json_size = std::stoull(payload->substr(0, eol));
    if (eol == std::string::npos || json_size > payload->size() - eol - 1) throw std::runtime_error("short");
    const nlohmann::json j = nlohmann::json::parse(payload->substr(eol + 1, json_size));
    Artifact a;
    std::optional<TargetName> target = parse_target_name(j.at("target").get<std::string>());
    if (!target) throw std::runtime_error("target");
    a.target = *target;
    a.kind = j.at("kind").get<std::string>();
    a.entry = j.at("entry").get<std::string>();
    a.key = j.at("key").get<std::string>();
    a.toolchain = j.at("toolchain").get<std::string>();
    a.metadata = j.at("metadata").get<std::map<std::string, std::string>>();
    const auto* data = reinterpret_cast<const uint8_t*>(payload->data());
    a.bytes.assign(data + eol + 1 + json_size, data + payload->size());
    return a;
  } catch (const std::exception&) {
    drop_unreadable(key, "artifact");
    return std::nullopt;
  }
}

void CompileCache::store_artifact(const std::string& key, const Artifact& a) {
  nlohmann::json j;
  j["target"] = a.target.str();
  j["kind"] = a.kind;
  j["entry"] = a.entry;
  j["key"] = a.key;
  j["toolchain"] = a.toolchain;
  j["metadata"] = a.metadata;
  const std::string text = j.dump();
  std::string payload = std::to_string(text.size()) + "\n" + text;
  payload.append(reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size());
  write_entry(key, "artifact", payload);
}

std::optional<CachedVerdict> CompileCache::find_verdict(const std::string& key) {
  std::optional<std::string> payload = read_entry(key, "verdict");
  if (!payload) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(*payload);
    return CachedVerdict{report_from_json(j.at("report")), j.at("route").get<std::string>()};
  } catch (const std::exception&) {
    drop_unreadable(key, "verdict");
    return std::nullopt;
  }
}

void CompileCache::store_verdict(const std::string& key, const CachedVerdict& v) {
  if (v.report.verdict != Verdict::pass && v.report.verdict != Verdict::pass_emulated) return;
  nlohmann::json j;
  j["report"] = report_to_json(v.report);
  j["route"] = v.route;
  write_entry(key, "verdict", j.dump());
}

void CompileCache::evict() {
  struct Entry {
    fs::path path;
    uint64_t size;
    fs::file_time_type time;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (auto it = fs::recursive_directory_iterator(dir_ + "/v1", ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code e;
    if (!it->is_regular_file(e)) continue;
    Entry entry{it->path(), it->file_size(e), it->last_write_time(e)};
    if (e) continue;   // removed meanwhile by another process
    const std::string name = entry.path.filename().string();
    if (name[0] == '.' && name.find(".tmp-") != std::string::npos) {   // write_file_atomic's temporaries
      if (now - entry.time > kStaleTemporary && fs::remove(entry.path, e)) ++stats_.evicted;
      continue;
    }
    total += entry.size;
    entries.push_back(std::move(entry));
  }
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.path < b.path;
  });
  const uint64_t goal = max_bytes_ / 4 * 3;
  for (const Entry& e : entries) {
    if (total <= goal) break;
    std::error_code rm;
    if (fs::remove(e.path, rm)) ++stats_.evicted;
    total -= e.size;
  }
}

// --- keys ----------------------------------------------------------------------

const std::string& tesserac_build_fingerprint() {
  static const std::string fingerprint = std::string(TESSERAC_VERSION) + "+" + program_build_id();
  return fingerprint;
}

std::string artifact_cache_key(const std::string& identity, const TargetName& target, const ToolchainInfo& toolchain,
                               const std::string& source_sha256) {
  return sha256_hex("tesserac-cache-artifact-v1\n" + tesserac_build_fingerprint() + "\n" + target.str() + "\n" +
                    toolchain.path + "\n" + toolchain.version + "\n" + identity + "\n" + source_sha256);
}

std::string verdict_cache_key(const std::string& artifact_key, const std::string& artifact_sha256,
                              const DeviceInfo& device, uint64_t seed, bool emulated) {
  std::vector<std::string> env;
  // Variables that steer only where output goes, never a result, stay out.
  auto steers_results = [](const char* e) {
    for (const char* quiet : {"TESSERAC_VERBOSE=", "TESSERAC_CACHE_DIR=", "TESSERAC_NO_CACHE="})
      if (std::strncmp(e, quiet, std::strlen(quiet)) == 0) return false;
    return std::strncmp(e, "TSR_", 4) == 0 || std::strncmp(e, "TESSERAC_", 9) == 0;
  };
  for (char** e = environ; e && *e; ++e)
    if (steers_results(*e)) env.emplace_back(*e);
  std::sort(env.begin(), env.end());
  std::string text = "tesserac-cache-verdict-v1\n" + tesserac_build_fingerprint() + "\n" + artifact_key + "\n" +
                     artifact_sha256 + "\n" + device.description + "\n" + device.name + "\n" + device.vendor + "\n" +
                     device.capability + "\n" + device.driver + "\n" + std::to_string(device.ordinal) + "\n" +
                     (emulated ? "emulated" : "hardware") + "\n" + std::to_string(seed) + "\n";
  for (const std::string& e : env) text += e + "\n";
  return sha256_hex(text);
}

}  // namespace tsr
