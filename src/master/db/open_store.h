#pragma once
// The store the master's `db` settings name: the embedded SQLite file, or a PostgreSQL server.
#include <memory>
#include <string>

#include "config/master_config.h"
#include "master/db/sql_store.h"

namespace det::master {

// A libpq connection string for `db` (type postgres), each value quoted.
std::string PostgresConnectionString(const config::DbConfig& db);

// Opens the database and applies its pending migrations; Unavailable when it cannot be reached.
absl::StatusOr<std::unique_ptr<SqlStore>> OpenStore(const config::DbConfig& db);

// Where the store is, for logs: the SQLite file or postgres://user@host:port/name.
std::string DescribeStore(const config::DbConfig& db);

}  // namespace det::master
