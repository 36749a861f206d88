#pragma once
// The searcher the master talks to: a search method (single, random, grid, async_halving,
// adaptive_asha) wrapped in upstream's bookkeeping (reference §5.1): which trials were requested,
// created, closed, failed or canceled, and when the search shuts down. Pure: events in, actions out;
// no I/O, no clock (DESIGN.md §4). Its whole state round-trips through Snapshot()/Restore() so a
// restarted master continues the same search.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "searcher/search_method.h"

namespace det::searcher {

// ExitReason (why a trial ended early) and Action are declared in search_method.h.

class Searcher {
 public:
  virtual ~Searcher() = default;

  // Builds the searcher for a validated, defaulted experiment config: `config` is the whole config
  // (the `searcher`, `hyperparameters` and `reproducibility.experiment_seed` sections are read).
  static absl::StatusOr<std::unique_ptr<Searcher>> Create(const nlohmann::json& config);
  // The same searcher with the state a Snapshot() returned.
  static absl::StatusOr<std::unique_ptr<Searcher>> Restore(const nlohmann::json& config,
                                                           const nlohmann::json& snapshot);

  // The first trials to create. Called once per experiment.
  virtual std::vector<Action> InitialActions() = 0;
  // The master created the trial for a kCreateTrial action.
  virtual void TrialCreated(const std::string& request_id) = 0;
  // A validation report's metrics (the `avgMetrics` object). A missing or non-numeric searcher metric
  // (or time_metric) is an InvalidArgument naming the key for async_halving and adaptive_asha (the
  // experiment then errors); single, grid and random ignore such a report.
  // Reports from trials the searcher already stopped or that already exited are ignored, as are
  // events for request IDs this searcher never emitted (all methods below).
  virtual absl::StatusOr<std::vector<Action>> ValidationCompleted(const std::string& request_id,
                                                                  const nlohmann::json& metrics) = 0;
  // The trial ended in ERROR, was canceled by the user, or exited with InvalidHP; always followed by
  // TrialExited for the same trial.
  virtual std::vector<Action> TrialExitedEarly(const std::string& request_id, ExitReason reason) = 0;
  // The trial's process ended for good (any state); may emit kShutdown when the search is over.
  virtual std::vector<Action> TrialExited(const std::string& request_id) = 0;
  // The trial's self-reported progress, 0..1.
  virtual void TrialProgress(const std::string& request_id, double progress) = 0;
  // Fraction of the whole search done, 0..1 (never NaN).
  virtual double Progress() const = 0;
  virtual nlohmann::json Snapshot() const = 0;
};

}  // namespace det::searcher
