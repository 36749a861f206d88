#include "master/db/postgres/postgres_database.h"

#include <libpq-fe.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::master {
namespace {

constexpr Oid kByteaOid = 17;
constexpr Oid kBoolOid = 16;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kTextOid = 25;
// Statements kept per connection; queries with IN lists have as many texts as list lengths.
constexpr size_t kMaxPreparedStatements = 512;

std::string Trimmed(const char* message) {
  std::string m = message == nullptr ? "" : message;
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

bool IsConnectionSqlState(const std::string& code) {
  // Class 08: connection exceptions; 57P01..57P03: the server shuts down or cannot take connections.
  return absl::StartsWith(code, "08") || code == "57P01" || code == "57P02" || code == "57P03";
}

void AppendBigEndian32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

void AppendBigEndian64(std::string& out, uint64_t v) {
  AppendBigEndian32(out, static_cast<uint32_t>(v >> 32));
  AppendBigEndian32(out, static_cast<uint32_t>(v));
}

// The binary wire form of a one-dimensional array without NULLs (what the server's array_recv reads):
// dimensions, a has-NULLs flag, the element type, the length and lower bound, then each element as its
// length and its binary form.
std::string ArrayHeader(Oid element, size_t n, size_t payload) {
  std::string out;
  out.reserve(20 + payload);
  AppendBigEndian32(out, n == 0 ? 0 : 1);
  AppendBigEndian32(out, 0);
  AppendBigEndian32(out, element);
  if (n > 0) {
    AppendBigEndian32(out, static_cast<uint32_t>(n));
    AppendBigEndian32(out, 1);
  }
  return out;
}

std::string BinaryArray(std::span<const int64_t> values) {
  std::string out = ArrayHeader(kInt8Oid, values.size(), values.size() * 12);
  for (int64_t v : values) {
    AppendBigEndian32(out, 8);
    AppendBigEndian64(out, static_cast<uint64_t>(v));
  }
  return out;
}

std::string BinaryArray(std::span<const std::string_view> values) {
  size_t payload = 0;
  for (std::string_view v : values) payload += 4 + v.size();
  std::string out = ArrayHeader(kTextOid, values.size(), payload);
  for (std::string_view v : values) {
    AppendBigEndian32(out, static_cast<uint32_t>(v.size()));
    out.append(v);
  }
  return out;
}

}  // namespace

struct PostgresConnection::Impl {
  std::string conninfo;
  PGconn* conn = nullptr;
  struct Prepared {
    std::string name;
    int params = 0;
  };
  std::unordered_map<std::string, Prepared> prepared;  // by SQL text
  int next_statement = 0;
  bool in_transaction = false;

  ~Impl() {
    if (conn != nullptr) PQfinish(conn);
  }

  absl::Status Unreachable() const {
    return absl::UnavailableError(absl::StrCat("database is unreachable: ", Trimmed(PQerrorMessage(conn))));
  }

  absl::Status Healthy() {
    if (PQstatus(conn) == CONNECTION_OK) return absl::OkStatus();
    // Inside a transaction the work so far is gone with the connection: fail until ROLLBACK.
    if (in_transaction) return Unreachable();
    PQreset(conn);
    prepared.clear();
    if (PQstatus(conn) != CONNECTION_OK) return Unreachable();
    return absl::OkStatus();
  }

  // How `sql` is prepared on this session (its name and parameter count), preparing it first if needed.
  absl::StatusOr<Prepared> Prepare(const std::string& sql);

