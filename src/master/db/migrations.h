#pragma once
#include <string>

#include "absl/status/statusor.h"
#include "master/db/sql/sql_connection.h"
#include <vector>

namespace det::master {

struct Migration {
  int version;
  std::string name;
  std::string sql;
};

// The numbered SQL files of migrations/<dialect>/, embedded at build time, in version order. The
// same version number means the same schema on both: PostgreSQL's first file is 0009, the schema
// SQLite had reached by its ninth, and every later change is a file of the same number in each.
const std::vector<Migration>& SqliteMigrations();
const std::vector<Migration>& PostgresMigrations();

// Applies the migrations of the database's dialect not applied yet, each in a transaction of its own
// (recorded in schema_migrations). True when the database had none before (a new cluster).
absl::StatusOr<bool> ApplyMigrations(SqlDatabase& db);

}  // namespace det::master
