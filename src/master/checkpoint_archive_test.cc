#include "master/checkpoint_archive.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/archive.h"
#include "common/file_util.h"
#include "common/test_temp_dir.h"

namespace det::master {
namespace {

TEST(CheckpointArchiveTest, TheFilesRelativeToTheCheckpointAndNothingHalfWritten) {
  TestTempDir tmp{"det_ckpt_archive"};
  std::filesystem::create_directories(tmp.path() / "sub");
  ASSERT_TRUE(WriteFile(tmp.path() / "state.pt", "weights").ok());
  ASSERT_TRUE(WriteFile(tmp.path() / "sub" / "meta.json", "{}").ok());
  auto tgz = CheckpointTarGz(tmp.path(), "u1");
  ASSERT_TRUE(tgz.ok()) << tgz.status();
  auto entries = ReadTarGz(*tgz);
  ASSERT_TRUE(entries.ok()) << entries.status();
  std::vector<std::pair<std::string, std::string>> got;
  for (const ArchiveEntry& e : *entries) got.emplace_back(e.path, e.content);
  EXPECT_THAT(got, ::testing::UnorderedElementsAre(::testing::Pair("state.pt", "weights"),
                                                   ::testing::Pair("sub/meta.json", "{}")));
}

TEST(CheckpointArchiveTest, ACheckpointLargerThanTheLimitIsRefusedWithWhereToGetIt) {
  TestTempDir tmp{"det_ckpt_archive"};
  ASSERT_TRUE(WriteFile(tmp.path() / "a", std::string(600, 'a')).ok());
  ASSERT_TRUE(WriteFile(tmp.path() / "b", std::string(600, 'b')).ok());
  auto tgz = CheckpointTarGz(tmp.path(), "u2", /*max_bytes=*/1000);
  ASSERT_FALSE(tgz.ok());
  EXPECT_EQ(tgz.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(tgz.status().message(), ::testing::HasSubstr("checkpoint u2 holds 1200 bytes, more than the 1000"));
  EXPECT_THAT(tgz.status().message(), ::testing::HasSubstr("download it from its checkpoint storage"));
  EXPECT_TRUE(CheckpointTarGz(tmp.path(), "u2", /*max_bytes=*/1200).ok());
}

}  // namespace
}  // namespace det::master
