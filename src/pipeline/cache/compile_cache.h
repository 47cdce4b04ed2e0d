// The content-addressed compile cache (docs/cache.md): compiled artifacts
// and the oracle reports of passes, each under the SHA-256 of everything it
// depends on. Safe for many processes at once: an entry is written to a
// temporary file and renamed into place, so a reader sees a whole entry or
// none; every entry carries a SHA-256 of its bytes, and one that does not
// check (truncated, flipped, foreign) is a miss, removed and rewritten.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "oracle/oracle.h"
#include "support/error.h"
#include "target/target.h"

namespace tsr {

inline constexpr uint64_t kDefaultCacheMaxBytes = uint64_t{2} << 30;   // 2 GiB

// Where the cache lives when neither --cache-dir nor TESSERAC_CACHE_DIR
// says: $XDG_CACHE_HOME/tesserac, else $HOME/.cache/tesserac; empty when
// neither variable is set (no cache).
std::string default_cache_dir();

// "512M", "2G", "1048576" -> bytes; nullopt for anything else or zero.
std::optional<uint64_t> parse_cache_size(const std::string& text);

struct CacheStats {
  uint64_t hits = 0, misses = 0, stored = 0, corrupt = 0, evicted = 0;
};

// A passing oracle run as the cache keeps it.
struct CachedVerdict {
  OracleReport report;
  std::string route;
};

class CompileCache {
 public:
  // Opens (creating) `dir`; entries beyond `max_bytes` in all are evicted,
  // least recently used first, by evict().
  static Expected<CompileCache> open(const std::string& dir, uint64_t max_bytes);

  std::optional<Artifact> find_artifact(const std::string& key);
  void store_artifact(const std::string& key, const Artifact& artifact);
  std::optional<CachedVerdict> find_verdict(const std::string& key);
  void store_verdict(const std::string& key, const CachedVerdict& verdict);
  // The arbiter's tuning records (arbiter/tuning_cache.h): opaque text here.
  std::optional<std::string> find_tuning(const std::string& key) { return read_entry(key, "tune"); }
  void store_tuning(const std::string& key, const std::string& text) { write_entry(key, "tune", text); }
  // A tuning entry the arbiter could not parse: removed, so it is rewritten.
  void drop_tuning(const std::string& key) { drop_unreadable(key, "tune"); }

  // Removes the least recently used entries (and stale temporaries) while
  // the cache holds more than max_bytes, down to 3/4 of it.
  void evict();

  const std::string& dir() const { return dir_; }
  const CacheStats& stats() const { return stats_; }

 private:
  CompileCache(std::string dir, uint64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {}
  std::optional<std::string> read_entry(const std::string& key, const std::string& kind);
  void write_entry(const std::string& key, const std::string& kind, const std::string& payload);
  std::string entry_path(const std::string& key, const std::string& kind) const;
  void drop_unreadable(const std::string& key, const std::string& kind);

  std::string dir_;
  uint64_t max_bytes_;
  CacheStats stats_;
};

// --- keys --------------------------------------------------------------------

// A fingerprint of this tesserac program: its GNU build ID (the linker's
// hash of the code), so a rebuilt compiler never reuses another's entries.
const std::string& tesserac_build_fingerprint();

// What the compiled bytes depend on: the program, the target, its
// toolchain (path and exact version), the kernel identity and the emitted
// source, by its SHA-256 (the compile flags are a function of the program
// and the target).
std::string artifact_cache_key(const std::string& identity, const TargetName& target, const ToolchainInfo& toolchain,
                               const std::string& source_sha256);

// What a verdict depends on besides the artifact: the device as the target
// describes it, the oracle's seed, whether it ran emulated, and every TSR_*
// and TESSERAC_* environment variable (they steer the runtime and the
// emulator: TSR_NUM_THREADS, TSR_EMU_TIMEOUT_S, ...).
std::string verdict_cache_key(const std::string& artifact_key, const std::string& artifact_sha256,
                              const DeviceInfo& device, uint64_t seed, bool emulated);

}  // namespace tsr
