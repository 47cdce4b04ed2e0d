// Evaluates launch geometry expressions (docs/targets-cuda.md; grid limits from
// the CUDA C++ Programming Guide: x < 2^31, y and z < 2^16).
#include "targets/cuda/cuda_launch_geometry.h"

#include <cctype>
#include <vector>

namespace tsr::cuda {

namespace {

std::optional<int64_t> atom(const std::string& s, const std::map<std::string, int64_t>& scalars) {
  if (s.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(s[0]))) {
    int64_t v = 0;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || v > (INT64_MAX - 9) / 10) return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  }
  auto it = scalars.find(s);
  if (it == scalars.end() || it->second < 0) return std::nullopt;
  return it->second;
}

std::optional<int64_t> component(const std::string& s, const std::map<std::string, int64_t>& scalars) {
  if (s.rfind("cdiv(", 0) == 0 && s.back() == ')') {
    const std::string inner = s.substr(5, s.size() - 6);
    const size_t comma = inner.find(',');
    if (comma == std::string::npos) return std::nullopt;
    const std::optional<int64_t> a = atom(inner.substr(0, comma), scalars);
    const std::optional<int64_t> b = atom(inner.substr(comma + 1), scalars);
    if (!a || !b || *b <= 0) return std::nullopt;
    return *a / *b + (*a % *b != 0 ? 1 : 0);
  }
  return atom(s, scalars);
}

}  // namespace

std::optional<std::array<uint32_t, 3>> evaluate_geometry(const std::string& text,
                                                         const std::map<std::string, int64_t>& scalars) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == ' ') continue;
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  if (parts.size() != 3) return std::nullopt;
  std::array<uint32_t, 3> out{};
  const int64_t limits[3] = {2147483647, 65535, 65535};
  for (int i = 0; i < 3; ++i) {
    const std::optional<int64_t> v = component(parts[i], scalars);
    if (!v || *v > limits[i]) return std::nullopt;
    out[i] = static_cast<uint32_t>(*v);
  }
  return out;
}

}  // namespace tsr::cuda
