#include "common/shell_quote.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace det {

std::string ShellQuote(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
    if (!ok) {
      plain = false;
      break;
    }
  }
  if (plain) return s;
  return absl::StrCat("'", absl::StrReplaceAll(s, {{"'", "'\\''"}}), "'");
}

std::string ShellJoin(const std::vector<std::string>& words) {
  std::vector<std::string> quoted;
  quoted.reserve(words.size());
  for (const std::string& w : words) quoted.push_back(ShellQuote(w));
  return absl::StrJoin(quoted, " ");
}

}  // namespace det
