#pragma once
// SqlConnection and SqlDatabase on an embedded SQLite file (WAL): one connection behind a mutex,
// since SQLite serializes writers anyway and the master's reads are short. Prepared statements are
// cached per connection (statement_cache.h); storage failures (a full disk) refuse writes for a
// while with a clear 503 (storage_health.h).
#include <sqlite3.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

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

class SqliteDatabase : public SqlDatabase {
 public:
  static absl::StatusOr<std::unique_ptr<SqliteDatabase>> Open(const std::string& path);

  SqlDialect dialect() const override { return SqlDialect::kSqlite; }
  SqlLease Writer() override { return Lease(); }
  SqlLease Reader() override { return Lease(); }

 private:
  explicit SqliteDatabase(std::unique_ptr<SqliteConnection> connection) : connection_(std::move(connection)) {}
  SqlLease Lease() {
    mu_.lock();
    return SqlLease(connection_.get(), [this] { mu_.unlock(); });
  }

  std::mutex mu_;
  std::unique_ptr<SqliteConnection> connection_;
};

}  // namespace det::master
