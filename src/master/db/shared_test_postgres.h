#pragma once
// The PostgreSQL server that a test run shares (CTest's `postgres_server` fixture runs
// test_postgres_server.cc before the first test that needs it and after the last): one initdb for
// the run instead of one per test process. DIR/server holds its port and the directory it lives in;
// DET_TEST_POSTGRES_DIR names DIR to the tests.
#include <fstream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/local_postgres.h"

namespace det::master {

inline std::string SharedTestPostgresFile(const std::string& dir) { return dir + "/server"; }

inline absl::StatusOr<LocalPostgres> ReadSharedTestPostgres(const std::string& dir) {
  std::ifstream in(SharedTestPostgresFile(dir));
  LocalPostgres pg{.database = "postgres"};
  if (!(in >> pg.port >> pg.dir)) {
    return absl::NotFoundError(absl::StrCat("no shared test server in ", dir, " (", SharedTestPostgresFile(dir), ")"));
  }
  return pg;
}

}  // namespace det::master
