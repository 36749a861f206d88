// Cluster::TrialSpec: what differs for a trial's task (the rest is the experiment's, in cluster.cc).
#include "absl/strings/str_cat.h"
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"

namespace det::master {

void Cluster::TrialSpec::Kill() {
  if (auto t = cluster_.trials_.find(trial_id_); t != cluster_.trials_.end()) {
    cluster_.StopTrial(*t->second, api::TrialState::kStoppingKilled);
  }
}

void Cluster::TrialSpec::SetPaused(bool, std::function<void(absl::Status)> done) {
  done(absl::FailedPreconditionError(absl::StrCat(
      "trial ", trial_id_, "'s task is paused with its experiment (det experiment pause); only generic tasks can be paused")));
}

void Cluster::TrialSpec::ChangeJob(const JobSettings&, std::function<void(absl::Status)> done) {
  done(absl::FailedPreconditionError(absl::StrCat("trial ", trial_id_, "'s job is its experiment's")));
}

}  // namespace det::master
