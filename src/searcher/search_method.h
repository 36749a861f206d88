#pragma once
// The actions a searcher emits (reference §5.1). The searcher itself is in searcher.h.
#include <cstdint>
#include <string>
#include <vector>

namespace det::searcher {

struct Action {
  enum class Kind { kCreateTrial, kStopTrial, kShutdown };
  Kind kind;
  std::string request_id;    // the trial's identity inside the search (a UUID string)
  std::string hparams_json;  // kCreateTrial: the trial's hyperparameter values, nested JSON object
  uint32_t seed = 0;         // kCreateTrial: the trial's seed
  bool failure = false;      // kShutdown: every requested trial failed
  bool cancel = false;       // kShutdown: every requested trial was canceled by the user
};

// TRANSITIONAL: the single-trial search method the master used before `Searcher`; removed once the
// master drives searcher.h.
class SearchMethod {
 public:
  virtual ~SearchMethod() = default;
  virtual std::vector<Action> InitialActions() = 0;
  virtual std::vector<Action> ValidationCompleted(const std::string& request_id, double metric) = 0;
  virtual std::vector<Action> TrialExited(const std::string& request_id, bool errored) = 0;
  virtual double Progress() const = 0;
};

}  // namespace det::searcher
