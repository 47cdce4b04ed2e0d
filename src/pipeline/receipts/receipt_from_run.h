// The receipt for one hardware PASS of the oracle (tesserac qualify): what
// was run (kernel, codec version, target, the variant's exact bytes by
// SHA-256, artifact key, toolchain), where (the device), with what result
// (the oracle's numbers and trial shapes) and how fast (median latency and
// the stub's route).
#pragma once

#include <optional>
#include <string>

#include "oracle/oracle.h"
#include "receipts/receipt.h"
#include "spec/kernel_spec.h"
#include "target/target.h"

namespace tsr {

// nullopt unless `report` is a hardware PASS: PASS_EMULATED, NOT_RUN and
// FAIL never make a receipt.
std::optional<Receipt> receipt_from_run(const KernelSpec& spec, const Artifact& variant, const OracleReport& report,
                                        const DeviceInfo& device, const std::string& route,
                                        const std::string& qualified_at);

// RFC 3339 UTC time of qualification: SOURCE_DATE_EPOCH when set (so a
// rerun writes the same bytes), else now. Empty when SOURCE_DATE_EPOCH is
// not a decimal number of seconds.
std::string qualification_time();

}  // namespace tsr
