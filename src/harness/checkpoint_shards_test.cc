#include "harness/checkpoint_shards.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::harness {
namespace {

using ::testing::HasSubstr;

TEST(CheckpointShardsTest, MetadataIsTheUnionOfTheWorkers) {
  auto merged = MergeShardMetadata("u", {{{"steps_completed", 7}, {"rank0", true}}, {{"steps_completed", 7}, {"rank1", 1}}});
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(*merged, nlohmann::json::parse(R"({"steps_completed":7,"rank0":true,"rank1":1})"));
}

TEST(CheckpointShardsTest, AMetadataKeyWithTwoValuesIsAnError) {
  auto merged = MergeShardMetadata("u", {{{"steps_completed", 7}}, {{"steps_completed", 8}}});
  ASSERT_FALSE(merged.ok());
  EXPECT_THAT(merged.status().message(), HasSubstr("\"steps_completed\" differs"));
  EXPECT_FALSE(MergeShardMetadata("u", {nlohmann::json::array()}).ok());
}

TEST(CheckpointShardsTest, StagedApartAFileFromTwoWorkersIsAnError) {
  std::vector<std::map<std::string, int64_t>> parts = {{{"a.bin", 1}, {"sub/", 0}}, {{"b.bin", 2}, {"sub/", 0}}};
  auto merged = MergeShardResources("u", parts, /*shared_directory=*/false);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(*merged, (std::map<std::string, int64_t>{{"a.bin", 1}, {"b.bin", 2}, {"sub/", 0}}));
  parts[1]["a.bin"] = 1;
  auto conflict = MergeShardResources("u", parts, /*shared_directory=*/false);
  ASSERT_FALSE(conflict.ok());
  EXPECT_THAT(conflict.status().message(), HasSubstr("a.bin was written by more than one worker (ranks 0 and 1)"));
}

TEST(CheckpointShardsTest, ASharedDirectoryListsTheSameFilesForEveryWorker) {
  std::map<std::string, int64_t> whole = {{"a.bin", 1}, {"b.bin", 2}};
  auto merged = MergeShardResources("u", {whole, whole}, /*shared_directory=*/true);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(*merged, whole);
}

}  // namespace
}  // namespace det::harness
