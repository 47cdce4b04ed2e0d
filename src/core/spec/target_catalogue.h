// Target names as the spec layer sees them, without knowing a backend: the
// "kind:arch" name, the data-only table of kinds and their archs, and the one
// question only a backend can answer (why it refuses an arch or a spec),
// asked through TargetRefusals, which the backends' registry implements.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr {

// "kind:arch", e.g. x86:v3, cuda:sm_90.
struct TargetName {
  std::string kind;
  std::string arch;
  std::string str() const { return kind + ":" + arch; }
  bool operator==(const TargetName&) const = default;
  bool operator<(const TargetName& o) const { return str() < o.str(); }
};
std::optional<TargetName> parse_target_name(const std::string& text);

// One kind and the archs a spec may name for it, in registration order.
struct TargetKind {
  std::string kind;
  std::vector<std::string> archs;
};

// Every kind this build knows (x86, cuda, hip, xdna), in a fixed order; each
// registered Target's archs() is its row (TargetRegistry.ArchsAreTheCatalogue).
const std::vector<TargetKind>& target_catalogue();
const TargetKind* find_target_kind(const std::string& kind);
bool is_known_target(const TargetName& name);
std::vector<std::string> target_kind_names();
// Every "kind:arch" name the catalogue holds, in its order.
std::vector<TargetName> all_target_names();

// Why a target refuses to build `spec` for `name` ("" when it builds it).
// An unknown arch is refused whatever the spec (KernelSpec{} will do).
class TargetRefusals {
 public:
  virtual ~TargetRefusals() = default;
  virtual std::string refusal(const TargetName& name, const KernelSpec& spec) const = 0;
};

// "unknown target 'hip:gfx942' (known: ...)", followed, where the kind is
// known, by ": " and that target's reason for refusing the arch (which
// toolchain would build it, e.g. gfx942's LLVM >= 17).
std::string unknown_target_message(const std::string& text, const TargetRefusals& refusals);

}  // namespace tsr
