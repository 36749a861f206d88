// For test runs: starts or stops the PostgreSQL server the run's tests share (shared_test_postgres.h).
//   test_postgres_server start DIR   initdb (fsync off) and start on a free port; writes DIR/server
//   test_postgres_server stop DIR    stops it and removes DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/local_postgres.h"
#include "master/db/shared_test_postgres.h"

namespace {

int Fail(const std::string& what) {
  std::fprintf(stderr, "test_postgres_server: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return Fail("usage: test_postgres_server start|stop DIR");
  const std::string verb = argv[1];
  const std::string dir = std::filesystem::absolute(argv[2]).string();
  if (verb == "start") {
    // A server left by an interrupted run is stopped and not reused.
    if (absl::StatusOr<det::LocalPostgres> left = det::master::ReadSharedTestPostgres(dir); left.ok()) {
      (void)det::StopLocalPostgres(left->dir);
      std::filesystem::remove_all(left->dir);
    }
    std::filesystem::remove_all(dir);
    absl::StatusOr<det::LocalPostgres> pg =
        det::StartLocalPostgres({.dir = dir, .port = 0, .durable = false, .database = "postgres"});
    if (!pg.ok()) return Fail(std::string(pg.status().message()));
    std::ofstream(det::master::SharedTestPostgresFile(dir)) << pg->port << " " << pg->dir << "\n";
    std::printf("PostgreSQL for the tests on port %d, in %s\n", pg->port, pg->dir.c_str());
    return 0;
  }
  if (verb == "stop") {
    absl::StatusOr<det::LocalPostgres> pg = det::master::ReadSharedTestPostgres(dir);
    if (!pg.ok()) return Fail(std::string(pg.status().message()));
    absl::Status stopped = det::StopLocalPostgres(pg->dir);
    std::filesystem::remove_all(pg->dir);
    std::filesystem::remove_all(dir);
    return stopped.ok() ? 0 : Fail(std::string(stopped.message()));
  }
  return Fail("usage: test_postgres_server start|stop DIR");
}
