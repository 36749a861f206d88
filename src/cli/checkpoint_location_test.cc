#include "cli/checkpoint_location.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::cli {
namespace {

using nlohmann::json;

TEST(CheckpointLocationTest, SharedFs) {
  EXPECT_EQ(CheckpointLocation(json{{"type", "shared_fs"}, {"host_path", "/data/ckpt"}}, "u1"),
            "/data/ckpt/u1");
  EXPECT_EQ(
      CheckpointLocation(
          json{{"type", "shared_fs"}, {"host_path", "/data"}, {"storage_path", "ckpts"}}, "u1"),
      "/data/ckpts/u1");
  EXPECT_EQ(
      CheckpointLocation(
          json{{"type", "shared_fs"}, {"host_path", "/data"}, {"storage_path", "/data/abs"}}, "u1"),
      "/data/abs/u1");
  EXPECT_EQ(
      CheckpointLocation(
          json{{"type", "shared_fs"}, {"host_path", "/data"}, {"storage_path", nullptr}}, "u1"),
      "/data/u1");
}

TEST(CheckpointLocationTest, DirectoryAndClouds) {
  EXPECT_EQ(CheckpointLocation(json{{"type", "directory"}, {"container_path", "/mnt/c/"}}, "u"),
            "/mnt/c/u");
  EXPECT_EQ(CheckpointLocation(json{{"type", "s3"}, {"bucket", "b"}, {"prefix", "/p/"}}, "u"),
            "s3://b/p/u");
  EXPECT_EQ(CheckpointLocation(json{{"type", "gcs"}, {"bucket", "b"}}, "u"), "gs://b/u");
}

TEST(CheckpointLocationTest, UnknownOrIncomplete) {
  EXPECT_EQ(CheckpointLocation(json{{"type", "hdfs"}}, "u"), "");
  EXPECT_EQ(CheckpointLocation(json{{"type", "shared_fs"}}, "u"), "");
  EXPECT_EQ(CheckpointLocation(json(nullptr), "u"), "");
}

}  // namespace
}  // namespace det::cli