  // The status of a finished command; clears `res` on failure.
  absl::Status Check(PGresult* res, const std::string& what) {
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return absl::OkStatus();
    const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    std::string code = state == nullptr ? "" : state;
    std::string message = Trimmed(res != nullptr ? PQresultErrorMessage(res) : PQerrorMessage(conn));
    if (res != nullptr) PQclear(res);
    if (code == "23505") return absl::AlreadyExistsError(message);
    // A deadlock, a serialization failure or a row locked under NOWAIT: worth trying again.
    if (code == "40P01" || code == "40001" || code == "55P03") return absl::AbortedError(message);
    if (PQstatus(conn) != CONNECTION_OK || IsConnectionSqlState(code)) {
      return absl::UnavailableError(absl::StrCat("database is unreachable: ", message));
    }
    return absl::InternalError(absl::StrCat("postgres ", what, ": ", message));
  }
};

namespace {

class PostgresStatementImpl : public SqlStatementImpl {
 public:
  PostgresStatementImpl(PostgresConnection::Impl* connection, std::string sql, int params)
      : connection_(connection), sql_(std::move(sql)), values_(params), formats_(params, 0) {}
  ~PostgresStatementImpl() override { Clear(); }

  void BindInt(int i, int64_t v) override { Set(i, std::to_string(v), 0); }
  void BindDouble(int i, double v) override {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    Set(i, std::string(buf, end), 0);
  }
  void BindText(int i, std::string_view v) override { Set(i, std::string(v), 0); }
  void BindBlob(int i, std::string_view v) override { Set(i, std::string(v), 1); }
  void BindIntArray(int i, std::span<const int64_t> v) override { Set(i, BinaryArray(v), 1); }
  void BindTextArray(int i, std::span<const std::string_view> v) override { Set(i, BinaryArray(v), 1); }
  void BindNull(int i) override {
    if (i >= 1 && i <= static_cast<int>(values_.size())) values_[i - 1].reset();
  }

  absl::StatusOr<bool> Step() override {
    if (result_ == nullptr) {
      ASSIGN_OR_RETURN(PGresult * res, Execute());
      result_ = res;
      rows_ = PQntuples(res);
      row_ = -1;
      const char* changed = PQcmdTuples(res);
      changes_ = 0;
      if (changed != nullptr && *changed != '\0') (void)absl::SimpleAtoi(changed, &changes_);
    }
    return ++row_ < rows_;
  }
  void Reset() override {
    Clear();
    for (auto& v : values_) v.reset();
    std::fill(formats_.begin(), formats_.end(), 0);
  }
  int64_t Changes() const override { return changes_; }

  bool IsNull(int col) const override { return PQgetisnull(result_, row_, col) != 0; }
  int64_t Int(int col) const override {
    const char* v = PQgetvalue(result_, row_, col);
    if (PQftype(result_, col) == kBoolOid) return v[0] == 't' ? 1 : 0;
    int64_t out = 0;
    if (absl::SimpleAtoi(v, &out)) return out;
    return static_cast<int64_t>(std::strtod(v, nullptr));  // numeric (sum of bigints)
  }
  double Double(int col) const override { return std::strtod(PQgetvalue(result_, row_, col), nullptr); }
  int ColumnCount() const override { return result_ == nullptr ? 0 : PQnfields(result_); }
  std::string ColumnName(int col) const override { return PQfname(result_, col); }
  SqlValueType Type(int col) const override {
    if (PQgetisnull(result_, row_, col) != 0) return SqlValueType::kNull;
    switch (PQftype(result_, col)) {
      case kBoolOid:
      case kInt2Oid:
      case kInt4Oid:
      case kInt8Oid: return SqlValueType::kInt;
      case kFloat4Oid:
      case kFloat8Oid: return SqlValueType::kDouble;
      case kByteaOid: return SqlValueType::kBlob;
      default: return SqlValueType::kText;
    }
  }
  std::string Text(int col) const override {
    const char* v = PQgetvalue(result_, row_, col);
    if (PQftype(result_, col) != kByteaOid) return std::string(v, static_cast<size_t>(PQgetlength(result_, row_, col)));
    size_t n = 0;
    unsigned char* bytes = PQunescapeBytea(reinterpret_cast<const unsigned char*>(v), &n);
    std::string out(reinterpret_cast<const char*>(bytes), n);
    PQfreemem(bytes);
    return out;
  }

