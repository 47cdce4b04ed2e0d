// Attention text shared by the C-family emitters (x86 C, CUDA/HIP C++): the
// element offset of a tensor row and the mask's description for comments.
#pragma once

#include <string>

#include "spec/kernel_spec.h"

namespace tsr {

// The C expression of the element offset of (b, s, h, 0) in a [B, S, H, X]
// (bshd) or [B, H, S, X] (bhsd) row-major tensor; arguments are C expressions.
std::string attention_row_offset(AttentionLayout layout, const std::string& b, const std::string& s,
                                 const std::string& len, const std::string& h, const std::string& heads,
                                 const std::string& x);

// "causal, window left 63 right 0" / "no causal mask".
std::string attention_mask_description(const AttentionSpec& a);

}  // namespace tsr
