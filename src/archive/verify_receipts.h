// What `tesserac verify` checks about receipts beyond the stub's validator
// (which binds each one to its variant's kind:arch and blob SHA-256): that
// each receipt's own bytes are well formed.
#pragma once

#include "archive/archive_contents.h"
#include "support/error.h"

namespace tsr {

// The first receipt whose signature trailer is malformed, as
// "kernel 'K' receipt T: malformed signature trailer: ...".
Status verify_receipts(const ArchiveContents& contents);

}  // namespace tsr
