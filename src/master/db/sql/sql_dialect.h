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

// A SELECT's row-lock clause (" FOR UPDATE", " FOR NO KEY UPDATE NOWAIT") on PostgreSQL; nothing on
// SQLite, whose writers are one at a time anyway.
inline const char* LockedRows(SqlDialect d, const char* clause) { return d == SqlDialect::kSqlite ? "" : clause; }

// PostgreSQL: the last id `table`'s sequence gave, as a scalar expression (0 before the first).
inline std::string SequenceLastId(const std::string& table) {
  return absl::StrCat("coalesce((SELECT last_value FROM pg_sequences WHERE format('%I.%I', schemaname, sequencename) "
                      "= pg_get_serial_sequence('", table, "', 'id')), 0)");
}

// The highest id `table` ever gave, as a scalar expression: its rows', its deleted rows'
// (id_high_water, migration 0012) and, on PostgreSQL, its sequence's.
inline std::string HighestIdEver(SqlDialect d, const std::string& table) {
  std::string rows = absl::StrCat("(SELECT coalesce(max(id), 0) FROM ", table, ")");
  std::string deleted =
      absl::StrCat("(SELECT coalesce(max(max_id), 0) FROM id_high_water WHERE table_name = '", table, "')");
  if (d == SqlDialect::kSqlite) return absl::StrCat("max(", rows, ", ", deleted, ")");
  return absl::StrCat("GREATEST(", rows, ", ", deleted, ", ", SequenceLastId(table), ")");
}

// An INSERT's id column and value (each with its trailing ", ") that never give a row an id its table
// had before. SQLite's INTEGER PRIMARY KEY would give the highest deleted id again, so the id is one
// above HighestIdEver; PostgreSQL's sequences never give an id twice, so there both are empty and the
// column's default applies.
struct NewRowId {
  std::string column;
  std::string value;
};
inline NewRowId NeverReusedId(SqlDialect d, const std::string& table) {
  if (d != SqlDialect::kSqlite) return {};
  return {"id, ", absl::StrCat("(SELECT ", HighestIdEver(d, table), " + 1), ")};
}

// After a row of `table` came in with an id the master gave: PostgreSQL's sequence goes on past it
// (SQLite's next id is past the highest anyway).
inline absl::Status KeepSequencePast(SqlConnection& db, const std::string& table, int64_t id) {
  if (db.dialect() != SqlDialect::kPostgres) return absl::OkStatus();
  absl::StatusOr<SqlStatement> s = db.Prepare(absl::StrCat("SELECT setval(pg_get_serial_sequence('", table,
                                                           "', 'id'), ?) WHERE ? > ", SequenceLastId(table)));
  if (!s.ok()) return s.status();
  s->Bind(1, id).Bind(2, id);
  return s->Run();
}

}  // namespace det::master
