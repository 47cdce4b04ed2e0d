// What `tesserac verify` checks about receipts beyond the stub's validator
// (which binds each record to its variant's kind:arch and blob SHA-256):
// that each receipt's own bytes decode with the receipt codec and name the
// very variant they are bound to.
#pragma once

#include <string>

#include "archive/archive_contents.h"
#include "support/diagnostics.h"
#include "support/error.h"

namespace tsr {

// Decodes every receipt of `contents` (diagnostics to `diag`, each receipt
// named "ARCHIVE(K T receipt N)" in them) and compares it with its variant
// as admission does (kernel, target, then first_difference: identity,
// codec_version, artifact_sha256, artifact_key). The first failure, as
// "kernel 'K' receipt T: ...".
Status verify_receipts(const ArchiveContents& contents, const std::string& archive_name, DiagnosticEngine& diag);

}  // namespace tsr
