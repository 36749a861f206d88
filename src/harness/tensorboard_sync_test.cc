#include "harness/tensorboard_sync.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>

#include "harness/test_util.h"
#include "storage/shared_fs_storage.h"
#include "storage/storage_files_conformance.h"

namespace det::harness {
namespace {

namespace fs = std::filesystem;
using storage::ReadFileForTest;
using storage::WriteFileForTest;

// Shared-fs storage that counts uploads and can be told to fail them.
class CountingStorage : public storage::SharedFsStorage {
 public:
  using storage::SharedFsStorage::SharedFsStorage;
  absl::Status UploadFile(const fs::path& local_file, const std::string& prefix,
                          const std::string& name) override {
    if (fail) return absl::UnavailableError("storage down");
    ++uploads;
    return storage::SharedFsStorage::UploadFile(local_file, prefix, name);
  }
  std::atomic<int> uploads{0};
  std::atomic<bool> fail{false};
};

ino_t Inode(const fs::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_ino;
}

class TensorboardSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = std::make_shared<CountingStorage>(tmp_.path() / "storage");
    auto sync =
        TensorboardSync::Create(storage_, tmp_.path() / "tb", storage::TensorboardKeyPrefix(3, 7));
    ASSERT_TRUE(sync.ok()) << sync.status();
    sync_ = std::move(*sync);
  }
  fs::path Stored(const std::string& name) const {
    return tmp_.path() / "storage/tensorboard/experiment/3/trial/7" / name;
  }
  fs::path Local(const std::string& name) const { return tmp_.path() / "tb" / name; }

  TempDir tmp_;
  std::shared_ptr<CountingStorage> storage_;
  std::unique_ptr<TensorboardSync> sync_;
};

TEST_F(TensorboardSyncTest, UploadsNewAndChangedFilesOnly) {
  EXPECT_EQ(storage::TensorboardKeyPrefix(3, 7), "tensorboard/experiment/3/trial/7");
  auto n = sync_->SyncNow();  // no directory yet
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 0);

  WriteFileForTest(Local("events.out.tfevents.1"), "v1");
  WriteFileForTest(Local("plugins/profile/trace.json.gz"), "trace");
  n = sync_->SyncNow();
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 2);
  EXPECT_EQ(ReadFileForTest(Stored("events.out.tfevents.1")), "v1");
  EXPECT_EQ(ReadFileForTest(Stored("plugins/profile/trace.json.gz")), "trace");
  ino_t trace_inode = Inode(Stored("plugins/profile/trace.json.gz"));

  n = sync_->SyncNow();
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 0) << "nothing changed";
  EXPECT_EQ(storage_->uploads.load(), 2);

  WriteFileForTest(Local("events.out.tfevents.1"), "v1 v2");
  n = sync_->SyncNow();
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(ReadFileForTest(Stored("events.out.tfevents.1")), "v1 v2");
  EXPECT_EQ(Inode(Stored("plugins/profile/trace.json.gz")), trace_inode)
      << "unchanged: not re-uploaded";
  auto stats = sync_->stats();
  EXPECT_EQ(stats.syncs, 4);
  EXPECT_EQ(stats.files_uploaded, 3);
  EXPECT_EQ(stats.bytes_uploaded, 2 + 5 + 5);
}

TEST_F(TensorboardSyncTest, SameSizeRewriteIsNoticedByItsModificationTime) {
  WriteFileForTest(Local("a"), "one");
  ASSERT_TRUE(sync_->SyncNow().ok());
  WriteFileForTest(Local("a"), "two");
  fs::last_write_time(Local("a"), fs::last_write_time(Local("a")) + std::chrono::seconds(1));
  auto n = sync_->SyncNow();
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(ReadFileForTest(Stored("a")), "two");
}

TEST_F(TensorboardSyncTest, ChosenFilesUnderChosenNames) {
  WriteFileForTest(Local("x/events.1"), "e");
  auto n = sync_->SyncFiles({{Local("x/events.1"), "rank-1/events.1"}});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(ReadFileForTest(Stored("rank-1/events.1")), "e");
  EXPECT_FALSE(fs::exists(Stored("x/events.1")));
  auto bad = sync_->SyncFiles({{Local("x/events.1"), "ok"}, {Local("x/events.1"), "../escape"}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  EXPECT_FALSE(fs::exists(Stored("ok"))) << "names are checked before anything is uploaded";
  // A file that vanished is skipped, not an error.
  n = sync_->SyncFiles({{Local("gone"), "gone"}});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 0);
}

TEST_F(TensorboardSyncTest, BackgroundSyncsAndTheirErrors) {
  WriteFileForTest(Local("events.1"), "a");
  ASSERT_TRUE(sync_->RequestSync().ok());
  ASSERT_TRUE(sync_->Flush().ok());
  EXPECT_EQ(ReadFileForTest(Stored("events.1")), "a");

  // Many requests while nothing changes cost no uploads.
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(sync_->RequestSync().ok());
  ASSERT_TRUE(sync_->Flush().ok());
  EXPECT_EQ(storage_->uploads.load(), 1);

  storage_->fail = true;
  WriteFileForTest(Local("events.1"), "ab");
  ASSERT_TRUE(sync_->RequestSync().ok());
  absl::Status st = sync_->Flush();
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable) << st;
  EXPECT_NE(st.message().find("storage down"), std::string::npos) << st;
  EXPECT_TRUE(sync_->Flush().ok()) << "each error is returned once";

  storage_->fail = false;
  ASSERT_TRUE(sync_->RequestSync().ok());
  ASSERT_TRUE(sync_->Close().ok());
  EXPECT_EQ(ReadFileForTest(Stored("events.1")), "ab") << "Close() finishes a requested sync";
  EXPECT_EQ(sync_->RequestSync().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(sync_->Close().ok());
  // A synchronous sync still works after Close(): the owner's last one.
  WriteFileForTest(Local("events.1"), "abc");
  auto n = sync_->SyncNow();
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1);
}

TEST(TensorboardSyncCreateTest, RefusesABadPrefix) {
  TempDir tmp;
  auto storage = std::make_shared<storage::SharedFsStorage>(tmp.path());
  EXPECT_EQ(TensorboardSync::Create(storage, tmp.path(), "../x").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TensorboardSync::Create(nullptr, tmp.path(), "x").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace det::harness
