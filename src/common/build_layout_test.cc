#include "common/build_layout.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace det {
namespace {

namespace fs = std::filesystem;

TEST(BuildLayoutTest, ThePythonPackageIsBesideTheBinDirectory) {
  fs::path root = fs::temp_directory_path() / ("det_build_layout_" + std::to_string(::getpid()));
  fs::create_directories(root / "bin");
  fs::create_directories(root / "python");
  EXPECT_EQ(HarnessPythonDir(root / "bin"), fs::canonical(root / "python"));
  EXPECT_EQ(HarnessPythonDir(root / "nowhere" / "bin"), root / "nowhere" / "python") << "not there yet: as named";
  fs::remove_all(root);
}

}  // namespace
}  // namespace det
