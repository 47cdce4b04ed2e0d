// "did you mean" for a mistyped name of a closed set, the way clang and cargo
// suggest: by optimal-string-alignment distance (Levenshtein plus adjacent
// transposition, so 'biuld' is one edit from 'build'), or by a missing
// '_suffix' ('gelu' names gelu_tanh and gelu_erf, not relu).
#pragma once

#include <string>
#include <vector>

namespace tsr {

// Edits (insert, delete, substitute, swap two adjacent characters) that turn
// `a` into `b`, no substring edited twice.
size_t edit_distance(const std::string& a, const std::string& b);

// What `typed` probably meant, in `candidates`' order: the one that differs
// only in letter case; else every candidate that is `typed` + "_..."; else
// the first closest one, when it is at most 2 edits away and at most a third
// of `typed`'s length (so 'f64' suggests no 'f32' and 'C' no 'N'); else none.
std::vector<std::string> closest_names(const std::string& typed, const std::vector<std::string>& candidates);

// " (did you mean 'build'?)", " (did you mean 'gelu_tanh' or 'gelu_erf'?)"
// or "", to append to an "unknown ..." message.
std::string did_you_mean(const std::string& typed, const std::vector<std::string>& candidates);

}  // namespace tsr
