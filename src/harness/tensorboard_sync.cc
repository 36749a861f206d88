#include "harness/tensorboard_sync.h"

#include <sys/stat.h>

#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"
#include "storage/checkpoint_resources.h"

namespace det::harness {
namespace fs = std::filesystem;

absl::StatusOr<std::unique_ptr<TensorboardSync>> TensorboardSync::Create(
    std::shared_ptr<storage::StorageManager> storage, fs::path local_dir,
    const std::string& key_prefix) {
  if (storage == nullptr) return absl::InvalidArgumentError("TensorBoard sync: no storage given");
  ASSIGN_OR_RETURN(std::string prefix, storage::NormalizeKeyPrefix(key_prefix));
  return std::unique_ptr<TensorboardSync>(
      new TensorboardSync(std::move(storage), std::move(local_dir), std::move(prefix)));
}

TensorboardSync::TensorboardSync(std::shared_ptr<storage::StorageManager> storage,
                                 fs::path local_dir, std::string key_prefix)
    : storage_(std::move(storage)),
      local_dir_(std::move(local_dir)),
      key_prefix_(std::move(key_prefix)) {}

TensorboardSync::~TensorboardSync() {
  absl::Status s = Close();
  if (!s.ok()) spdlog::warn("TensorBoard sync: {}", s.ToString());
}

absl::StatusOr<int> TensorboardSync::SyncNow() {
  std::vector<FileToUpload> files;
  std::error_code ec;
  if (fs::is_directory(local_dir_, ec)) {
    auto resources = storage::ListResources(local_dir_);
    if (!resources.ok() && !absl::IsNotFound(resources.status())) return resources.status();
    if (resources.ok()) {
      for (const auto& [rel, size] : *resources) {
        if (!absl::EndsWith(rel, "/")) files.push_back({local_dir_ / rel, rel});
      }
    }
  }
  return SyncFiles(files);
}

absl::StatusOr<int> TensorboardSync::SyncFiles(const std::vector<FileToUpload>& files) {
  for (const FileToUpload& f : files) RETURN_IF_ERROR(storage::ValidateRelativeKey(f.name));
  absl::MutexLock sync_lock(&sync_mu_);
  int uploaded = 0;
  int64_t bytes = 0;
  absl::Status status;
  for (const FileToUpload& f : files) {
    struct stat st;
    if (::stat(f.local.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // gone, or not a file
    LocalVersion now{static_cast<int64_t>(st.st_size),
                     static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                     st.st_ino};
    auto it = uploaded_.find(f.name);
    if (it != uploaded_.end() && it->second == now) continue;
    // The stat comes before the upload: a file that grows meanwhile differs next time and goes
    // again.
    absl::Status s = storage_->UploadFile(f.local, key_prefix_, f.name);
    if (!s.ok()) {
      std::error_code ec;
      if (absl::IsNotFound(s) && !fs::exists(f.local, ec)) continue;  // removed since the stat
      status = s;
      break;
    }
    uploaded_[f.name] = now;
    ++uploaded;
    bytes += now.size;
  }
  {
    absl::MutexLock lock(&mu_);
    ++stats_.syncs;
    stats_.files_uploaded += uploaded;
    stats_.bytes_uploaded += bytes;
  }
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat("syncing TensorBoard files from ",
                                                    local_dir_.string(), ": ", status.message()));
  }
  return uploaded;
}

absl::Status TensorboardSync::RequestSync() {
  absl::MutexLock lock(&mu_);
  if (closed_) {
    return absl::FailedPreconditionError("TensorBoard sync: RequestSync() after Close()");
  }
  requested_ = true;
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
  return TakeErrorLocked();
}

void TensorboardSync::Run() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &TensorboardSync::WorkOrStop));
      if (!requested_) return;  // stopping, nothing asked for
      requested_ = false;
      busy_ = true;
    }
    absl::StatusOr<int> r = SyncNow();
    absl::MutexLock lock(&mu_);
    busy_ = false;
    if (!r.ok() && error_.ok()) error_ = r.status();
  }
}

absl::Status TensorboardSync::Flush() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(this, &TensorboardSync::Idle));
  return TakeErrorLocked();
}

absl::Status TensorboardSync::Close() {
  std::thread thread;
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    stopping_ = true;
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();  // the thread finishes a requested sync first
  absl::MutexLock lock(&mu_);
  return TakeErrorLocked();
}

TensorboardSync::Stats TensorboardSync::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

absl::Status TensorboardSync::TakeErrorLocked() { return std::exchange(error_, absl::OkStatus()); }

}  // namespace det::harness
