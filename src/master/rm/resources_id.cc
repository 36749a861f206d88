#include "master/rm/resources_id.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace det::master {

std::string ResourcesId(const std::string& allocation_id, int rank, int processes) {
  return processes > 1 ? absl::StrCat(allocation_id, ".", rank) : allocation_id;
}

absl::StatusOr<int> RankOfResources(const std::string& allocation_id, const std::string& resources_id) {
  if (resources_id == allocation_id) return 0;
  const std::string prefix = allocation_id + ".";
  int rank = -1;
  if (resources_id.rfind(prefix, 0) != 0 || !absl::SimpleAtoi(resources_id.substr(prefix.size()), &rank) || rank < 0) {
    return absl::InvalidArgumentError(absl::StrCat("resources id ", resources_id, " is not one of allocation ",
                                                   allocation_id, "'s (", allocation_id, " or ", allocation_id,
                                                   ".<rank>)"));
  }
  return rank;
}

}  // namespace det::master
