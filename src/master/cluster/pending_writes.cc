#include "master/cluster/pending_writes.h"

#include <utility>

#include "spdlog/spdlog.h"

namespace det::master {

absl::Status PendingWrites::Run(const std::string& key, Write write) {
  absl::Status status = write();
  if (status.ok()) {
    kept_.erase(key);
  } else {
    if (kept_.count(key) == 0) {
      spdlog::warn("{}: not saved ({}); saving it again until the database takes it", key,
                   status.ToString());
    }
    kept_[key] = std::move(write);
  }
  return status;
}

size_t PendingWrites::Retry() {
  for (auto it = kept_.begin(); it != kept_.end();) {
    if (it->second().ok()) {
      spdlog::info("{}: saved", it->first);
      it = kept_.erase(it);
    } else {
      ++it;
    }
  }
  return kept_.size();
}

}  // namespace det::master
