#pragma once
// The live progress of an experiment's trials, shown by `det experiment create --follow` once the
// first trial's logs end: one line per trial.
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::cli {

class Session;

// "Trial 7: RUNNING, 300 batches, loss 0.0123 (best 0.01), 1 restart" from a Trial message; the
// metric part is left out until a validation reports `searcher_metric`.
std::string TrialProgressLine(const nlohmann::json& trial, const std::string& searcher_metric);

// Lines that change over time (trials only ever get added). Live (a terminal): the block is redrawn
// in place. Otherwise each line is printed when it first appears or changes, so a log file gets
// every change once and nothing twice.
class ProgressBoard {
 public:
  ProgressBoard(std::ostream& out, bool live) : out_(out), live_(live) {}
  void Show(const std::vector<std::string>& lines);

 private:
  std::ostream& out_;
  bool live_;
  std::vector<std::string> shown_;
};

// Shows a progress line per trial of the experiment, polled every `poll_seconds`, until the
// experiment ends; then prints its final state. Returns 0 iff it COMPLETED.
absl::StatusOr<int> WatchTrials(Session& session, int experiment_id, double poll_seconds, std::ostream& out,
                                bool live);

}  // namespace det::cli
