#pragma once
// The actions a searcher emits (reference §5.1), and the interface every search method implements.
// The master only sees `Action` and `ExitReason`; it drives a `Searcher` (searcher.h), which wraps
// a SearchMethod in upstream's bookkeeping.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

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

// Why a trial ended before its normal exit (upstream's trialExitedEarly reasons).
enum class ExitReason { kErrored, kUserCanceled, kInvalidHP };

class NpRandom;
struct Hyperparameter;

// What a search method may use while handling an event: the search's RNG and hyperparameters.
struct SearchContext {
  NpRandom& rand;
  const std::vector<std::pair<std::string, Hyperparameter>>& hparams;
};

// upstream NewCreate: the hyperparameters are sampled first, then the request ID takes 16 bytes
// from the RNG (4 x Bits32, little-endian, as a version-4 UUID), then the seed = Int64n(2^31).
Action NewCreate(SearchContext& ctx, const nlohmann::json& hparams);
// A Create with freshly sampled hyperparameters.
Action NewRandomCreate(SearchContext& ctx);
Action NewStop(const std::string& request_id);

// The trials' own progress, as upstream's methods see it: over created trials (invalid-HP ones
// excluded), `sum` adds 1.0 for a closed trial and the reported progress (0..1) otherwise.
struct TrialProgressSummary {
  double sum = 0;
  size_t trials = 0;
};

// A search method (grid, random, asha, adaptive_asha): pure, deterministic given the context's RNG.
// Events arrive only for request IDs the method created; the Searcher filters duplicates and
// reports from trials that were stopped or exited.
class SearchMethod {
 public:
  virtual ~SearchMethod() = default;
  virtual std::vector<Action> InitialTrials(SearchContext& ctx) = 0;
  virtual void TrialCreated(SearchContext& ctx, const std::string& request_id) = 0;
  // `metrics` is an object whose searcher metric is known to be a number.
  virtual absl::StatusOr<std::vector<Action>> ValidationCompleted(
      SearchContext& ctx, const std::string& request_id, const nlohmann::json& metrics) = 0;
  virtual std::vector<Action> TrialExitedEarly(SearchContext& ctx, const std::string& request_id,
                                               ExitReason reason) = 0;
  virtual std::vector<Action> TrialExited(SearchContext& ctx, const std::string& request_id) = 0;
  virtual double Progress(const TrialProgressSummary& trials) const = 0;
  // The snapshot's `search_method_type`: single, random, grid, asha, adaptive_asha.
  virtual std::string Type() const = 0;
  virtual nlohmann::json Snapshot() const = 0;
  virtual absl::Status Restore(const nlohmann::json& state) = 0;
};

}  // namespace det::searcher
