// tesserac targets [--json]: every target kind with what it does and does not
// do, then each of its archs with its toolchain and its devices.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "registry/registry.h"

namespace tsr::cli {

RunFn register_targets(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub =
      app.add_subcommand("targets", "List targets, what each does and does not do, their toolchains and devices");
  sub->add_flag("--json", *json, "Print JSON instead of a table");
  return [json]() -> int {
    nlohmann::ordered_json doc = nlohmann::ordered_json::array();
    std::string table;
    for (const auto& target : all_targets()) {
      const ToolchainInfo tc = target->toolchain();
      const TargetScope scope = target->scope();
      table += target->kind() + "\n  does:      " + scope.does + "\n  does not:  " + scope.does_not + "\n";
      for (const std::string& arch : target->archs()) {
        const DeviceInfo dev = target->device(arch);
        nlohmann::ordered_json j;
        j["target"] = target->kind() + ":" + arch;
        j["does"] = scope.does;
        j["does_not"] = scope.does_not;
        j["toolchain_found"] = tc.found;
        j["toolchain_path"] = tc.path;
        j["toolchain_version"] = tc.version;
        j["toolchain_unavailable_reason"] = tc.why_unavailable;
        j["device_present"] = dev.present;
        j["device"] = dev.description;
        doc.push_back(j);
        table += j["target"].get<std::string>() + "\n";
        table += tc.found ? "  toolchain: " + tc.path + " (" + tc.version + ")\n"
                          : "  toolchain: unavailable: " + tc.why_unavailable + "\n";
        table += std::string("  device:    ") + (dev.present ? "present: " : "absent: ") + dev.description + "\n";
      }
    }
    if (*json) {
      nlohmann::ordered_json root;
      root["targets"] = doc;
      std::cout << root.dump(2) << "\n";
      return kExitOk;
    }
    std::cout << table;
    return kExitOk;
  };
}

}  // namespace tsr::cli
