#pragma once
// SqlConnection and SqlDatabase on an embedded SQLite file (WAL). Prepared statements are
// cached per connection (statement_cache.h); storage failures (a full disk) refuse writes for a
// while with a clear 503 (storage_health.h).
#include <sqlite3.h>

#include <chrono>
#include <memory>
#include <string>

#include "master/db/sql/pooled_database.h"
#include "master/db/sql/sql_connection.h"
#include "master/db/sqlite/storage_health.h"

namespace det::master {

class SqliteConnection : public SqlConnection {
 public:
  // Opens (creating if needed) the database at `path` (":memory:" too).
  static absl::StatusOr<std::unique_ptr<SqliteConnection>> Open(
      const std::string& path, std::chrono::milliseconds storage_retry_interval = std::chrono::seconds(1));
  ~SqliteConnection() override;

  SqlDialect dialect() const override { return SqlDialect::kSqlite; }
  absl::StatusOr<SqlStatement> Prepare(const std::string& sql) override;
  absl::Status Exec(const std::string& sql) override;
  absl::Status BeginWrite() override { return Exec("BEGIN IMMEDIATE"); }

  sqlite3* handle() const { return db_; }
  const StorageHealth& health() const { return health_; }

 private:
  SqliteConnection(sqlite3* db, const std::string& path, std::chrono::milliseconds retry)
      : db_(db), health_(path, retry) {}
  sqlite3* db_;
  StorageHealth health_;
};

// Readers have connections of their own: WAL lets them read while the writer writes.
class SqliteDatabase : public PooledSqlDatabase {
 public:
  static absl::StatusOr<std::unique_ptr<SqliteDatabase>> Open(const std::string& path, int max_readers = 4);
  SqlDialect dialect() const override { return SqlDialect::kSqlite; }
  // An exclusive lock on PATH.lock (holding the claimant's pid), released when the process ends.
  absl::Status ClaimForMaster() override;
  std::string Describe() const override { return path_; }
  ~SqliteDatabase() override;

 private:
  SqliteDatabase(std::string path, int max_readers, std::unique_ptr<SqliteConnection> writer)
      : PooledSqlDatabase(std::move(writer), max_readers), path_(std::move(path)) {}
  std::unique_ptr<SqlConnection> OpenConnection() override {
    absl::StatusOr<std::unique_ptr<SqliteConnection>> reader = SqliteConnection::Open(path_);
    return reader.ok() ? std::move(*reader) : nullptr;
  }

  const std::string path_;
  int claim_fd_ = -1;
};

}  // namespace det::master
