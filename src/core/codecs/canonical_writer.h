// The canonical binary encoding of a KernelSpec: tagged, length-prefixed,
// little-endian fields in a fixed order chosen by each codec. Numbers are
// encoded by value (IEEE-754 bits), never by their YAML spelling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr {

class CanonicalWriter {
 public:
  void field(const std::string& name);        // begins a named field
  void u64(uint64_t v);
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f64(double v);
  void str(const std::string& s);
  void dim(const Dim& d);
  // The kind; for tolerance_bounded then atol and rtol (an absent one is 0).
  void accuracy(const Accuracy& a);
  void list_size(size_t n) { u64(n); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  void tag(uint8_t t) { bytes_.push_back(t); }
  void raw_u64(uint64_t v);
  std::vector<uint8_t> bytes_;
};

}  // namespace tsr
