#include "master/db/open_store.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "master/db/postgres/postgres_database.h"
#include "master/db/sqlite_store.h"

namespace det::master {
namespace {

// key='value' with ' and \ escaped, as libpq reads it.
std::string Quoted(const std::string& key, const std::string& value) {
  std::string out = key + "='";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "' ";
}

}  // namespace

std::string PostgresConnectionString(const config::DbConfig& db) {
  std::string out = Quoted("host", db.host) + Quoted("port", db.port.empty() ? "5432" : db.port) +
                    Quoted("dbname", db.name) + Quoted("sslmode", db.ssl_mode.empty() ? "disable" : db.ssl_mode);
  if (!db.user.empty()) out += Quoted("user", db.user);
  if (!db.password.empty()) out += Quoted("password", db.password);
  if (!db.ssl_root_cert.empty()) out += Quoted("sslrootcert", db.ssl_root_cert);
  return out + "connect_timeout=5 application_name=determined-master";
}

absl::StatusOr<std::unique_ptr<SqlStore>> OpenStore(const config::DbConfig& db) {
  if (db.type != "postgres") return OpenSqliteStore(db.path);
  ASSIGN_OR_RETURN(std::unique_ptr<PostgresDatabase> pg, PostgresDatabase::Open(PostgresConnectionString(db)));
  return SqlStore::Open(std::move(pg));
}

std::string DescribeStore(const config::DbConfig& db) {
  if (db.type != "postgres") return db.path;
  return absl::StrCat("postgres://", db.user.empty() ? "" : db.user + "@", db.host, ":",
                      db.port.empty() ? "5432" : db.port, "/", db.name);
}

}  // namespace det::master
