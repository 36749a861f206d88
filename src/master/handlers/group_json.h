#pragma once
// upstream's GroupDetails of a group: {groupId, name, users: [User]}.
#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "master/db/store.h"

namespace det::master {

absl::StatusOr<nlohmann::json> GroupDetailsJson(Store& store, const Group& group);

}  // namespace det::master
