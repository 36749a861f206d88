#include "master/db/sqlite/statement_cache.h"

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace det::master {
namespace {

// Queries with IN lists have as many texts as list lengths: the cache is bounded.
constexpr size_t kMaxStatementsPerConnection = 256;

struct Cache {
  std::unordered_map<std::string, std::vector<sqlite3_stmt*>> idle;
  size_t size = 0;
};

std::mutex& Mutex() {
  static std::mutex mu;
  return mu;
}

std::unordered_map<sqlite3*, Cache>& Caches() {
  static auto* caches = new std::unordered_map<sqlite3*, Cache>();
  return *caches;
}

}  // namespace

void CacheStatements(sqlite3* db) {
  std::lock_guard lock(Mutex());
  Caches()[db];
}

void ForgetStatements(sqlite3* db) {
  std::lock_guard lock(Mutex());
  auto it = Caches().find(db);
  if (it == Caches().end()) return;
  for (auto& [sql, stmts] : it->second.idle) {
    for (sqlite3_stmt* stmt : stmts) sqlite3_finalize(stmt);
  }
  Caches().erase(it);
}

sqlite3_stmt* TakeCachedStatement(sqlite3* db, const char* sql) {
  std::lock_guard lock(Mutex());
  auto cache = Caches().find(db);
  if (cache == Caches().end()) return nullptr;
  auto it = cache->second.idle.find(sql);
  if (it == cache->second.idle.end() || it->second.empty()) return nullptr;
  sqlite3_stmt* stmt = it->second.back();
  if (!sqlite3_stmt_readonly(stmt) && sqlite3_get_autocommit(db)) return nullptr;
  it->second.pop_back();
  --cache->second.size;
  return stmt;
}

bool KeepStatement(sqlite3* db, sqlite3_stmt* stmt) {
  std::lock_guard lock(Mutex());
  auto cache = Caches().find(db);
  if (cache == Caches().end() || cache->second.size >= kMaxStatementsPerConnection) return false;
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  cache->second.idle[sqlite3_sql(stmt)].push_back(stmt);
  ++cache->second.size;
  return true;
}

}  // namespace det::master
