#pragma once
// Task ids given by a unique prefix, as upstream's CLI allows for commands (and, later, notebooks,
// shells and tensorboards): `det cmd kill 3f2a` names the one command whose id starts with "3f2a".
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace det::cli {

class Session;

// Where the ids of one task kind are listed: a paginated GET endpoint, the array of objects with an
// "id" in its response, and the word that names the kind in messages.
struct TaskListing {
  std::string path;  // "/api/v1/commands"
  std::string key;   // "commands"
  std::string noun;  // "command"
};

inline const TaskListing kCommandListing{"/api/v1/commands", "commands", "command"};

// A canonical UUID (8-4-4-4-12 hex digits), the form of every task id the master hands out.
bool IsFullTaskId(std::string_view id);

// Picks the id `prefix` names among `ids`: an exact match, else the only id starting with it.
// NotFound `no command with id starting with "X"`; InvalidArgument
// `command id prefix "X" is ambiguous: matches ID1, ID2` (matches sorted). No I/O.
absl::StatusOr<std::string> MatchIdPrefix(const std::vector<std::string>& ids,
                                          std::string_view prefix, std::string_view noun);

// A full id (IsFullTaskId) is returned as is, without a request, so that a task the listing does
// not show can still be named; anything shorter is matched (MatchIdPrefix) against every user's
// tasks from GET `listing.path`, all pages.
absl::StatusOr<std::string> ResolveTaskId(Session& session, const TaskListing& listing,
                                          std::string_view id_or_prefix);

}  // namespace det::cli
