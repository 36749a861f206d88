#include "storage/shared_fs_storage.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/test_temp_dir.h"
#include "storage/storage_files_conformance.h"

namespace det::storage {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(SharedFsStorageTest, StoreRestoreDelete) {
  TestTempDir tmp{"det_storage_test"};
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
  TestTempDir tmp{"det_storage_test"};
  SharedFsStorage s(tmp.path());
  EXPECT_EQ(s.StorePath("../x").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.RestorePath("..").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Delete("").code(), absl::StatusCode::kInvalidArgument);
}

TEST(SharedFsStorageTest, FilesUnderAPrefix) {
  TestTempDir tmp{"det_storage_test"};
  SharedFsStorage s(tmp.path() / "base");
  ExpectFilesUnderPrefixConform(s);
  // Files sit at base/prefix/name, beside the checkpoints; a deleted file's emptied directories go
  // with it, up to the prefix.
  EXPECT_EQ(ReadFileForTest(tmp.path() / "base/tensorboard/experiment/1/trial/1/odd name $&+=.txt"), "odd");
  EXPECT_FALSE(fs::exists(tmp.path() / "base/tensorboard/experiment/1/trial/1/plugins"));
  EXPECT_TRUE(fs::exists(tmp.path() / "base/tensorboard/experiment/1/trial/10/other"));
}

TEST(SharedFsStorageTest, ListingSkipsPartialCopies) {
  TestTempDir tmp{"det_storage_test"};
  SharedFsStorage s(tmp.path());
  WriteFileForTest(tmp.path() / "p" / "a", "a");
  WriteFileForTest(PartialSibling(tmp.path() / "p" / "b"), "being written");
  auto files = s.ListFiles("p");
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].path, "a");
}

TEST(StorageKeysTest, PrefixesAndNames) {
  EXPECT_EQ(*NormalizeKeyPrefix("tensorboard/experiment/1/trial/2/"),
            "tensorboard/experiment/1/trial/2");
  EXPECT_EQ(*NormalizeKeyPrefix("a"), "a");
  for (const std::string& bad : std::vector<std::string>{"", "/", "a//", "/a", "a/./b", "a/../b",
                                                         "..", std::string("a\0b", 3)}) {
    auto r = NormalizeKeyPrefix(bad);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_TRUE(ValidateRelativeKey("a/b.txt").ok());
  EXPECT_EQ(ValidateRelativeKey("a/").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(IsPartialName(PartialSibling("/x/events.1").filename().string()));
  EXPECT_FALSE(IsPartialName("events.1"));
  EXPECT_EQ(PartialSibling("/x/events.1").parent_path(), fs::path("/x"));
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
}  // namespace det::storage
