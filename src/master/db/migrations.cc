#include "master/db/migrations.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/time_util.h"

namespace det::master {

absl::StatusOr<bool> ApplyMigrations(SqlDatabase& database) {
  SqlLease lease = database.Writer();
  SqlConnection& db = *lease;
  RETURN_IF_ERROR(db.Exec("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, "
                          "name TEXT NOT NULL, applied_at BIGINT NOT NULL)"));
  ASSIGN_OR_RETURN(SqlStatement any, db.Prepare("SELECT count(*) FROM schema_migrations"));
  ASSIGN_OR_RETURN(bool counted, any.Step());
  bool created = counted && any.Int(0) == 0;
  any.Reset();  // a statement left mid-result blocks a migration's DROP TABLE on SQLite ("table is locked")
  for (const Migration& m : database.dialect() == SqlDialect::kSqlite ? SqliteMigrations() : PostgresMigrations()) {
    ASSIGN_OR_RETURN(SqlStatement check, db.Prepare("SELECT 1 FROM schema_migrations WHERE version = ?"));
    check.Bind(1, m.version);
    ASSIGN_OR_RETURN(bool applied, check.Step());
    if (applied) continue;
    SqlTransaction tx(db);
    RETURN_IF_ERROR(tx.Begin());
    absl::Status st = db.Exec(m.sql);
    if (!st.ok()) return absl::InternalError(absl::StrCat("migration ", m.name, ": ", st.message()));
    ASSIGN_OR_RETURN(SqlStatement record,
                     db.Prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"));
    record.Bind(1, m.version).Bind(2, m.name).Bind(3, ToUnixMicros(std::chrono::system_clock::now()));
    RETURN_IF_ERROR(record.Run());
    RETURN_IF_ERROR(tx.Commit());
  }
  return created;
}

}  // namespace det::master
