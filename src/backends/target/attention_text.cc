#include "target/attention_text.h"

namespace tsr {

std::string attention_row_offset(AttentionLayout layout, const std::string& b, const std::string& s,
                                 const std::string& len, const std::string& h, const std::string& heads,
                                 const std::string& x) {
  if (layout == AttentionLayout::bshd) return "((" + b + " * " + len + " + " + s + ") * " + heads + " + " + h + ") * " + x;
  return "((" + b + " * " + heads + " + " + h + ") * " + len + " + " + s + ") * " + x;
}

std::string attention_mask_description(const AttentionSpec& a) {
  std::string s = a.causal ? "causal" : "no causal mask";
  if (a.window) s += ", window left " + std::to_string(a.window->left) + " right " + std::to_string(a.window->right);
  return s;
}

}  // namespace tsr
