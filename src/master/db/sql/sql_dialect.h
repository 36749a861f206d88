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

// An INSERT's id column and value (each with its trailing ", ") that never give a row an id its table
// had before. SQLite's INTEGER PRIMARY KEY would give the highest deleted id again, so the id is one
// above both the table's highest and the highest deleted (id_high_water, migration 0012); PostgreSQL's
// sequences never give an id twice, so there both are empty and the column's default applies.
struct NewRowId {
  std::string column;
  std::string value;
};
inline NewRowId NeverReusedId(SqlDialect d, const std::string& table) {
  if (d != SqlDialect::kSqlite) return {};
  return {"id, ", absl::StrCat("(SELECT max((SELECT coalesce(max(id), 0) FROM ", table,
                               "), (SELECT coalesce(max(max_id), 0) FROM id_high_water WHERE table_name = '", table,
                               "')) + 1), ")};
}

}  // namespace det::master
