#include "master/db/sqlite/storage_health.h"

#include <sqlite3.h>

#include <cstring>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace det::master {

StorageHealth::StorageHealth(std::string db_path, std::chrono::milliseconds retry_interval)
    : db_path_(std::move(db_path)), retry_interval_(retry_interval) {}

bool StorageHealth::MayStartWrite(Clock::time_point now) const {
  std::lock_guard lock(mu_);
  return !problem_ || now - last_failure_ >= retry_interval_;
}

void StorageHealth::WriteFailed(std::string_view reason, Clock::time_point now) {
  std::lock_guard lock(mu_);
  if (!problem_) {
    spdlog::error("cannot write the database {}: {}; refusing changes until storage recovers",
                  db_path_, std::string(reason));
  }
  problem_ = std::string(reason);
  last_failure_ = now;
}

void StorageHealth::WriteSucceeded() {
  std::lock_guard lock(mu_);
  if (!problem_) return;
  spdlog::info("the database {} can be written again ({} before)", db_path_, *problem_);
  problem_.reset();
}

absl::Status StorageHealth::Refusal() const {
  std::lock_guard lock(mu_);
  return absl::UnavailableError(absl::StrCat(
      "the master cannot write its database ", db_path_, ": ", problem_.value_or("storage failure"),
      "; changes are refused until storage recovers (tried again every ",
      retry_interval_.count() / 1000.0, " s), nothing was saved of this request"));
}

std::optional<std::string> StorageHealth::problem() const {
  std::lock_guard lock(mu_);
  return problem_;
}

bool IsStorageFailure(int rc) {
  switch (rc & 0xff) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_NOLFS:
      return true;
    default:
      return false;
  }
}

namespace {

struct Watch {
  sqlite3* db;
  StorageHealth* health;
};

std::mutex registry_mu;
std::map<sqlite3*, std::unique_ptr<Watch>>& Registry() {
  static auto* registry = new std::map<sqlite3*, std::unique_ptr<Watch>>();
  return *registry;
}

StorageHealth* Find(sqlite3* db) {
  std::lock_guard lock(registry_mu);
  auto it = Registry().find(db);
  return it == Registry().end() ? nullptr : it->second->health;
}

// Refuses every statement that would start a write (a BEGIN, or a write outside a transaction)
// during a refusal; statements inside a transaction already begun are let through.
int Authorize(void* arg, int action, const char* detail, const char*, const char*, const char*) {
  auto* watch = static_cast<Watch*>(arg);
  bool write;
  switch (action) {
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
    case SQLITE_DELETE:
    case SQLITE_CREATE_TABLE:
    case SQLITE_CREATE_INDEX:
    case SQLITE_DROP_TABLE:
    case SQLITE_DROP_INDEX:
    case SQLITE_ALTER_TABLE:
      write = true;
      break;
    case SQLITE_TRANSACTION:
      write = detail != nullptr && std::strcmp(detail, "BEGIN") == 0;
      break;
    default:
      write = false;
  }
  if (!write || !sqlite3_get_autocommit(watch->db)) return SQLITE_OK;
  return watch->health->MayStartWrite() ? SQLITE_OK : SQLITE_DENY;
}

}  // namespace

void WatchStorage(sqlite3* db, StorageHealth* health) {
  auto watch = std::make_unique<Watch>(Watch{db, health});
  sqlite3_set_authorizer(db, Authorize, watch.get());
  std::lock_guard lock(registry_mu);
  Registry()[db] = std::move(watch);
}

void UnwatchStorage(sqlite3* db) {
  sqlite3_set_authorizer(db, nullptr, nullptr);
  std::lock_guard lock(registry_mu);
  Registry().erase(db);
}

absl::Status SqliteFailure(sqlite3* db, int rc, const std::string& what) {
  StorageHealth* health = Find(db);
  if (health != nullptr && IsStorageFailure(rc)) {
    health->WriteFailed(sqlite3_errmsg(db));
    return health->Refusal();
  }
  if (health != nullptr && rc == SQLITE_AUTH && health->problem()) return health->Refusal();
  return absl::InternalError(absl::StrCat("sqlite ", what, ": ", sqlite3_errmsg(db)));
}

void SqliteWriteDone(sqlite3* db) {
  if (!sqlite3_get_autocommit(db)) return;  // inside a transaction: its COMMIT tells
  if (StorageHealth* health = Find(db)) {
    if (health->problem()) health->WriteSucceeded();
  }
}

}  // namespace det::master
