// tesserac targets [--json]: every target, its toolchain and its devices.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "targets/registry.h"

namespace tsr::cli {

RunFn register_targets(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("targets", "List targets, their toolchains and the devices present");
  sub->add_flag("--json", *json, "Print JSON instead of a table");
  return [json]() -> int {
    nlohmann::ordered_json doc = nlohmann::ordered_json::array();
    for (const auto& target : all_targets()) {
      const ToolchainInfo tc = target->toolchain();
      for (const std::string& arch : target->archs()) {
        const DeviceInfo dev = target->device(arch);
        nlohmann::ordered_json j;
        j["target"] = target->kind() + ":" + arch;
        j["toolchain_found"] = tc.found;
        j["toolchain_path"] = tc.path;
        j["toolchain_version"] = tc.version;
        j["toolchain_unavailable_reason"] = tc.why_unavailable;
        j["device_present"] = dev.present;
        j["device"] = dev.description;
        doc.push_back(j);
      }
    }
    if (*json) {
      nlohmann::ordered_json root;
      root["targets"] = doc;
      std::cout << root.dump(2) << "\n";
      return kExitOk;
    }
    for (const auto& j : doc) {
      std::cout << j["target"].get<std::string>() << "\n";
      if (j["toolchain_found"].get<bool>())
        std::cout << "  toolchain: " << j["toolchain_path"].get<std::string>() << " ("
                  << j["toolchain_version"].get<std::string>() << ")\n";
      else
        std::cout << "  toolchain: unavailable: " << j["toolchain_unavailable_reason"].get<std::string>() << "\n";
      std::cout << "  device:    " << (j["device_present"].get<bool>() ? "present: " : "absent: ")
                << j["device"].get<std::string>() << "\n";
    }
    return kExitOk;
  };
}

}  // namespace tsr::cli
