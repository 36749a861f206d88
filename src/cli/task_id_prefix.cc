#include "cli/task_id_prefix.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/format.h"
#include "cli/paging.h"
#include "common/status_macros.h"

namespace det::cli {

bool IsFullTaskId(std::string_view id) {
  constexpr std::string_view kShape = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
  if (id.size() != kShape.size()) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    bool ok = kShape[i] == '-' ? id[i] == '-' : std::isxdigit(static_cast<unsigned char>(id[i]));
    if (!ok) return false;
  }
  return true;
}

absl::StatusOr<std::string> MatchIdPrefix(const std::vector<std::string>& ids,
                                          std::string_view prefix_view,
                                          std::string_view noun_view) {
  const std::string prefix(prefix_view);  // absl::StrCat takes absl::string_view, not std's
  const std::string noun(noun_view);
  if (prefix.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("give a ", noun, " id (or a prefix of one)"));
  }
  std::vector<std::string> matches;
  for (const std::string& id : ids) {
    if (id == prefix) return id;
    if (absl::StartsWith(id, prefix)) matches.push_back(id);
  }
  std::sort(matches.begin(), matches.end());
  matches.erase(std::unique(matches.begin(), matches.end()), matches.end());
  if (matches.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no ", noun, " with id starting with \"", prefix, "\""));
  }
  if (matches.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        noun, " id prefix \"", prefix, "\" is ambiguous: matches ", absl::StrJoin(matches, ", ")));
  }
  return matches.front();
}

absl::StatusOr<std::string> ResolveTaskId(Session& session, const TaskListing& listing,
                                          std::string_view id_or_prefix) {
  if (IsFullTaskId(id_or_prefix)) return std::string(id_or_prefix);
  if (id_or_prefix.empty()) return MatchIdPrefix({}, id_or_prefix, listing.noun);
  ASSIGN_OR_RETURN(nlohmann::json tasks, GetAllPages(session, listing.path, listing.key));
  std::vector<std::string> ids;
  for (const nlohmann::json& t : tasks) ids.push_back(Str(t, "id"));
  return MatchIdPrefix(ids, id_or_prefix, listing.noun);
}

}  // namespace det::cli
