#include "receipts/receipt_rules.h"

#include <cctype>

namespace tsr {

bool is_receipt_timestamp(const std::string& s) {
  static const char kShape[] = "dddd-dd-ddTdd:dd:ddZ";
  if (s.size() != sizeof kShape - 1) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (kShape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(s[i])) : s[i] != kShape[i]) return false;
  return true;
}

}  // namespace tsr
