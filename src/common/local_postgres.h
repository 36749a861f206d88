#pragma once
// A PostgreSQL server of the project's own, from Debian's postgresql package: `initdb` into a data
// directory on first use, then `pg_ctl start` on a loopback port with its socket beside the data.
// Run as root, the server runs as the `postgres` user (initdb refuses root), which must exist; when
// that user cannot reach the directory asked for, the server lives in /var/tmp/determined-postgres/
// (LocalPostgres::dir says where).
// Used by `det deploy local cluster-up --db postgres` and by tests.
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det {

struct LocalPostgresOptions {
  std::string dir;       // data in dir/data, log in dir/postgres.log, socket in dir
  int port = 0;          // 0: a free port
  bool durable = true;   // false: fsync off (tests)
  std::string database = "determined";  // created if missing
};

struct LocalPostgres {
  std::string dir;  // where it lives (see above)
  int port = 0;
  std::string database;
  // host=127.0.0.1 port=... user=postgres dbname=...
  std::string ConnectionString() const;
  std::string ConnectionString(const std::string& dbname) const;
};

// Starts the server (creating its data directory first if needed) and the database.
absl::StatusOr<LocalPostgres> StartLocalPostgres(const LocalPostgresOptions& options);
// Stops it (fast shutdown); the data stay.
absl::Status StopLocalPostgres(const std::string& dir);
// A shell command run as the server's user (`postgres` when we are root), output appended to log.
std::string AsPostgresUser(const std::string& command);

}  // namespace det
