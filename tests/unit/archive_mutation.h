// Byte-level edits of a serialized archive for the validator tests. The
// index is split into its sections, edited, and written back with every
// checksum recomputed (resealed), so an edit gets past the checksums to the
// rule behind them (docs/archive-format.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "archive/archive_writer.h"
#include "archive_test_support.h"
#include "support/sha256.h"
#include "tesserart.h"

namespace tsr::testing {

// sample_contents() serialized once.
inline const std::vector<uint8_t>& sample_bytes() {
  static const std::vector<uint8_t> bytes = *serialize_archive(sample_contents());
  return bytes;
}

inline uint64_t le(const std::vector<uint8_t>& b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | b[at + i];
  return v;
}
inline void put_le(uint8_t* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void put_le(std::vector<uint8_t>& b, size_t at, uint64_t v, int n) { put_le(&b[at], v, n); }

// Rewrites the index CRC-32C and SHA-256 and the header SHA-256.
inline void reseal(std::vector<uint8_t>& b) {
  const size_t index_off = le(b, 24, 8), index_size = le(b, 32, 8);
  put_le(b, 52, tsr_crc32c(&b[index_off], index_size), 4);
  std::vector<uint8_t> h = sha256(&b[index_off], index_size);
  std::copy(h.begin(), h.end(), b.begin() + 64);
  std::fill(b.begin() + 96, b.begin() + 128, 0);
  h = sha256(b.data(), le(b, 12, 4));
  std::copy(h.begin(), h.end(), b.begin() + 96);
}

// Payload [begin, end) of every index section, in file order.
inline std::vector<std::pair<std::string, std::pair<size_t, size_t>>> section_ranges(const std::vector<uint8_t>& b) {
  std::vector<std::pair<std::string, std::pair<size_t, size_t>>> out;
  size_t pos = le(b, 24, 8), end = pos + le(b, 32, 8);
  while (pos < end) {
    size_t size = le(b, pos + 8, 8);
    out.push_back({std::string(reinterpret_cast<const char*>(&b[pos]), 4), {pos + 16, pos + 16 + size}});
    pos = (pos + 16 + size + 7) / 8 * 8;
  }
  return out;
}

class ArchiveEditor {
 public:
  explicit ArchiveEditor(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {
    for (const auto& [tag, range] : section_ranges(bytes_))
      sections_.push_back({tag, std::vector<uint8_t>(bytes_.begin() + range.first, bytes_.begin() + range.second)});
  }

  std::vector<uint8_t>& section(const std::string& tag) {
    for (auto& [t, payload] : sections_)
      if (t == tag) return payload;
    sections_.push_back({tag, {}});
    return sections_.back().second;
  }
  // Drops a section (e.g. RCPT, to make a 2.0 index).
  void remove_section(const std::string& tag) {
    for (size_t i = 0; i < sections_.size(); ++i)
      if (sections_[i].first == tag) sections_.erase(sections_.begin() + long(i));
  }
  // Appends a section (a tag may repeat).
  void add_section(const std::string& tag, std::vector<uint8_t> payload) { sections_.push_back({tag, std::move(payload)}); }

  // Record i of a table section.
  uint8_t* record(const std::string& tag, size_t i) {
    std::vector<uint8_t>& p = section(tag);
    return &p[8 + i * le(p, 0, 4)];
  }
  // Adds `text` (any bytes) to STRS and points the string reference at
  // record(tag, i) + field there.
  void set_string(const std::string& tag, size_t i, size_t field, const std::string& text) {
    std::vector<uint8_t>& strs = section("STRS");
    const size_t offset = strs.size();
    strs.insert(strs.end(), text.begin(), text.end());
    strs.push_back(0);
    uint8_t* ref = record(tag, i) + field;
    put_le(ref, offset, 4);
    put_le(ref + 4, text.size(), 4);
  }
  // Copies the string reference of record(tag, from) + field into record(tag, to).
  void copy_ref(const std::string& tag, size_t from, size_t to, size_t field) {
    std::copy_n(record(tag, from) + field, 8, record(tag, to) + field);
  }
  // The whole file, for blob edits (offsets as the archive records them).
  std::vector<uint8_t>& file() { return bytes_; }

  // The archive with the index rebuilt from the sections and resealed.
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b = bytes_;
    const size_t index_off = le(b, 24, 8), blob_offset = le(b, 40, 8);
    std::vector<uint8_t> index;
    for (const auto& [tag, payload] : sections_) {
      index.insert(index.end(), tag.begin(), tag.end());
      index.resize(index.size() + 12, 0);
      put_le(&index[index.size() - 8], payload.size(), 8);
      index.insert(index.end(), payload.begin(), payload.end());
      index.resize((index.size() + 7) / 8 * 8, 0);
    }
    if (index_off + index.size() > blob_offset) return {};   // no room: the test fails visibly
    std::fill(b.begin() + index_off, b.begin() + blob_offset, 0);
    std::copy(index.begin(), index.end(), b.begin() + index_off);
    put_le(b, 32, index.size(), 8);
    reseal(b);
    return b;
  }

 private:
  std::vector<uint8_t> bytes_;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> sections_;
};

}  // namespace tsr::testing
