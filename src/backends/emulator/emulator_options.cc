// The emulator's options (emulator_options.h).
#include "emulator/emulator_options.h"

#include <cstdlib>

#include "support/decimal.h"

namespace tsr::cuda::emu {

Expected<double> launch_timeout_s(const EmulatorOptions& options) {
  if (options.launch_timeout_s > 0) return options.launch_timeout_s;
  const char* env = std::getenv("TSR_EMU_TIMEOUT_S");
  if (!env) return kDefaultLaunchTimeoutS;
  const std::optional<uint64_t> s = parse_decimal_u64(env);
  if (!s || *s == 0 || *s > 1000000)
    return invalid_input(std::string("TSR_EMU_TIMEOUT_S: expected a whole number of seconds in [1, 1000000], got '") +
                         env + "'");
  return static_cast<double>(*s);
}

}  // namespace tsr::cuda::emu
