#pragma once
// A search method decides which trials to create and when to stop them. It is a pure state machine:
// events in, actions out; no I/O, no clock (DESIGN.md §4).
#include <cstdint>
#include <string>
#include <vector>

namespace det::searcher {

struct Action {
  enum class Kind { kCreateTrial, kStopTrial, kShutdown };
  Kind kind;
  std::string request_id;    // the trial's identity inside the search
  std::string hparams_json;  // kCreateTrial: the trial's hyperparameter values
  uint32_t seed = 0;         // kCreateTrial: the trial's seed
  bool failure = false;      // kShutdown: the search ended because trials failed
};

class SearchMethod {
 public:
  virtual ~SearchMethod() = default;
  virtual std::vector<Action> InitialActions() = 0;
  virtual std::vector<Action> ValidationCompleted(const std::string& request_id, double metric) = 0;
  // The trial ended; `errored` when it ended in ERROR.
  virtual std::vector<Action> TrialExited(const std::string& request_id, bool errored) = 0;
  // Fraction of the search done, 0..1.
  virtual double Progress() const = 0;
};

}  // namespace det::searcher
