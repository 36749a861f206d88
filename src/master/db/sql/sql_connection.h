#pragma once
// The few things the store needs from a SQL database, the same over SQLite and PostgreSQL: prepared
// statements with typed binds and columns, transactions, and errors mapped to status codes by the
// database's error code (never its message text):
//   AlreadyExists  a unique or primary key constraint was violated
//   Unavailable    the database cannot be reached or written now (HTTP 503; callers retry)
//   Internal       anything else, with the database's message
// SQL is written once, with `?` (or `?N`) placeholders; sql_dialect.h has the few spellings that differ.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::master {

enum class SqlDialect { kSqlite, kPostgres };

// What a result column holds in the current row.
enum class SqlValueType { kNull, kInt, kDouble, kText, kBlob };

// One execution of a prepared statement: binds (1-based), then rows (columns 0-based).
class SqlStatementImpl {
 public:
  virtual ~SqlStatementImpl() = default;
  virtual void BindInt(int i, int64_t v) = 0;
  virtual void BindDouble(int i, double v) = 0;
  virtual void BindText(int i, std::string_view v) = 0;
  virtual void BindBlob(int i, std::string_view v) = 0;
  virtual void BindNull(int i) = 0;
  // A whole column as one parameter, for `unnest(?::bigint[], ?::text[], ...)` on PostgreSQL. SQLite
  // has no array parameters: there the statement's Step fails with InvalidArgument.
  virtual void BindIntArray(int i, std::span<const int64_t> v) = 0;
  virtual void BindTextArray(int i, std::span<const std::string_view> v) = 0;
  // Runs the statement on the first call; true while a row is available.
  virtual absl::StatusOr<bool> Step() = 0;
  // Ready to run again with new binds.
  virtual void Reset() = 0;
  // Rows changed by the last run of an INSERT, UPDATE or DELETE.
  virtual int64_t Changes() const = 0;
  virtual bool IsNull(int col) const = 0;
  virtual int64_t Int(int col) const = 0;
  virtual double Double(int col) const = 0;
  virtual std::string Text(int col) const = 0;  // text or blob
  virtual int ColumnCount() const = 0;
  virtual std::string ColumnName(int col) const = 0;
  virtual SqlValueType Type(int col) const = 0;
};

// A prepared statement with chained binds: `s.Bind(1, id).Bind(2, name)`.
class SqlStatement {
 public:
  explicit SqlStatement(std::unique_ptr<SqlStatementImpl> impl) : impl_(std::move(impl)) {}

  SqlStatement& Bind(int i, int64_t v) { return impl_->BindInt(i, v), *this; }
  SqlStatement& Bind(int i, int v) { return Bind(i, static_cast<int64_t>(v)); }
  SqlStatement& Bind(int i, double v) { return impl_->BindDouble(i, v), *this; }
  SqlStatement& Bind(int i, const std::string& v) { return impl_->BindText(i, v), *this; }
  SqlStatement& BindBlob(int i, const std::string& v) { return impl_->BindBlob(i, v), *this; }
  SqlStatement& BindNull(int i) { return impl_->BindNull(i), *this; }
  SqlStatement& BindArray(int i, std::span<const int64_t> v) { return impl_->BindIntArray(i, v), *this; }
  SqlStatement& BindArray(int i, std::span<const std::string_view> v) { return impl_->BindTextArray(i, v), *this; }
  template <class T>
  SqlStatement& Bind(int i, const std::optional<T>& v) {
    return v ? Bind(i, *v) : BindNull(i);
  }

  absl::StatusOr<bool> Step() { return impl_->Step(); }
  absl::Status Run() {
    auto r = Step();
    return r.ok() ? absl::OkStatus() : r.status();
  }
  void Reset() { impl_->Reset(); }
  int64_t Changes() const { return impl_->Changes(); }

