#include "cli/detignore.h"

#include "absl/strings/str_split.h"
#include "common/file_util.h"

namespace det::cli {
namespace {

bool IsRegexSpecial(char c) {
  switch (c) {
    case '.':
    case '^':
    case '$':
    case '|':
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case '*':
    case '+':
    case '?':
    case '\\':
    case '/':
      return true;
    default:
      return false;
  }
}

void AppendLiteral(std::string& out, char c) {
  if (IsRegexSpecial(c)) out += '\\';
  out += c;
}

// One path segment's glob -> regex (pathspec's GitWildMatchPattern._translate_segment_glob).
std::string TranslateSegmentGlob(const std::string& pattern) {
  std::string out;
  bool escape = false;
  size_t i = 0;
  const size_t end = pattern.size();
  while (i < end) {
    char c = pattern[i++];
    if (escape) {
      escape = false;
      AppendLiteral(out, c);
    } else if (c == '\\') {
      escape = true;
    } else if (c == '*') {
      out += "[^/]*";
    } else if (c == '?') {
      out += "[^/]";
    } else if (c == '[') {
      size_t j = i;
      if (j < end && (pattern[j] == '!' || pattern[j] == '^')) ++j;
      if (j < end && pattern[j] == ']') ++j;  // a leading ']' is literal
      while (j < end && pattern[j] != ']') ++j;
      if (j < end) {
        ++j;  // past ']'
        std::string expr = "[";
        size_t k = i;
        if (pattern[k] == '!' || pattern[k] == '^') {
          expr += '^';
          ++k;
        }
        for (; k < j - 1; ++k) {
          if (pattern[k] == '\\' || pattern[k] == '[' || pattern[k] == ']') expr += '\\';
          expr += pattern[k];
        }
        expr += ']';
        out += expr;
        i = j;
      } else {
        out += "\\[";  // unterminated: literal '['
      }
    } else {
      AppendLiteral(out, c);
    }
  }
  return out;
}

std::string Trim(std::string s) {
  // Trailing spaces are not significant unless escaped; leading ones are kept, as git does.
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  while (!s.empty() && s.back() == ' ' && !(s.size() >= 2 && s[s.size() - 2] == '\\')) s.pop_back();
  return s;
}

}  // namespace

const std::vector<std::string>& DefaultDetIgnorePatterns() {
  static const std::vector<std::string> kPatterns = {
      "__pycache__/",      "*.py[co]",       "*$py.class",
      "terraform",         "terraform_data", "terraform.tfstate*",
      "terraform.tfvars*", ".terraform*",    ".git/",
      ".vscode/",          ".idea/",         ".mypy_cache/",
      "/shared_fs",
  };
  return kPatterns;
}

std::string DetIgnorePatternToRegex(std::string pattern, bool* include) {
  *include = true;
  pattern = Trim(std::move(pattern));
  if (pattern.empty() || pattern[0] == '#' || pattern == "/") return "";
  if (pattern[0] == '!') {
    *include = false;
    pattern.erase(0, 1);
  }
  if (!pattern.empty() && pattern[0] == '\\') pattern.erase(0, 1);  // "\#", "\!" escapes
  if (pattern.empty()) return "";

  std::vector<std::string> segs = absl::StrSplit(pattern, '/');
  if (segs[0].empty()) {
    segs.erase(segs.begin());  // leading '/': anchored to the root
  } else if (segs.size() == 1 || (segs.size() == 2 && segs[1].empty())) {
    if (segs[0] != "**") segs.insert(segs.begin(), "**");  // a bare name matches at any depth
  }
  if (segs.empty()) return "";
  if (segs.size() > 1 && segs.back().empty())
    segs.back() = "**";  // trailing '/': directory contents

  std::string out = "^";
  bool need_slash = false;
  const size_t end = segs.size() - 1;
  for (size_t i = 0; i < segs.size(); ++i) {
    const std::string& seg = segs[i];
    if (seg == "**") {
      if (i == 0 && i == end) {
        out += ".+";
      } else if (i == 0) {
        out += "(?:.+/)?";
        need_slash = false;
      } else if (i == end) {
        out += "/.*";
      } else {
        out += "(?:/.+)?";
        need_slash = true;
      }
    } else if (seg == "*") {
      if (need_slash) out += '/';
      out += "[^/]+";
      if (i == end) out += "(?:/.*)?";
      need_slash = true;
    } else {
      if (need_slash) out += '/';
      out += TranslateSegmentGlob(seg);
      if (i == end) out += "(?:/.*)?";
      need_slash = true;
    }
  }
  out += '$';
  return out;
}

DetIgnore::DetIgnore(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    bool include = true;
    std::string re = DetIgnorePatternToRegex(line, &include);
    if (re.empty()) continue;
    try {
      rules_.push_back(
          Rule{std::regex(re, std::regex::ECMAScript | std::regex::optimize), include});
    } catch (const std::regex_error&) {
      // A pattern we cannot compile matches nothing, rather than failing the whole submission.
    }
  }
}

absl::StatusOr<DetIgnore> DetIgnore::ForRoot(const std::filesystem::path& root) {
  std::vector<std::string> lines = DefaultDetIgnorePatterns();
  std::filesystem::path file = root / ".detignore";
  std::error_code ec;
  if (std::filesystem::is_regular_file(file, ec)) {
    absl::StatusOr<std::string> text = ReadFile(file);
    if (!text.ok()) return text.status();
    for (absl::string_view line : absl::StrSplit(*text, '\n')) lines.emplace_back(line);
  }
  return DetIgnore(lines);
}

bool DetIgnore::Matches(std::string_view rel) const {
  bool matched = false;
  std::string path(rel);
  for (const Rule& rule : rules_) {
    if (std::regex_match(path, rule.regex)) matched = rule.include;
  }
  return matched;
}

bool DetIgnore::Ignores(const std::string& rel, bool is_dir) const {
  if (Matches(rel)) return true;
  return is_dir && Matches(rel + "/");
}

}  // namespace det::cli
