#include "master/db/sqlite_store.h"

#include "common/status_macros.h"
#include "master/db/sqlite/sqlite_database.h"

namespace det::master {

absl::StatusOr<std::unique_ptr<SqlStore>> OpenSqliteStore(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteDatabase> db, SqliteDatabase::Open(path));
  return SqlStore::Open(std::move(db));
}

}  // namespace det::master
