// The kernel ABI: named bindings in a fixed order (inputs, outputs, runtime
// scalars). Every target's entry point, the oracle and the archive use it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr {

enum class Role { input, output, scalar };
const char* role_name(Role r);

struct Binding {
  std::string name;
  Role role = Role::input;
  DType dtype = DType::f32;     // buffers only; scalars are int64
  std::vector<Dim> shape;       // buffers only; product of extents
};

struct KernelAbi {
  std::vector<Binding> bindings;   // inputs, then outputs, then scalars

  std::vector<const Binding*> buffers() const;   // inputs and outputs, in order
  std::vector<std::string> scalar_names() const;
  // Element count of a buffer given values for the runtime scalars.
  std::optional<int64_t> element_count(const Binding& b, const std::map<std::string, int64_t>& scalars) const;
};

KernelAbi kernel_abi(const KernelSpec& spec);

// Every distinct runtime dimension name, in ABI order.
std::vector<std::string> runtime_scalars(const KernelSpec& spec);

}  // namespace tsr