  bool IsNull(int col) const { return impl_->IsNull(col); }
  int64_t Int(int col) const { return impl_->Int(col); }
  double Double(int col) const { return impl_->Double(col); }
  std::string Text(int col) const { return impl_->Text(col); }
  int ColumnCount() const { return impl_->ColumnCount(); }
  std::string ColumnName(int col) const { return impl_->ColumnName(col); }
  SqlValueType Type(int col) const { return impl_->Type(col); }
  std::optional<int64_t> OptInt(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col));
  }

 private:
  std::unique_ptr<SqlStatementImpl> impl_;
};

// One connection; used by one thread at a time (SqlDatabase hands them out).
class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual SqlDialect dialect() const = 0;
  virtual absl::StatusOr<SqlStatement> Prepare(const std::string& sql) = 0;
  // Runs one or more statements without binds (migrations, BEGIN, COMMIT).
  virtual absl::Status Exec(const std::string& sql) = 0;
  // Starts a transaction that writes: once begun, no other writer runs until it ends.
  virtual absl::Status BeginWrite() = 0;

  // SqlTransactions open on this connection (SqlTransaction keeps it).
  int open_transactions = 0;
};

// BeginWrite ... Commit, rolled back unless Commit() is called. Inside another SqlTransaction on the
// same connection it is a savepoint: its rollback undoes only its own work, and its commit becomes
// part of the outer transaction's.
class SqlTransaction {
 public:
  explicit SqlTransaction(SqlConnection& db) : db_(db) {}
  SqlTransaction(const SqlTransaction&) = delete;
  SqlTransaction& operator=(const SqlTransaction&) = delete;
  absl::Status Begin() {
    nested_ = db_.open_transactions > 0;
    absl::Status status = nested_ ? db_.Exec("SAVEPOINT nested") : db_.BeginWrite();
    if (status.ok()) {
      open_ = true;
      ++db_.open_transactions;
    }
    return status;
  }
  absl::Status Commit() {
    Close();
    return db_.Exec(nested_ ? "RELEASE SAVEPOINT nested" : "COMMIT");
  }
  ~SqlTransaction() {
    if (!open_) return;
    Close();
    (void)db_.Exec(nested_ ? "ROLLBACK TO SAVEPOINT nested; RELEASE SAVEPOINT nested" : "ROLLBACK");
  }

 private:
  void Close() {
    if (open_) --db_.open_transactions;
    open_ = false;
  }

  SqlConnection& db_;
  bool nested_ = false;
  bool open_ = false;
};

// A connection borrowed from a SqlDatabase, given back when the lease goes.
class SqlLease {
 public:
  SqlLease(SqlConnection* connection, std::function<void()> give_back)
      : connection_(connection), give_back_(std::move(give_back)) {}
  SqlLease(SqlLease&& o) noexcept : connection_(o.connection_), give_back_(std::move(o.give_back_)) {
    o.give_back_ = nullptr;
  }
  SqlLease& operator=(SqlLease&&) = delete;
  ~SqlLease() {
    if (give_back_) give_back_();
  }
  SqlConnection& operator*() const { return *connection_; }
  SqlConnection* operator->() const { return connection_; }

 private:
  SqlConnection* connection_;
  std::function<void()> give_back_;
};

// The connections of one database. Writes go through one connection at a time (SQLite serializes
// writers anyway; on PostgreSQL it gives the same guarantees: each write transaction sees every
// earlier one); reads may use others. Where the database allows it (PostgreSQL), a few side writers
// commit beside the writer, for writes whose rows no other writer changes at the same time.
class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;
  virtual SqlDialect dialect() const = 0;
  virtual SqlLease Writer() = 0;
  virtual SqlLease Reader() = 0;
  // How many side writers there are: 0 when writes must all go through Writer() (SQLite).
  virtual int SideWriters() const = 0;
  // Side writer `lane` (0 <= lane < SideWriters()), one holder at a time.
  virtual SqlLease SideWriter(int lane) = 0;
  // Marks the database as used by this process until it closes the database: one master per
  // database, and `determined-master db copy` refuses a database a master is using.
  // FailedPrecondition when another process holds it.
  virtual absl::Status ClaimForMaster() = 0;
  // For messages: the SQLite file, or postgres://user@host:port/name.
  virtual std::string Describe() const = 0;
};

}  // namespace det::master
