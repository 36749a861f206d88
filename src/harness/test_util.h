#pragma once
// Helpers for the harness unit tests.
#include <filesystem>
#include <string>

#include "common/file_util.h"
#include "common/random_id.h"

namespace det::harness {

// A fresh directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / ("det-harness-test-" + RandomHex(8))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace det::harness
