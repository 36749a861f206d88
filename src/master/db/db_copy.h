#pragma once
// `determined-master db copy --from A --to B`: moves a cluster's database to another, losing nothing
// (every table, every row, ids kept), e.g. from the embedded SQLite file to PostgreSQL. Both are
// brought to the latest schema first (as a master would); the destination must hold no cluster yet;
// neither may be in use by a master (SqlDatabase::ClaimForMaster). One transaction on the
// destination: a copy that fails leaves it as it was.
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "master/db/sql/sql_connection.h"

namespace det::master {

// "sqlite:PATH" (or a path ending in .db), or a postgres:// / postgresql:// URL (libpq's syntax).
absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenDatabaseUrl(const std::string& url);

struct CopyProgress {
  std::string table;
  int64_t rows = 0;   // copied so far
  int64_t total = 0;  // in the source table
};

// The tables of a cluster, parents before children.
const std::vector<std::string>& ClusterTables();

absl::Status CopyDatabase(SqlDatabase& from, SqlDatabase& to,
                          const std::function<void(const CopyProgress&)>& progress = nullptr);

}  // namespace det::master
