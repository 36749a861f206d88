#include "master/db/db_copy.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/db/migrations.h"
#include "master/db/postgres/postgres_database.h"
#include "master/db/sqlite/sqlite_database.h"

namespace det::master {
namespace {

constexpr int64_t kRowsPerRead = 5000;
constexpr size_t kMaxBindsPerInsert = 30000;  // below SQLite's 32766 and PostgreSQL's 65535

// The table's columns (PostgreSQL's stand-in for SQLite's implicit rowid left out: the destination
// numbers it again in the same order).
absl::StatusOr<std::vector<std::string>> Columns(SqlConnection& db, const std::string& table) {
  ASSIGN_OR_RETURN(SqlStatement s, db.Prepare(absl::StrCat("SELECT * FROM ", table, " LIMIT 0")));
  RETURN_IF_ERROR(s.Run());
  std::vector<std::string> out;
  for (int i = 0; i < s.ColumnCount(); ++i) {
    if (s.ColumnName(i) != "rowid") out.push_back(s.ColumnName(i));
  }
  return out;
}

absl::StatusOr<int64_t> Count(SqlConnection& db, const std::string& table) {
  ASSIGN_OR_RETURN(SqlStatement s, db.Prepare(absl::StrCat("SELECT count(*) FROM ", table)));
  ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

// The rows every database is made with (its migrations'): the two users, the Uncategorized workspace
// and project. A copy replaces them with the source's.
int64_t BuiltInRows(const std::string& table) {
  if (table == "users") return 2;
  return table == "workspaces" || table == "projects" ? 1 : 0;
}

// What makes a destination not empty: any row but the built-in ones.
absl::Status CheckEmpty(SqlConnection& db, const std::string& where) {
  std::vector<std::string> held;
  for (const std::string& table : ClusterTables()) {
    ASSIGN_OR_RETURN(int64_t n, Count(db, table));
    if (int64_t built_in = BuiltInRows(table); built_in > 0) {
      ASSIGN_OR_RETURN(SqlStatement s, db.Prepare(absl::StrCat("SELECT count(*) FROM ", table, " WHERE id > ?")));
      s.Bind(1, built_in);
      ASSIGN_OR_RETURN(bool row, s.Step());
      n = row ? s.Int(0) : 0;
    }
    if (n > 0) held.push_back(absl::StrCat(table, ": ", n));
  }
  if (held.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(where, " already holds a cluster (", absl::StrJoin(held, ", "),
                                                    "); copy into an empty database"));
}

// One value of a row, as the source typed it.
struct Value {
  SqlValueType type = SqlValueType::kNull;
  int64_t i = 0;
  double d = 0;
  std::string text;  // text or blob
};

Value ReadValue(const SqlStatement& s, int col) {
  Value v{s.Type(col)};
  switch (v.type) {
    case SqlValueType::kNull: break;
    case SqlValueType::kInt: v.i = s.Int(col); break;
    case SqlValueType::kDouble: v.d = s.Double(col); break;
    case SqlValueType::kText:
    case SqlValueType::kBlob: v.text = s.Text(col); break;
  }
  return v;
}

void BindValue(SqlStatement& s, int i, const Value& v) {
  switch (v.type) {
    case SqlValueType::kNull: s.BindNull(i); break;
    case SqlValueType::kInt: s.Bind(i, v.i); break;
    case SqlValueType::kDouble: s.Bind(i, v.d); break;
    case SqlValueType::kBlob: s.BindBlob(i, v.text); break;
    case SqlValueType::kText: s.Bind(i, v.text); break;
  }
}

// Copies one table: reads the source in key order a page at a time (a whole table never sits in
// memory) and inserts many rows per statement.
class TableCopy {
 public:
  TableCopy(SqlConnection& from, SqlConnection& to, std::string table, std::vector<std::string> columns)
      : from_(from), to_(to), table_(std::move(table)), columns_(std::move(columns)),
        rows_per_insert_(std::max<size_t>(1, std::min<size_t>(1000, kMaxBindsPerInsert / columns_.size()))) {}

  absl::Status Run(const std::function<void(int64_t)>& copied) {
    // SQLite's rowid; on PostgreSQL the first column (rowid where the table has one, else its key).
    ASSIGN_OR_RETURN(std::string key, KeyColumn());
    std::string select = absl::StrCat("SELECT ", key, ", ", absl::StrJoin(columns_, ", "), " FROM ", table_);
    std::optional<Value> last;
    int64_t total = 0;
    while (true) {
      ASSIGN_OR_RETURN(SqlStatement page, from_.Prepare(absl::StrCat(select, last ? absl::StrCat(" WHERE ", key, " > ?") : "",
                                                                     " ORDER BY ", key, " LIMIT ", kRowsPerRead)));
      if (last) BindValue(page, 1, *last);
      int64_t read = 0;
      while (true) {
        ASSIGN_OR_RETURN(bool row, page.Step());
        if (!row) break;
        last = ReadValue(page, 0);
        std::vector<Value>& values = rows_.emplace_back();
        for (size_t c = 0; c < columns_.size(); ++c) values.push_back(ReadValue(page, static_cast<int>(c + 1)));
        if (rows_.size() == rows_per_insert_) RETURN_IF_ERROR(Flush());
        ++read;
      }
      RETURN_IF_ERROR(Flush());
      total += read;
      if (copied) copied(total);
      if (read < kRowsPerRead) return absl::OkStatus();
    }
  }

 private:
  absl::StatusOr<std::string> KeyColumn() {
    if (from_.dialect() == SqlDialect::kSqlite) return std::string("rowid");
    ASSIGN_OR_RETURN(SqlStatement s, from_.Prepare(absl::StrCat("SELECT * FROM ", table_, " LIMIT 0")));
    RETURN_IF_ERROR(s.Run());
    return s.ColumnName(0);
  }

  absl::Status Flush() {
    if (rows_.empty()) return absl::OkStatus();
    std::string one = absl::StrCat("(", absl::StrJoin(std::vector<std::string>(columns_.size(), "?"), ", "), ")");
    ASSIGN_OR_RETURN(SqlStatement insert,
                     to_.Prepare(absl::StrCat("INSERT INTO ", table_, " (", absl::StrJoin(columns_, ", "), ") VALUES ",
                                              absl::StrJoin(std::vector<std::string>(rows_.size(), one), ", "))));
    int i = 1;
    for (const std::vector<Value>& row : rows_) {
      for (const Value& v : row) BindValue(insert, i++, v);
    }
    rows_.clear();
    return insert.Run();
  }

  SqlConnection& from_;
  SqlConnection& to_;
  const std::string table_;
  const std::vector<std::string> columns_;
  const size_t rows_per_insert_;
  std::vector<std::vector<Value>> rows_;
};

// After rows came in with their ids: PostgreSQL's sequences continue past the largest, and past the
// largest a SQLite source deleted (id_high_water), so that no id is given twice.
absl::Status AdvanceSequences(SqlConnection& to, const std::string& table) {
  if (to.dialect() != SqlDialect::kPostgres) return absl::OkStatus();
  ASSIGN_OR_RETURN(SqlStatement s, to.Prepare(absl::StrCat("SELECT * FROM ", table, " LIMIT 0")));
  RETURN_IF_ERROR(s.Run());
  for (int c = 0; c < s.ColumnCount(); ++c) {
    std::string column = s.ColumnName(c);
    if (column != "id" && column != "rowid") continue;
    ASSIGN_OR_RETURN(SqlStatement set,
                     to.Prepare(absl::StrCat("SELECT setval(pg_get_serial_sequence('", table, "', '", column,
                                             "'), GREATEST(COALESCE((SELECT MAX(", column, ") FROM ", table, "), 0), ",
                                             "COALESCE((SELECT MAX(max_id) FROM id_high_water WHERE table_name = '",
                                             table, "' AND '", column, "' = 'id'), 0)) + 1, false)")));
    RETURN_IF_ERROR(set.Run());
  }
  return absl::OkStatus();
}

// The highest experiment and trial ids a PostgreSQL source ever gave (its sequences), kept in the
// destination's id_high_water: PostgreSQL does not record the ids of deleted rows there, and without
// them a SQLite destination would give those ids again.
absl::Status CarryIdHighWater(SqlConnection& from, SqlConnection& to) {
  if (from.dialect() != SqlDialect::kPostgres) return absl::OkStatus();  // SQLite's id_high_water rows are copied
  for (const std::string table : {"experiments", "trials"}) {
    ASSIGN_OR_RETURN(SqlStatement last,
                     from.Prepare(absl::StrCat("SELECT COALESCE((SELECT last_value FROM pg_sequences WHERE ",
                                               "format('%I.%I', schemaname, sequencename) = ",
                                               "pg_get_serial_sequence('", table, "', 'id')), 0)")));
    ASSIGN_OR_RETURN(bool row, last.Step());
    const int64_t given = row ? last.Int(0) : 0;
    if (given == 0) continue;
    ASSIGN_OR_RETURN(SqlStatement keep,
                     to.Prepare("INSERT INTO id_high_water (table_name, max_id) VALUES (?, ?) ON CONFLICT (table_name) "
                                "DO UPDATE SET max_id = CASE WHEN excluded.max_id > id_high_water.max_id "
                                "THEN excluded.max_id ELSE id_high_water.max_id END"));
    keep.Bind(1, table).Bind(2, given);
    RETURN_IF_ERROR(keep.Run());
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& ClusterTables() {
  static const std::vector<std::string> tables = {
      "users",       "user_sessions", "workspaces", "workspace_pins", "projects", "experiments", "trials",    "allocations",        "tasks",
      "metrics",     "checkpoint_storages", "checkpoints",   "task_logs",   "templates", "searcher_snapshots",
      "searcher_events", "models", "model_versions", "trial_source_infos", "pool_bindings",
      "groups", "user_group_membership", "role_assignments", "authz_state", "id_high_water",
  };
  return tables;
}

absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenDatabaseUrl(const std::string& url) {
  if (absl::StartsWith(url, "postgres://") || absl::StartsWith(url, "postgresql://")) {
    ASSIGN_OR_RETURN(std::unique_ptr<PostgresDatabase> db, PostgresDatabase::Open(url));
    return std::unique_ptr<SqlDatabase>(std::move(db));
  }
  std::string path = absl::StartsWith(url, "sqlite:") ? url.substr(7) : url;
  if (path.empty()) return absl::InvalidArgumentError("sqlite: needs a file path, e.g. sqlite:/var/lib/determined/determined.db");
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteDatabase> db, SqliteDatabase::Open(path));
  return std::unique_ptr<SqlDatabase>(std::move(db));
}

absl::Status CopyDatabase(SqlDatabase& from, SqlDatabase& to, const std::function<void(const CopyProgress&)>& progress) {
  RETURN_IF_ERROR(from.ClaimForMaster());
  RETURN_IF_ERROR(to.ClaimForMaster());
  RETURN_IF_ERROR(ApplyMigrations(from).status());
  RETURN_IF_ERROR(ApplyMigrations(to).status());
  SqlLease source = from.Writer();  // no one else writes it meanwhile
  SqlLease destination = to.Writer();
  RETURN_IF_ERROR(CheckEmpty(*destination, to.Describe()));
  SqlTransaction tx(*destination);
  RETURN_IF_ERROR(tx.Begin());
  // The built-in rows come from the source.
  for (const char* table : {"projects", "workspaces", "users"}) {
    RETURN_IF_ERROR(destination->Exec(absl::StrCat("DELETE FROM ", table)));
  }
  for (const std::string& table : ClusterTables()) {
    ASSIGN_OR_RETURN(std::vector<std::string> columns, Columns(*source, table));
    ASSIGN_OR_RETURN(int64_t total, Count(*source, table));
    TableCopy copy(*source, *destination, table, columns);
    RETURN_IF_ERROR(copy.Run([&](int64_t rows) {
      if (progress) progress({table, rows, total});
    }));
    ASSIGN_OR_RETURN(int64_t copied, Count(*destination, table));
    if (copied != total) {
      return absl::InternalError(absl::StrCat(table, ": ", total, " rows in the source, ", copied, " copied"));
    }
  }
  RETURN_IF_ERROR(CarryIdHighWater(*source, *destination));
  for (const std::string& table : ClusterTables()) RETURN_IF_ERROR(AdvanceSequences(*destination, table));
  RETURN_IF_ERROR(tx.Commit());
  // Fresh statistics: without them PostgreSQL plans the list's subqueries as scans of whole tables.
  return destination->Exec("ANALYZE");
}

}  // namespace det::master
