#pragma once
// Where a build's pieces are relative to its binaries: the `determined` Python package (the harness)
// sits in BIN_DIR/../python, in a build tree as in an install (docs/decisions.md).
#include <filesystem>

namespace det {

// BIN_DIR/../python, made canonical as far as it exists (in a partial build tree it may not yet).
std::filesystem::path HarnessPythonDir(const std::filesystem::path& bin_dir);

}  // namespace det
