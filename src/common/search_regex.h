#pragma once
// Log search with `enableRegex` (upstream's TrialLogs/TaskLogs): the pattern is an ECMAScript regular
// expression that may match anywhere in a line.
#include <regex>
#include <string>

#include "absl/status/statusor.h"

namespace det {

// The compiled `pattern`, or InvalidArgument saying why it is not a regular expression.
absl::StatusOr<std::regex> CompileSearchRegex(const std::string& pattern);

// Whether `regex` matches some part of `text`.
bool SearchRegexMatches(const std::regex& regex, const std::string& text);

}  // namespace det
