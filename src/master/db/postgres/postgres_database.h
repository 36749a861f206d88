#pragma once
// SqlConnection and SqlDatabase on PostgreSQL through libpq (docs/decisions.md: why libpq).
//  - Statements are prepared once per connection and kept by their SQL text (`?` and `?N`
//    placeholders become `$N`); binds travel as text, blobs as binary.
//  - Writes go through one connection at a time, as on SQLite; reads use a small pool; metrics are
//    committed by two side writers, each for its own trials.
//  - A connection that breaks is opened again on its next use, except inside a transaction, which
//    fails (Unavailable) until it is rolled back: nothing of it can run outside it.
//  - Errors by SQLSTATE: 23505 AlreadyExists; 40P01, 40001 and 55P03 (a deadlock, a serialization
//    failure, a row locked under NOWAIT) Aborted; connection failures Unavailable ("database is
//    unreachable"); anything else Internal.
#include <memory>
#include <string>

#include "master/db/sql/pooled_database.h"
#include "master/db/sql/sql_connection.h"

namespace det::master {

class PostgresConnection : public SqlConnection {
 public:
  // Connects with a libpq connection string ("host=... port=... dbname=..." or a postgres:// URL).
  // A connection that fails is still made: it tries again on each use (Healthy says why not).
  static std::unique_ptr<PostgresConnection> Connect(const std::string& conninfo);
  // OK when connected (connecting again first if the connection broke); else Unavailable.
  absl::Status Healthy();
  ~PostgresConnection() override;

  SqlDialect dialect() const override { return SqlDialect::kPostgres; }
  absl::StatusOr<SqlStatement> Prepare(const std::string& sql) override;
  absl::Status Exec(const std::string& sql) override;
  absl::Status BeginWrite() override { return Exec("BEGIN"); }
  // postgres://user@host:port/name
  std::string Address() const;

  struct Impl;

 private:
  explicit PostgresConnection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// `sql` with `?` and `?N` placeholders written as `$N` (quoted text left alone), and how many
// parameters it takes (the highest N).
struct PostgresSql {
  std::string text;
  int params = 0;
};
PostgresSql ToPostgresPlaceholders(const std::string& sql);

class PostgresDatabase : public PooledSqlDatabase {
 public:
  // Opens the writer at once (so a wrong address fails at start); readers as they are needed.
  static absl::StatusOr<std::unique_ptr<PostgresDatabase>> Open(const std::string& conninfo, int max_readers = 4);
  SqlDialect dialect() const override { return SqlDialect::kPostgres; }
  // A session advisory lock held on a connection of its own while the database is open.
  absl::Status ClaimForMaster() override;
  std::string Describe() const override { return address_; }

 private:
  // Two side writers: one connection's server process commits about 77,000 metric rows a second
  // (bench/RESULTS.md), short of the ingestion goal.
  static constexpr int kSideWriters = 2;

  PostgresDatabase(std::string conninfo, int max_readers, std::unique_ptr<PostgresConnection> writer)
      : PooledSqlDatabase(nullptr, max_readers, kSideWriters),
        conninfo_(std::move(conninfo)),
        address_(writer->Address()) {
    SetWriter(std::move(writer));
  }
  std::unique_ptr<SqlConnection> OpenConnection() override { return PostgresConnection::Connect(conninfo_); }

  const std::string conninfo_;
  const std::string address_;
  std::unique_ptr<PostgresConnection> claim_;  // holds the advisory lock
};

}  // namespace det::master
