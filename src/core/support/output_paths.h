// Where an output path really leads, and the check every writing command
// runs before it starts: no output may overwrite one of the command's inputs
// or another of its outputs (`-o spec.yaml` would otherwise destroy the spec).
// The rules are in docs/cli.md "Output files".
#pragma once

#include <string>
#include <vector>

#include "support/error.h"

namespace tsr {

// A path as the user named it on the command line, for messages.
struct CommandPath {
  std::string option;   // "-o", "--depfile", "--json"; for inputs "spec", "archive"
  std::string path;
};

struct OutputDestination {
  enum class Kind {
    file,         // a regular file, existing or not: replaced atomically
    device,       // a character device such as /dev/null: written in place
    descriptor,   // /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to fd N
  };
  Kind kind = Kind::file;
  std::string path;   // file: the file replaced, symlinks followed (the link itself stays)
  int fd = -1;        // descriptor only
};

// Follows symlinks and classifies `path`. Refuses (with the reason, no path
// in the message) directories, FIFOs, sockets, block devices and symlink loops.
Expected<OutputDestination> resolve_output(const std::string& path);

// A usage error naming both paths when an output is the same file as an
// input or as another output (same device and inode where the file exists,
// same normalized path otherwise, so `./x` vs `x`, hard links and symlinks
// are all caught), or when an output cannot be written at all. Character
// devices and descriptors may repeat (`--depfile /dev/null -o /dev/null`).
Status check_output_paths(const std::vector<CommandPath>& inputs, const std::vector<CommandPath>& outputs);

}  // namespace tsr
