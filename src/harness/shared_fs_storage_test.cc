#include "harness/shared_fs_storage.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/test_util.h"

namespace det::harness {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(SharedFsStorageTest, StoreRestoreDelete) {
  TempDir tmp;
  SharedFsStorage s(tmp.path() / "base");
  auto dir = s.StorePath("u-1");
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(*dir, tmp.path() / "base" / "u-1");
  EXPECT_TRUE(fs::is_directory(*dir));
  EXPECT_EQ(s.StorePath("u-1").status().code(), absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(s.PostStore("u-1", *dir).ok());

  auto restored = s.RestorePath("u-1");
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(*restored, *dir);
  EXPECT_EQ(s.RestorePath("missing").status().code(), absl::StatusCode::kNotFound);

  ASSERT_TRUE(s.Delete("u-1").ok());
  EXPECT_FALSE(fs::exists(*dir));
  EXPECT_TRUE(s.Delete("u-1").ok());  // already gone
}

TEST(SharedFsStorageTest, StorageIdsCannotEscapeTheBase) {
  TempDir tmp;
  SharedFsStorage s(tmp.path());
  EXPECT_EQ(s.StorePath("../x").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.RestorePath("..").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Delete("").code(), absl::StatusCode::kInvalidArgument);
}

TEST(MakeStorageManagerTest, BuildsByType) {
  auto m =
      MakeStorageManager(json{{"type", "shared_fs"}, {"host_path", "/h"}, {"storage_path", "s"}});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->Describe(), "shared_fs at /h/s");

  m = MakeStorageManager(json{{"type", "directory"}, {"container_path", "/c/d"}});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->Describe(), "directory at /c/d");

  EXPECT_EQ(MakeStorageManager(json{{"type", "directory"}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      MakeStorageManager(json{{"type", "shared_fs"}, {"host_path", "/h"}, {"storage_path", "/x"}})
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeStorageManager(json{{"type", "gcs"}, {"bucket", "b"}}).status().code(),
            absl::StatusCode::kUnimplemented);  // s3: s3_storage_test.cc
  EXPECT_EQ(MakeStorageManager(json{{"type", "ftp"}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeStorageManager(json()).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace det::harness
