#pragma once
// For tests: a fresh directory under /tmp (mkdtemp), removed with everything in it when this object
// goes. In a fixture: `TestTempDir tmp_{"det_x"}; const std::filesystem::path dir_ = tmp_.path();`.
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace det {

class TestTempDir {
 public:
  explicit TestTempDir(const std::string& prefix) {
    std::string tmpl = "/tmp/" + prefix + "_XXXXXX";
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TestTempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TestTempDir(const TestTempDir&) = delete;
  TestTempDir& operator=(const TestTempDir&) = delete;

  // Empty when it could not be made (a test's writes there then fail).
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace det