 private:
  void Set(int i, std::string v, int format) {
    if (i < 1 || i > static_cast<int>(values_.size())) return;
    values_[i - 1] = std::move(v);
    formats_[i - 1] = format;
  }
  void Clear() {
    if (result_ != nullptr) PQclear(result_);
    result_ = nullptr;
    rows_ = 0;
    row_ = -1;
  }

  // Runs the statement. A query whose connection broke outside a transaction runs once more on a
  // new one; a write does not (it may have been committed before the connection went), and fails
  // with Unavailable for its caller to retry.
  absl::StatusOr<PGresult*> Execute() {
    absl::StatusOr<PGresult*> res = ExecuteOnce();
    if (!absl::IsUnavailable(res.status()) || connection_->in_transaction || !IsQuery()) return res;
    return ExecuteOnce();
  }
  absl::StatusOr<PGresult*> ExecuteOnce() {
    RETURN_IF_ERROR(connection_->Healthy());
    ASSIGN_OR_RETURN(PostgresConnection::Impl::Prepared prepared, connection_->Prepare(sql_));
    std::vector<const char*> values(values_.size());
    std::vector<int> lengths(values_.size());
    for (size_t i = 0; i < values_.size(); ++i) {
      values[i] = values_[i] ? values_[i]->data() : nullptr;
      lengths[i] = values_[i] ? static_cast<int>(values_[i]->size()) : 0;
    }
    PGresult* res = PQexecPrepared(connection_->conn, prepared.name.c_str(), static_cast<int>(values.size()),
                                   values.data(), lengths.data(), formats_.data(), 0);
    RETURN_IF_ERROR(connection_->Check(res, "statement"));
    return res;
  }
  bool IsQuery() const { return absl::StartsWithIgnoreCase(sql_, "SELECT"); }

  PostgresConnection::Impl* connection_;
  std::string sql_;
  std::vector<std::optional<std::string>> values_;
  std::vector<int> formats_;
  PGresult* result_ = nullptr;
  int rows_ = 0;
  int row_ = -1;
  int64_t changes_ = 0;
};

void IgnoreNotice(void*, const char*) {}

}  // namespace

PostgresSql ToPostgresPlaceholders(const std::string& sql) {
  PostgresSql out;
  out.text.reserve(sql.size() + 16);
  int next = 1;
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (quote != 0) {
      out.text += c;
      if (c == quote) quote = 0;  // a doubled quote closes and opens again: same result
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out.text += c;
      continue;
    }
    if (c != '?') {
      out.text += c;
      continue;
    }
    size_t digits = i + 1;
    int number = 0;
    for (; digits < sql.size() && sql[digits] >= '0' && sql[digits] <= '9'; ++digits) {
      number = number * 10 + (sql[digits] - '0');
    }
    if (digits == i + 1) number = next++;
    i = digits - 1;
    absl::StrAppend(&out.text, "$", number);
    out.params = std::max(out.params, number);
  }
  return out;
}

absl::StatusOr<PostgresConnection::Impl::Prepared> PostgresConnection::Impl::Prepare(const std::string& sql) {
  auto it = prepared.find(sql);
  if (it != prepared.end()) return it->second;
  // Beyond the cap, the unnamed statement (prepared again each time).
  bool keep = prepared.size() < kMaxPreparedStatements;
  PostgresSql translated = ToPostgresPlaceholders(sql);
  Prepared statement{keep ? absl::StrCat("s", next_statement++) : "", translated.params};
  PGresult* res = PQprepare(conn, statement.name.c_str(), translated.text.c_str(), 0, nullptr);
  RETURN_IF_ERROR(Check(res, absl::StrCat("prepare of ", sql)));
  PQclear(res);
  if (keep) prepared.emplace(sql, statement);
  return statement;
}

PostgresConnection::PostgresConnection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PostgresConnection::~PostgresConnection() = default;

