#pragma once
// `.detignore` matching with the semantics upstream gets from `pathspec`'s GitWildMatchPattern:
// blank lines and `#` comments are skipped; `!pat` re-includes; a pattern with no '/' (other than a
// trailing one) matches at any depth; a leading or inner '/' anchors it to the context root; a
// trailing '/' matches only directories (and everything under them); `*`, `?`, `[...]` match within
// one path segment and `**` across segments. The last matching pattern decides.
#include <filesystem>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace det::cli {

// Always ignored, before a context's own .detignore (upstream's constants.DEFAULT_DETIGNORE).
const std::vector<std::string>& DefaultDetIgnorePatterns();

class DetIgnore {
 public:
  // Compiles the given pattern lines (no defaults added).
  explicit DetIgnore(const std::vector<std::string>& lines);

  // The defaults plus the lines of `root/.detignore` when that file exists.
  static absl::StatusOr<DetIgnore> ForRoot(const std::filesystem::path& root);

  // `rel` is a '/'-separated path relative to the root. Callers check directories both as
  // "dir" and "dir/", as upstream does.
  bool Matches(std::string_view rel) const;

  // Whether a file (or, with `is_dir`, a directory) at `rel` is left out of the context.
  bool Ignores(const std::string& rel, bool is_dir) const;

 private:
  struct Rule {
    std::regex regex;
    bool include;  // true: a match ignores the path; false (a `!` pattern): a match keeps it
  };
  std::vector<Rule> rules_;
};

// The regular expression (ECMAScript) a single pattern line compiles to; "" for lines that match
// nothing (blank, comment, "/"). Exposed for tests.
std::string DetIgnorePatternToRegex(std::string pattern, bool* include);

}  // namespace det::cli
