#pragma once
// Whether the master can write its database. A write that fails for a storage reason (disk full,
// an I/O error, storage gone read-only) starts a refusal: for `retry_interval` every new write is
// refused at once with the same clear Unavailable error (HTTP 503, which the harness and agents
// retry), then writes are tried again; the first one that succeeds ends it. Every write is one
// SQLite transaction, so a failed or refused one leaves nothing half-written. Reads go on.
//
// SqliteStore installs it as the connection's authorizer (which refuses) and reports each write's
// outcome through SqliteFailure / SqliteWriteDone.
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

struct sqlite3;

namespace det::master {

class StorageHealth {
 public:
  using Clock = std::chrono::steady_clock;

  explicit StorageHealth(std::string db_path,
                         std::chrono::milliseconds retry_interval = std::chrono::seconds(1));

  // Whether a write may start now: no storage failure within the last retry_interval.
  bool MayStartWrite(Clock::time_point now = Clock::now()) const;
  // A write failed for a storage reason (SQLite's message); starts or extends the refusal.
  void WriteFailed(std::string_view reason, Clock::time_point now = Clock::now());
  // A write was committed: storage works (again).
  void WriteSucceeded();
  // The error for a write that failed or was refused for storage reasons.
  absl::Status Refusal() const;
  // The storage problem while there is one.
  std::optional<std::string> problem() const;

 private:
  const std::string db_path_;
  const std::chrono::milliseconds retry_interval_;
  mutable std::mutex mu_;
  std::optional<std::string> problem_;  // guarded by mu_
  Clock::time_point last_failure_;      // guarded by mu_
};

// Whether SQLite result code `rc` (primary or extended) is a storage failure rather than a bug.
bool IsStorageFailure(int rc);

// Connects `health` to `db`: installs the authorizer that refuses writes during a refusal and lets
// SqliteFailure / SqliteWriteDone find it. `health` must outlive the connection.
void WatchStorage(sqlite3* db, StorageHealth* health);
void UnwatchStorage(sqlite3* db);

// The status for SQLite result `rc` (an error) on `db` while doing `what`: storage failures become
// the watcher's Unavailable (and start a refusal); a write refused by the authorizer gets the same
// error; anything else is Internal with SQLite's message.
absl::Status SqliteFailure(sqlite3* db, int rc, const std::string& what);
// After a write statement or a COMMIT ran to completion on `db`: outside a transaction, that is a
// committed write, which ends a refusal.
void SqliteWriteDone(sqlite3* db);

}  // namespace det::master
