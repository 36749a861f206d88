#pragma once
// The embedded default: a Store on a SQLite file (WAL) under the master's data dir.
#include <memory>
#include <string>

#include "master/db/sql_store.h"

namespace det::master {

// Opens (creating if needed) the database at `path` and applies pending migrations.
absl::StatusOr<std::unique_ptr<SqlStore>> OpenSqliteStore(const std::string& path);

}  // namespace det::master
