#pragma once

#include <memory>
#include <string>
#include <vector>

#include "target/target.h"

namespace tsr {

// All targets this build knows, in a fixed order. Registration is explicit:
// a new target adds one line to registry.cc (no static self-registration).
const std::vector<std::unique_ptr<Target>>& all_targets();
const Target* find_target(const std::string& kind);

// The registered targets' answers to the spec layer's question (why a
// target refuses an arch or a spec): what decode_spec and load_specs take.
const TargetRefusals& target_refusals();

// unknown_target_message (spec/target_catalogue.h) with the registered targets' refusals.
std::string unknown_target_message(const std::string& text);

}  // namespace tsr
