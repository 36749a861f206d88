#pragma once
// Prepared statements kept per connection and reused by their SQL text: preparing was a third of the
// cost of a metrics report. Used only by SqliteConnection.
#include <sqlite3.h>

namespace det::master {

// Starts caching for `db`; ForgetStatements finalizes what is cached and must run before closing.
void CacheStatements(sqlite3* db);
void ForgetStatements(sqlite3* db);

// An idle statement prepared earlier from exactly `sql`, or nullptr. A write statement is only reused
// inside a transaction: outside one it must be prepared again so that the storage authorizer
// (storage_health.h) sees it.
sqlite3_stmt* TakeCachedStatement(sqlite3* db, const char* sql);
// Resets `stmt` and keeps it for the next TakeCachedStatement; false when it is not kept (the
// connection does not cache, or the cache is full), and the caller finalizes it.
bool KeepStatement(sqlite3* db, sqlite3_stmt* stmt);

}  // namespace det::master
