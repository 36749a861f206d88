#pragma once
// The shared libraries the harness's native module (BIN_DIR/../python/_determined*.so) needs beyond the C
// library, copied into one directory that containers mount read-only and put on LD_LIBRARY_PATH: a user's
// image then needs no libcurl, abseil, spdlog, ... of ours, only a Python of the same version and a
// C library at least as new as this host's.
#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace det::agent {

// The libraries `ldd` names for `module`, without those of the C library itself (libc, libm, libdl,
// libpthread, librt, the loader, the vDSO), from ldd's output. Pure.
std::vector<std::filesystem::path> LibrariesFromLdd(const std::string& ldd_output);

// Copies the libraries of the harness's native module in `python_dir` into `dest` (created; files already
// there with the same size are kept). `dest`, or an error naming what failed.
absl::StatusOr<std::filesystem::path> CollectHarnessLibraries(const std::filesystem::path& python_dir,
                                                              const std::filesystem::path& dest);

}  // namespace det::agent
