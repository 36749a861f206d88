#include "master/workspace_rules.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace det::master {

namespace {
constexpr size_t kMaxNameLength = 80;
constexpr size_t kKeyLength = 5;
}  // namespace

absl::Status CheckWorkspaceOrProjectName(const std::string& name, const std::string& field) {
  if (absl::StripAsciiWhitespace(name).empty()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": a name is required (1 to 80 characters)"));
  }
  if (name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": at most 80 characters, got ", name.size(), " (\"", name.substr(0, 20), "...\")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ProjectKey(const std::string& given) {
  bool alnum = !given.empty() && given.size() <= kKeyLength;
  for (char c : given) alnum = alnum && absl::ascii_isalnum(static_cast<unsigned char>(c));
  if (!alnum) {
    return absl::InvalidArgumentError(
        absl::StrCat("key: 1 to 5 letters or digits, got \"", given, "\""));
  }
  return absl::AsciiStrToUpper(given);
}

std::string GeneratedProjectKey(const std::string& name, const std::function<char()>& random_char) {
  std::string key;
  for (char c : name) {
    if (key.size() == 3) break;
    if (absl::ascii_isalnum(static_cast<unsigned char>(c))) key += absl::ascii_toupper(static_cast<unsigned char>(c));
  }
  while (key.size() < kKeyLength) key += absl::ascii_toupper(static_cast<unsigned char>(random_char()));
  return key;
}

}  // namespace det::master
