#pragma once
// Uploads the files a trial writes under its TensorBoard directory
// (core_context.train.get_tensorboard_path()) to its experiment's checkpoint storage, under
// `tensorboard/experiment/E/trial/T/` (docs/interactive.md), where the TensorBoard task's runner
// (python/determined/exec/tensorboard.py) downloads them from. Any file counts, whatever library
// wrote it; a file is uploaded again only when its size, modification time or inode changed since
// its last upload, so a sync with nothing new costs one stat per file.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "storage/storage_manager.h"

namespace det::harness {

class TensorboardSync {
 public:
  // A local file and its path under the key prefix.
  struct FileToUpload {
    std::filesystem::path local;
    std::string name;
  };
  struct Stats {
    int64_t syncs = 0;           // SyncNow / SyncFiles calls that finished (background ones too)
    int64_t files_uploaded = 0;  // uploads of one file
    int64_t bytes_uploaded = 0;
  };

  // `key_prefix` must pass NormalizeKeyPrefix. `local_dir` need not exist yet.
  static absl::StatusOr<std::unique_ptr<TensorboardSync>> Create(
      std::shared_ptr<storage::StorageManager> storage, std::filesystem::path local_dir,
      const std::string& key_prefix);
  // Close()s (no last sync: the owner calls SyncNow() for that).
  ~TensorboardSync();
  TensorboardSync(const TensorboardSync&) = delete;
  TensorboardSync& operator=(const TensorboardSync&) = delete;

  // Uploads, on the caller's thread, every regular file under `local_dir` (as its relative path)
  // that is new or changed since its last upload; returns how many it uploaded. A missing
  // `local_dir`, or a file removed while syncing, is no error. Stops at the first failed upload.
  // Safe for concurrent use: syncs are serialized.
  absl::StatusOr<int> SyncNow();
  // The same for chosen files (a user's selection and naming); every name must pass
  // ValidateRelativeKey, checked before anything is uploaded.
  absl::StatusOr<int> SyncFiles(const std::vector<FileToUpload>& files);

  // Asks a background thread (started on the first request) for a SyncNow() and returns at once;
  // requests made while one waits merge into it. Returns the error of an earlier background sync
  // (each error once), or FailedPrecondition after Close(). Safe for concurrent use.
  absl::Status RequestSync();
  // Blocks until every requested background sync is done; returns a background error not yet
  // returned. Does not itself sync.
  absl::Status Flush();
  // Flush(), then stops the background thread. Idempotent.
  absl::Status Close();

  Stats stats() const;
  const std::string& key_prefix() const { return key_prefix_; }
  const std::filesystem::path& local_dir() const { return local_dir_; }

 private:
  // What a file was when it was last uploaded.
  struct LocalVersion {
    int64_t size = 0;
    int64_t mtime_ns = 0;
    ino_t inode = 0;
    bool operator==(const LocalVersion&) const = default;
  };

  TensorboardSync(std::shared_ptr<storage::StorageManager> storage, std::filesystem::path local_dir,
                  std::string key_prefix);
  void Run();
  bool WorkOrStop() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return requested_ || stopping_; }
  bool Idle() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !requested_ && !busy_; }
  absl::Status TakeErrorLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::shared_ptr<storage::StorageManager> storage_;
  const std::filesystem::path local_dir_;
  const std::string key_prefix_;

  // Held for a whole sync; taken before mu_ when both are.
  absl::Mutex sync_mu_;
  std::map<std::string, LocalVersion> uploaded_ ABSL_GUARDED_BY(sync_mu_);  // by name

  mutable absl::Mutex mu_;
  bool requested_ ABSL_GUARDED_BY(mu_) = false;  // a background sync is asked for
  bool busy_ ABSL_GUARDED_BY(mu_) = false;       // the background thread is syncing
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status error_ ABSL_GUARDED_BY(mu_);  // the first unreturned background error
  Stats stats_ ABSL_GUARDED_BY(mu_);
  std::thread thread_ ABSL_GUARDED_BY(mu_);
};

}  // namespace det::harness
