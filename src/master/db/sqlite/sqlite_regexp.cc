#include "master/db/sqlite/sqlite_regexp.h"

#include <sqlite3.h>

#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/search_regex.h"

namespace det::master {
namespace {

std::string ArgText(sqlite3_value* value) {
  const unsigned char* text = sqlite3_value_text(value);
  return text != nullptr ? std::string(reinterpret_cast<const char*>(text), sqlite3_value_bytes(value)) : "";
}

// regexp(pattern, text): SQLite calls it for `text REGEXP pattern`.
void Regexp(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return sqlite3_result_int(context, 0);
  std::string text = ArgText(argv[1]);
  if (auto* cached = static_cast<std::regex*>(sqlite3_get_auxdata(context, 0))) {
    return sqlite3_result_int(context, SearchRegexMatches(*cached, text) ? 1 : 0);
  }
  absl::StatusOr<std::regex> compiled = CompileSearchRegex(ArgText(argv[0]));
  if (!compiled.ok()) {
    std::string message(compiled.status().message());
    return sqlite3_result_error(context, message.c_str(), static_cast<int>(message.size()));
  }
  bool matched = SearchRegexMatches(*compiled, text);
  // Kept for the statement's next rows; SQLite deletes it when the statement is done with it.
  sqlite3_set_auxdata(context, 0, new std::regex(std::move(*compiled)),
                      [](void* regex) { delete static_cast<std::regex*>(regex); });
  sqlite3_result_int(context, matched ? 1 : 0);
}

}  // namespace

absl::Status RegisterRegexp(sqlite3* db) {
  int rc = sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, Regexp, nullptr,
                                   nullptr);
  if (rc != SQLITE_OK) return absl::InternalError(absl::StrCat("cannot register REGEXP: ", sqlite3_errstr(rc)));
  return absl::OkStatus();
}

}  // namespace det::master
