#pragma once
// Test-only: the task core as a resource manager's unit tests see it. It records every event as text
// ("a1 137", "a1 -1 lost", "a1: <log line>"), and the test sets each allocation's job attributes.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "master/rm/resource_manager.h"

namespace det::master {

class RecordingAllocationEvents : public AllocationEvents {
 public:
  JobAttributes JobOf(const std::string& id) const override { return jobs.at(id); }
  bool MayStartWork() const override { return true; }
  void Placed(const std::string& id, const Placement& placement) override { placed[id] = placement; }
  void ReclaimRequested(const std::string& id, const std::string&, bool kill) override {
    reclaims.push_back(absl::StrCat(id, kill ? " kill" : " preempt"));
  }
  void ProcessStarted(const std::string& id, const std::string& where, int) override {
    started.push_back(id);
    started_on[id] = where;
  }
  void Exited(const std::string& id, int exit_code, ExitKind kind, const std::string& why) override {
    exits.push_back(absl::StrCat(id, " ", exit_code, kind == ExitKind::kAgentLost ? " lost" : ""));
    whys.push_back(why);
  }
  void Log(const std::string& id, const std::string& text) override { logs.push_back(absl::StrCat(id, ": ", text)); }

  std::map<std::string, JobAttributes> jobs;
  std::map<std::string, Placement> placed;
  std::map<std::string, std::string> started_on;  // where each started process runs
  std::vector<std::string> reclaims, started, exits, whys, logs;
};

}  // namespace det::master
