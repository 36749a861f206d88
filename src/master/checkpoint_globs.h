#pragma once
// Which of a checkpoint's files a glob names (POST /api/v1/checkpoints/rm, `det checkpoint rm --glob`),
// as upstream's pathlib globs do: '/'-separated components; `*`, `?` and `[...]` match within one
// component (dot files included); `**` matches any number of components, none included. A glob that
// names a directory names every file under it, so `logs` and `logs/**` remove the same files.
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace det::master {

// A glob relative to the checkpoint's directory: not empty, not absolute, no "." or ".." component.
// InvalidArgument naming the glob otherwise.
absl::Status ValidateCheckpointGlob(const std::string& glob);

// Whether `glob` names the file at `path` (relative, '/'-separated) or a directory above it.
bool GlobNamesFile(const std::string& glob, const std::string& path);

// Whether any of `globs` names the file.
bool AnyGlobNamesFile(const std::vector<std::string>& globs, const std::string& path);

}  // namespace det::master
