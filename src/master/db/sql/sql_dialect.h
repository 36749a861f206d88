#pragma once
// The spellings that differ between SQLite and PostgreSQL in the store's SQL. Everything else is
// written once: `?` placeholders, RETURNING, ON CONFLICT, NULLS FIRST/LAST, CASE.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "master/db/sql/sql_connection.h"

namespace det::master {

// Case-insensitive LIKE (SQLite's LIKE is, for ASCII; PostgreSQL's is not).
inline const char* CaseInsensitiveLike(SqlDialect d) { return d == SqlDialect::kSqlite ? "LIKE" : "ILIKE"; }

// `column ~ ?`: the text matches the regular expression anywhere.
inline const char* RegexpMatch(SqlDialect d) { return d == SqlDialect::kSqlite ? "REGEXP" : "~"; }

// The text at `path` (object keys) inside the JSON text `column`; NULL when absent. Booleans read
// as 1/0 on SQLite and true/false on PostgreSQL (JsonTruth).
inline std::string JsonText(SqlDialect d, const std::string& column, std::initializer_list<const char*> path) {
  if (d == SqlDialect::kSqlite) return absl::StrCat("json_extract(", column, ", '$.", absl::StrJoin(path, "."), "')");
  return absl::StrCat("(", column, "::json #>> '{", absl::StrJoin(path, ","), "}')");
}
inline bool JsonTruth(const std::string& text) { return text != "0" && text != "false" && !text.empty(); }

// A condition true when the JSON array text `column` has an element equal to the next bound text.
inline std::string JsonArrayHas(SqlDialect d, const std::string& column) {
  if (d == SqlDialect::kSqlite) {
    return absl::StrCat("EXISTS (SELECT 1 FROM json_each(", column, ") WHERE json_each.value = ?)");
  }
  return absl::StrCat("EXISTS (SELECT 1 FROM json_array_elements_text(", column, "::json) v WHERE v = ?)");
}

}  // namespace det::master
