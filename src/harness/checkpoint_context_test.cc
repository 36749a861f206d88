#include "harness/checkpoint_context.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "harness/test_util.h"
#include "storage/shared_fs_storage.h"

namespace det::harness {
namespace {

using nlohmann::json;

TEST(CheckpointBodyTest, UpstreamShapeWithSizesAsStrings) {
  json body = BuildCheckpointBody(
      "task-1", "task-1.alloc", "uuid-1", {{"model.pt", 1234567890123}, {"sub/", 0}},
      json{{"steps_completed", 32}, {"epoch", 1}}, FromUnixMicros(1700000000000000));
  json want = json::parse(R"({
    "taskId": "task-1", "allocationId": "task-1.alloc", "uuid": "uuid-1",
    "resources": {"model.pt": "1234567890123", "sub/": "0"},
    "metadata": {"steps_completed": 32, "epoch": 1},
    "training": {}, "reportTime": "2023-11-14T22:13:20.000000Z", "state": "STATE_COMPLETED"})");
  EXPECT_EQ(body, want);
}

TEST(CheckpointContextTest, OffClusterStoreAndRestore) {
  TempDir tmp;
  CheckpointContext ctx(std::make_shared<storage::SharedFsStorage>(tmp.path()), nullptr, "", "");
  auto p = ctx.BeginStore();
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->path, tmp.path() / p->uuid);
  ASSERT_TRUE(WriteFile(p->path / "weights", "abc").ok());
  ASSERT_TRUE(ctx.CommitStoreJson(*p, R"({"epoch": 3})").ok());  // no steps_completed needed here

  auto md = ReadFile(p->path / "metadata.json");
  ASSERT_TRUE(md.ok()) << md.status();
  EXPECT_EQ(json::parse(*md), json({{"epoch", 3}}));
  auto got = ctx.GetMetadataJson(p->uuid);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(json::parse(*got), json({{"epoch", 3}}));

  auto restored = ctx.RestorePath(p->uuid);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(*restored, p->path);
  EXPECT_EQ(ctx.RestorePath("00000000-0000-0000-0000-000000000000").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(CheckpointContextTest, RejectsNonObjectMetadata) {
  TempDir tmp;
  CheckpointContext ctx(std::make_shared<storage::SharedFsStorage>(tmp.path()), nullptr, "", "");
  auto p = ctx.BeginStore();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(ctx.CommitStoreJson(*p, "[1]").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ctx.CommitStoreJson(*p, "{oops").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(ctx.CommitStoreJson(*p, "").ok());  // no metadata
}

}  // namespace
}  // namespace det::harness
