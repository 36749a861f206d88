#pragma once
// SQLite has a REGEXP operator but no function behind it: this registers one, so that
// `log REGEXP ?` filters task logs (enableRegex) inside the query.
#include "absl/status/status.h"

struct sqlite3;

namespace det::master {

// `text REGEXP pattern` is then true when the ECMAScript expression `pattern` matches anywhere in
// `text` (common/search_regex.h). Each statement compiles its pattern once.
absl::Status RegisterRegexp(sqlite3* db);

}  // namespace det::master
