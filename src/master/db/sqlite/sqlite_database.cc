#include "master/db/sqlite/sqlite_database.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "master/db/sqlite/sqlite_regexp.h"
#include "master/db/sqlite/statement_cache.h"

namespace det::master {
namespace {

// A failed step or exec as a status: constraint violations by code, storage failures as the watcher's.
absl::Status Failure(sqlite3* db, int rc, const std::string& what) {
  int extended = sqlite3_extended_errcode(db);
  if (extended == SQLITE_CONSTRAINT_UNIQUE || extended == SQLITE_CONSTRAINT_PRIMARYKEY) {
    return absl::AlreadyExistsError(sqlite3_errmsg(db));
  }
  return SqliteFailure(db, rc, what);
}

class SqliteStatementImpl : public SqlStatementImpl {
 public:
  SqliteStatementImpl(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~SqliteStatementImpl() override {
    if (!KeepStatement(db_, stmt_)) sqlite3_finalize(stmt_);
  }

  void BindInt(int i, int64_t v) override { sqlite3_bind_int64(stmt_, i, v); }
  void BindDouble(int i, double v) override { sqlite3_bind_double(stmt_, i, v); }
  void BindText(int i, std::string_view v) override {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void BindBlob(int i, std::string_view v) override {
    sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void BindNull(int i) override { sqlite3_bind_null(stmt_, i); }
  void BindIntArray(int i, std::span<const int64_t>) override { NoArrays(i); }
  void BindTextArray(int i, std::span<const std::string_view>) override { NoArrays(i); }

  absl::StatusOr<bool> Step() override {
    if (!bind_error_.ok()) return bind_error_;
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) {
      changes_ = sqlite3_stmt_readonly(stmt_) ? 0 : sqlite3_changes64(db_);
      if (!sqlite3_stmt_readonly(stmt_)) SqliteWriteDone(db_);
      return false;
    }
    return Failure(db_, rc, "step");
  }
  void Reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    bind_error_ = absl::OkStatus();
  }
  int64_t Changes() const override { return changes_; }

  bool IsNull(int col) const override { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t Int(int col) const override { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const override { return sqlite3_column_double(stmt_, col); }
  int ColumnCount() const override { return sqlite3_column_count(stmt_); }
  std::string ColumnName(int col) const override { return sqlite3_column_name(stmt_, col); }
  SqlValueType Type(int col) const override {
    switch (sqlite3_column_type(stmt_, col)) {
      case SQLITE_NULL: return SqlValueType::kNull;
      case SQLITE_INTEGER: return SqlValueType::kInt;
      case SQLITE_FLOAT: return SqlValueType::kDouble;
      case SQLITE_BLOB: return SqlValueType::kBlob;
      default: return SqlValueType::kText;
    }
  }
  std::string Text(int col) const override {
    const void* p = sqlite3_column_blob(stmt_, col);
    int n = sqlite3_column_bytes(stmt_, col);
    return p == nullptr ? std::string() : std::string(static_cast<const char*>(p), static_cast<size_t>(n));
  }

 private:
  void NoArrays(int i) {
    bind_error_ = absl::InvalidArgumentError(absl::StrCat("parameter ", i, ": SQLite has no array parameters"));
  }

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int64_t changes_ = 0;
  absl::Status bind_error_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(const std::string& path,
                                                                        std::chrono::milliseconds retry) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return absl::UnavailableError(absl::StrCat("cannot open database ", path, ": ", msg));
  }
  std::unique_ptr<SqliteConnection> connection(new SqliteConnection(db, path, retry));
  WatchStorage(db, &connection->health_);
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, 5000);
  RETURN_IF_ERROR(RegisterRegexp(db));
  CacheStatements(db);
  RETURN_IF_ERROR(connection->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA wal_autocheckpoint=10000; PRAGMA temp_store=MEMORY;"));
  return connection;
}

SqliteConnection::~SqliteConnection() {
  ForgetStatements(db_);
  UnwatchStorage(db_);
  sqlite3_close(db_);
}

absl::StatusOr<SqlStatement> SqliteConnection::Prepare(const std::string& sql) {
  sqlite3_stmt* stmt = TakeCachedStatement(db_, sql.c_str());
  if (stmt == nullptr) {
    if (int rc = sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr); rc != SQLITE_OK) {
      return Failure(db_, rc, absl::StrCat("prepare of ", sql));
    }
  }
  return SqlStatement(std::make_unique<SqliteStatementImpl>(db_, stmt));
}

absl::Status SqliteConnection::Exec(const std::string& sql) {
  if (int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr); rc != SQLITE_OK) {
    return Failure(db_, rc, "exec");
  }
  if (sql == "COMMIT") SqliteWriteDone(db_);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SqliteDatabase>> SqliteDatabase::Open(const std::string& path, int max_readers) {
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteConnection> writer, SqliteConnection::Open(path));
  return std::unique_ptr<SqliteDatabase>(new SqliteDatabase(path, max_readers, std::move(writer)));
}

absl::Status SqliteDatabase::ClaimForMaster() {
  if (claim_fd_ >= 0) return absl::OkStatus();
  std::string lock_path = path_ + ".lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return absl::UnavailableError(absl::StrCat("cannot open ", lock_path, ": ", std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    std::string pid = n > 0 ? std::string(absl::StripAsciiWhitespace(std::string(buf, static_cast<size_t>(n)))) : "?";
    return absl::FailedPreconditionError(absl::StrCat("a master (pid ", pid, ") is using ", path_));
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    ::close(fd);
    return absl::UnavailableError(absl::StrCat("cannot write ", lock_path, ": ", std::strerror(errno)));
  }
  claim_fd_ = fd;
  return absl::OkStatus();
}

SqliteDatabase::~SqliteDatabase() {
  if (claim_fd_ >= 0) ::close(claim_fd_);
}

}  // namespace det::master
