#include "common/search_regex.h"

#include "absl/strings/str_cat.h"

namespace det {

absl::StatusOr<std::regex> CompileSearchRegex(const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {  // the standard library reports a bad pattern only this way
    return absl::InvalidArgumentError(
        absl::StrCat("\"", pattern, "\" is not a valid regular expression: ", e.what()));
  }
}

bool SearchRegexMatches(const std::regex& regex, const std::string& text) {
  return std::regex_search(text, regex);
}

}  // namespace det
