// Merging archives: the union of kernels, variants, verdicts and metadata.
#pragma once

#include <string>
#include <vector>

#include "archive/archive_contents.h"
#include "support/error.h"

namespace tsr {

struct NamedArchive {
  std::string name;            // used in conflict messages, e.g. the input path
  ArchiveContents contents;
};

// Identical entries collapse. A conflict is an error naming both inputs:
// one kernel name with two identities or ABIs, one (kernel, target) with two
// different artifacts or verdicts, one metadata key with two values.
Expected<ArchiveContents> merge_archives(const std::vector<NamedArchive>& inputs);

}  // namespace tsr
