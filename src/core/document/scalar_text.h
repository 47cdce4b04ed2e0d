// Strict parsers for a scalar's text: the whole text must be consumed, and
// only plain decimal spellings count (no hex, inf or nan), so a value means
// the same in a spec, a receipt and the canonical encodings built from them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tsr {

std::optional<int64_t> parse_int(const std::string& text);
std::optional<double> parse_finite_double(const std::string& text);

// The shortest decimal that reads back as exactly `v` ("0.1", "1e+300",
// "5"); "nan", "inf" and "-inf" for the non-finite values.
std::string shortest_double_text(double v);
// Reads shortest_double_text's output back to the same double; nullopt for
// the non-finite spellings and anything else.
std::optional<double> parse_shortest_double(const std::string& text);

}  // namespace tsr
