#pragma once
// A thin RAII wrapper over sqlite3_stmt with typed binds and columns. Used only inside db/.
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "master/db/statement_cache.h"
#include "master/db/storage_health.h"

namespace det::master {

class SqliteStatement {
 public:
  // Reuses an idle statement of the same SQL when the connection caches them (statement_cache.h).
  static absl::StatusOr<SqliteStatement> Prepare(sqlite3* db, const char* sql) {
    if (sqlite3_stmt* cached = TakeCachedStatement(db, sql)) return SqliteStatement(db, cached);
    sqlite3_stmt* stmt = nullptr;
    if (int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr); rc != SQLITE_OK) {
      return SqliteFailure(db, rc, absl::StrCat("prepare of ", sql));
    }
    return SqliteStatement(db, stmt);
  }
  SqliteStatement(SqliteStatement&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  ~SqliteStatement() {
    if (stmt_ != nullptr && !KeepStatement(db_, stmt_)) sqlite3_finalize(stmt_);
  }

  SqliteStatement& Bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  SqliteStatement& Bind(int i, int v) { return Bind(i, static_cast<int64_t>(v)); }
  SqliteStatement& Bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  SqliteStatement& Bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  SqliteStatement& BindBlob(int i, const std::string& v) {
    sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  SqliteStatement& BindNull(int i) {
    sqlite3_bind_null(stmt_, i);
    return *this;
  }
  template <class T>
  SqliteStatement& Bind(int i, const std::optional<T>& v) {
    return v ? Bind(i, *v) : BindNull(i);
  }

  // True when a row is available, false when done.
  absl::StatusOr<bool> Step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) {
      if (!sqlite3_stmt_readonly(stmt_)) SqliteWriteDone(db_);
      return false;
    }
    return SqliteFailure(db_, rc, "step");
  }
  // Clears bindings' results so the statement can run again with new binds.
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  absl::Status Run() {
    auto r = Step();
    return r.ok() ? absl::OkStatus() : r.status();
  }

  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string Text(int col) const {
    const void* p = sqlite3_column_blob(stmt_, col);
    int n = sqlite3_column_bytes(stmt_, col);
    return p == nullptr ? std::string() : std::string(static_cast<const char*>(p), static_cast<size_t>(n));
  }
  std::optional<int64_t> OptInt(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col));
  }

 private:
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

}  // namespace det::master