std::unique_ptr<PostgresConnection> PostgresConnection::Connect(const std::string& conninfo) {
  auto impl = std::make_unique<Impl>();
  impl->conninfo = conninfo;
  impl->conn = PQconnectdb(conninfo.c_str());
  PQsetNoticeProcessor(impl->conn, IgnoreNotice, nullptr);
  return std::unique_ptr<PostgresConnection>(new PostgresConnection(std::move(impl)));
}

absl::Status PostgresConnection::Healthy() { return impl_->Healthy(); }

std::string PostgresConnection::Address() const {
  const char* user = PQuser(impl_->conn);
  return absl::StrCat("postgres://", user != nullptr && *user != '\0' ? absl::StrCat(user, "@") : "",
                      PQhost(impl_->conn) != nullptr ? PQhost(impl_->conn) : "", ":",
                      PQport(impl_->conn) != nullptr ? PQport(impl_->conn) : "", "/",
                      PQdb(impl_->conn) != nullptr ? PQdb(impl_->conn) : "");
}

absl::StatusOr<SqlStatement> PostgresConnection::Prepare(const std::string& sql) {
  auto prepare = [&]() -> absl::StatusOr<Impl::Prepared> {
    RETURN_IF_ERROR(impl_->Healthy());
    return impl_->Prepare(sql);  // errors in the SQL show here
  };
  absl::StatusOr<Impl::Prepared> prepared = prepare();
  // A connection the server dropped since its last use (it restarted) shows it here first; nothing
  // was sent, so outside a transaction it is prepared again on a new one.
  if (absl::IsUnavailable(prepared.status()) && !impl_->in_transaction) prepared = prepare();
  if (!prepared.ok()) return prepared.status();
  const int params = prepared->params;
  return SqlStatement(std::make_unique<PostgresStatementImpl>(impl_.get(), sql, params));
}

absl::Status PostgresConnection::Exec(const std::string& sql) {
  bool ends_transaction = sql == "COMMIT" || sql == "ROLLBACK";
  if (ends_transaction && PQstatus(impl_->conn) != CONNECTION_OK) {
    impl_->in_transaction = false;  // nothing to end: the server rolled it back with the connection
    return sql == "ROLLBACK" ? absl::OkStatus() : impl_->Unreachable();
  }
  auto exec = [&]() -> absl::Status {
    RETURN_IF_ERROR(impl_->Healthy());
    PGresult* res = PQexec(impl_->conn, sql.c_str());
    absl::Status st = impl_->Check(res, "exec");
    if (st.ok()) PQclear(res);
    return st;
  };
  absl::Status st = exec();
  // A transaction begun on a connection the server dropped begins again on a new one.
  if (sql == "BEGIN" && absl::IsUnavailable(st) && !impl_->in_transaction) st = exec();
  if (sql == "BEGIN" && st.ok()) impl_->in_transaction = true;
  if (ends_transaction) impl_->in_transaction = false;
  return st;
}

absl::StatusOr<std::unique_ptr<PostgresDatabase>> PostgresDatabase::Open(const std::string& conninfo,
                                                                        int max_readers) {
  std::unique_ptr<PostgresConnection> writer = PostgresConnection::Connect(conninfo);
  RETURN_IF_ERROR(writer->Healthy());
  return std::unique_ptr<PostgresDatabase>(new PostgresDatabase(conninfo, max_readers, std::move(writer)));
}

absl::Status PostgresDatabase::ClaimForMaster() {
  if (claim_ != nullptr) return absl::OkStatus();
  std::unique_ptr<PostgresConnection> claim = PostgresConnection::Connect(conninfo_);
  // The key spells "det-mast" in ASCII.
  ASSIGN_OR_RETURN(SqlStatement s, claim->Prepare("SELECT pg_try_advisory_lock(7234316145208652148)"));
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row || s.Int(0) == 0) {
    return absl::FailedPreconditionError(absl::StrCat("a master is using ", address_));
  }
  claim_ = std::move(claim);
  return absl::OkStatus();
}

}  // namespace det::master
