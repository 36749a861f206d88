#pragma once
#include "searcher/search_method.h"

namespace det::searcher {

// `single`: exactly one trial with the given hyperparameters; the search ends when it exits.
class SingleSearch : public SearchMethod {
 public:
  SingleSearch(std::string hparams_json, uint32_t experiment_seed)
      : hparams_json_(std::move(hparams_json)), seed_(experiment_seed) {}

  std::vector<Action> InitialActions() override;
  std::vector<Action> ValidationCompleted(const std::string& request_id, double metric) override;
  std::vector<Action> TrialExited(const std::string& request_id, bool errored) override;
  double Progress() const override { return done_ ? 1.0 : 0.0; }

 private:
  std::string hparams_json_;
  uint32_t seed_;
  bool created_ = false;
  bool done_ = false;
};

}  // namespace det::searcher
