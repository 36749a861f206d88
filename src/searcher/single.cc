#include "searcher/single.h"

namespace det::searcher {

constexpr char kRequestId[] = "single-0";

std::vector<Action> SingleSearch::InitialActions() {
  if (created_) return {};
  created_ = true;
  return {{.kind = Action::Kind::kCreateTrial, .request_id = kRequestId, .hparams_json = hparams_json_, .seed = seed_}};
}

std::vector<Action> SingleSearch::ValidationCompleted(const std::string&, double) { return {}; }

std::vector<Action> SingleSearch::TrialExited(const std::string& request_id, bool errored) {
  if (request_id != kRequestId || done_) return {};
  done_ = true;
  return {{.kind = Action::Kind::kShutdown, .failure = errored}};
}

}  // namespace det::searcher
