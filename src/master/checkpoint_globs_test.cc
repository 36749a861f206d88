#include "master/checkpoint_globs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace det::master {
namespace {

const std::vector<std::string> kFiles = {"model.pt", ".hidden", "optimizer/state.pt", "optimizer/extra/m.bin",
                                         "logs/a.txt", "metadata.json"};

std::vector<std::string> Named(const std::vector<std::string>& globs) {
  std::vector<std::string> out;
  for (const std::string& f : kFiles) {
    if (AnyGlobNamesFile(globs, f)) out.push_back(f);
  }
  return out;
}

using Files = std::vector<std::string>;

TEST(CheckpointGlobsTest, StarStaysInOneComponentAndMatchesDotFiles) {
  EXPECT_EQ(Named({"*.pt"}), (Files{"model.pt"}));
  EXPECT_EQ(Named({"*"}), kFiles) << "every top-level entry, directories with their files";
  EXPECT_EQ(Named({".h?dden"}), (Files{".hidden"}));
  EXPECT_EQ(Named({"[lm]*"}), (Files{"model.pt", "logs/a.txt", "metadata.json"}));
}

TEST(CheckpointGlobsTest, DoubleStarCrossesDirectories) {
  EXPECT_EQ(Named({"**"}), kFiles);
  EXPECT_EQ(Named({"**/*.pt"}), (Files{"model.pt", "optimizer/state.pt"}));
  EXPECT_EQ(Named({"optimizer/**"}), (Files{"optimizer/state.pt", "optimizer/extra/m.bin"}));
  EXPECT_EQ(Named({"**/m.bin"}), (Files{"optimizer/extra/m.bin"}));
}

TEST(CheckpointGlobsTest, ADirectoryNamesEveryFileUnderIt) {
  EXPECT_EQ(Named({"optimizer"}), Named({"optimizer/**"}));
  EXPECT_EQ(Named({"optimizer/extra", "logs"}), (Files{"optimizer/extra/m.bin", "logs/a.txt"}));
  EXPECT_EQ(Named({"optim"}), Files{}) << "a component matches whole, not as a prefix";
  EXPECT_EQ(Named({"no-such"}), Files{});
}

TEST(CheckpointGlobsTest, GlobsStayInsideTheCheckpoint) {
  for (const std::string good : {"*.pt", "a/**", "**", "dir/", "x//y"}) {
    EXPECT_TRUE(ValidateCheckpointGlob(good).ok()) << good;
  }
  for (const std::string bad : {"", "/etc/passwd", "../other/**", "a/../../b", "./x", "/"}) {
    absl::Status st = ValidateCheckpointGlob(bad);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("checkpointGlobs"), absl::string_view::npos) << st;
  }
}

}  // namespace
}  // namespace det::master
