#pragma once
// State writes the database refused (its storage failed: storage_health.h), kept and made again
// until they succeed, so the database catches up with the master's memory once storage recovers.
// One write is kept per key (an entity: "allocation X", "trial 7"): each write carries the entity's
// whole current state, so a newer one replaces an older one, and one that succeeds makes the kept
// one moot. Not thread-safe (the cluster's loop owns it).
#include <cstddef>
#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"

namespace det::master {

class PendingWrites {
 public:
  using Write = std::function<absl::Status()>;

  // Runs `write`; when it fails, keeps it for Retry() in place of an older write of `key`.
  absl::Status Run(const std::string& key, Write write);
  // Runs every kept write once, in key order; keeps those that fail again. Returns how many are
  // still kept.
  size_t Retry();
  size_t size() const { return kept_.size(); }

 private:
  std::map<std::string, Write> kept_;
};

}  // namespace det::master
