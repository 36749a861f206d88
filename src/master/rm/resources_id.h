#pragma once
// How an allocation's processes are told apart (DET_RESOURCES_ID): a single process is the allocation
// itself; a gang's process of rank N is "<allocation id>.N". Every manager names them so, and the
// rendezvous endpoint reads a process's rank back from it.
#include <string>

#include "absl/status/statusor.h"

namespace det::master {

std::string ResourcesId(const std::string& allocation_id, int rank, int processes);
// The rank `resources_id` names; InvalidArgument when it is not one of the allocation's.
absl::StatusOr<int> RankOfResources(const std::string& allocation_id, const std::string& resources_id);

}  // namespace det::master
