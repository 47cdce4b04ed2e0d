#include "codecs/canonical_writer.h"

#include <cstring>

namespace tsr {

namespace {
enum Tag : uint8_t { kField = 1, kU64 = 2, kF64 = 3, kStr = 4, kStaticDim = 5, kRuntimeDim = 6 };
}

void CanonicalWriter::raw_u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void CanonicalWriter::field(const std::string& name) {
  tag(kField);
  raw_u64(name.size());
  bytes_.insert(bytes_.end(), name.begin(), name.end());
}

void CanonicalWriter::u64(uint64_t v) {
  tag(kU64);
  raw_u64(v);
}

void CanonicalWriter::f64(double v) {
  if (v == 0.0) v = 0.0;   // -0.0 and 0.0 are the same tolerance
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  tag(kF64);
  raw_u64(bits);
}

void CanonicalWriter::str(const std::string& s) {
  tag(kStr);
  raw_u64(s.size());
  bytes_.insert(bytes_.end(), s.begin(), s.end());
}

void CanonicalWriter::dim(const Dim& d) {
  if (d.is_static()) {
    tag(kStaticDim);
    raw_u64(static_cast<uint64_t>(d.value));
  } else {
    tag(kRuntimeDim);
    raw_u64(d.name.size());
    bytes_.insert(bytes_.end(), d.name.begin(), d.name.end());
  }
}

void CanonicalWriter::accuracy(const Accuracy& a) {
  if (a.kind == Accuracy::Kind::reference_exact) {
    str("reference_exact");
    return;
  }
  str("tolerance_bounded");
  f64(a.atol.value_or(0.0));
  f64(a.rtol.value_or(0.0));
}

}  // namespace tsr
