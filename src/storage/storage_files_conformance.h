#pragma once
// One test of StorageManager's files under key prefixes (UploadFile, ListFiles, DownloadFile and
// the directory helpers), run against every backend: shared_fs_storage_test.cc and
// s3_storage_test.cc call it with their storage.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/test_temp_dir.h"
#include "storage/storage_manager.h"

namespace det::storage {

inline std::string ReadFileForTest(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteFileForTest(const std::filesystem::path& p, const std::string& data) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << data;
}

// Every entry under `dir`: files by relative path with their bytes, directories as "rel/" -> "".
inline std::map<std::string, std::string> TreeForTest(const std::filesystem::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    std::string rel = e.path().lexically_relative(dir).generic_string();
    out[e.is_directory() ? rel + "/" : rel] = e.is_directory() ? "" : ReadFileForTest(e.path());
  }
  return out;
}

// Uploads, lists, replaces and downloads files under `tensorboard/experiment/1/trial/1` (and one
// under `.../trial/10`, which must not show under `.../trial/1`), and checks that bad prefixes and
// names are refused. Leaves its files in `storage` under `tensorboard/`.
inline void ExpectFilesUnderPrefixConform(StorageManager& storage) {
  namespace fs = std::filesystem;
  const std::string prefix = "tensorboard/experiment/1/trial/1";
  TestTempDir local{"det_storage_test"};
  fs::path src = local.path() / "src";
  WriteFileForTest(src / "events.out.tfevents.1.host", "event-1");
  WriteFileForTest(src / "plugins" / "profile" / "run.pb", std::string(70000, 'p'));
  WriteFileForTest(src / "odd name $&+=.txt", "odd");
  WriteFileForTest(src / "empty", "");
  fs::create_directories(src / "empty_dir");  // directories alone are not files

  auto n = storage.UploadDirectory(src, prefix + "/");
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 4);
  ASSERT_TRUE(storage.UploadFile(src / "empty", "tensorboard/experiment/1/trial/10", "other").ok());
  auto missing_dir = storage.UploadDirectory(local.path() / "nothing-here", prefix);
  ASSERT_TRUE(missing_dir.ok()) << missing_dir.status();
  EXPECT_EQ(*missing_dir, 0);

  auto listed = storage.ListFiles(prefix);
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::vector<std::string> paths;
  std::map<std::string, StoredFile> by_path;
  for (const StoredFile& f : *listed) {
    paths.push_back(f.path);
    by_path[f.path] = f;
    EXPECT_FALSE(f.version.empty()) << f.path;
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"empty", "events.out.tfevents.1.host",
                                             "odd name $&+=.txt", "plugins/profile/run.pb"}));
  EXPECT_EQ(by_path["plugins/profile/run.pb"].size, 70000);
  EXPECT_EQ(by_path["empty"].size, 0);

  fs::path out = local.path() / "out";
  auto got = storage.DownloadPrefix(prefix, out);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, 4);
  auto want = TreeForTest(src);
  want.erase("empty_dir/");
  EXPECT_EQ(TreeForTest(out), want) << "every file, no partial copies left beside them";

  // Replacing a file: new size and version in the listing, new content downloaded over the old.
  WriteFileForTest(src / "events.out.tfevents.1.host", "event-1 event-2");
  ASSERT_TRUE(
      storage.UploadFile(src / "events.out.tfevents.1.host", prefix, "events.out.tfevents.1.host")
          .ok());
  auto relisted = storage.ListFiles(prefix + "/");
  ASSERT_TRUE(relisted.ok()) << relisted.status();
  auto it = std::find_if(relisted->begin(), relisted->end(), [](const StoredFile& f) {
    return f.path == "events.out.tfevents.1.host";
  });
  ASSERT_NE(it, relisted->end());
  EXPECT_EQ(it->size, 15);
  EXPECT_NE(it->version, by_path["events.out.tfevents.1.host"].version);
  ASSERT_TRUE(
      storage.DownloadFile(prefix, "events.out.tfevents.1.host", out / "events.out.tfevents.1.host")
          .ok());
  EXPECT_EQ(ReadFileForTest(out / "events.out.tfevents.1.host"), "event-1 event-2");

  auto none = storage.ListFiles("tensorboard/experiment/999/trial/1");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(storage.DownloadFile(prefix, "no-such-file", out / "x").code(),
            absl::StatusCode::kNotFound);
  EXPECT_FALSE(fs::exists(out / "x"));
  EXPECT_EQ(storage.UploadFile(src / "no-such-file", prefix, "x").code(),
            absl::StatusCode::kNotFound);

  for (const std::string bad : {"", "/", "/abs/path", "a/../b", "..", "a//b", "./a", "a/."}) {
    EXPECT_EQ(storage.ListFiles(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(storage.UploadFile(src / "empty", bad, "f").code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
    EXPECT_EQ(storage.DownloadFile(bad, "f", out / "f").code(), absl::StatusCode::kInvalidArgument)
        << bad;
  }
  for (const std::string bad : {"", "../x", "a/", "/x", "a//b"}) {
    EXPECT_EQ(storage.UploadFile(src / "empty", prefix, bad).code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
    EXPECT_EQ(storage.DownloadFile(prefix, bad, out / "f").code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
  // Deleting files: gone from the listing, the others kept; a missing file is not an error.
  ASSERT_TRUE(storage.DeleteFile(prefix, "plugins/profile/run.pb").ok());
  ASSERT_TRUE(storage.DeleteFile(prefix, "empty").ok());
  ASSERT_TRUE(storage.DeleteFile(prefix, "empty").ok()) << "already gone";
  auto after_delete = storage.ListFiles(prefix);
  ASSERT_TRUE(after_delete.ok()) << after_delete.status();
  std::vector<std::string> left;
  for (const StoredFile& f : *after_delete) left.push_back(f.path);
  EXPECT_EQ(left, (std::vector<std::string>{"events.out.tfevents.1.host", "odd name $&+=.txt"}));
  EXPECT_EQ(storage.DeleteFile(prefix, "../trial/10/other").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(storage.DeleteFile("a/../b", "f").code(), absl::StatusCode::kInvalidArgument);

  auto bad_prefix = storage.ListFiles("a/../b");
  EXPECT_NE(bad_prefix.status().message().find("a/../b"), std::string::npos) << bad_prefix.status();
}

}  // namespace det::storage
