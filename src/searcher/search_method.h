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

}  // namespace det::searcher
