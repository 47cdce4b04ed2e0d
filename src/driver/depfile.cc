#include "driver/depfile.h"

namespace tsr {

namespace {
std::string escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#' || c == '\\') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}
}  // namespace

std::string render_depfile(const std::string& output, const std::vector<std::string>& inputs) {
  std::string text = escape(output) + ":";
  for (const std::string& in : inputs) text += " \\\n  " + escape(in);
  return text + "\n";
}

}  // namespace tsr
