#pragma once
// Random sampling of hyperparameters (upstream `sampleAll`, reference §5.1).
#include <nlohmann/json.hpp>

#include "searcher/hyperparameters.h"
#include "searcher/nprand.h"

namespace det::searcher {

// One trial's values as a nested JSON object, drawn in sorted name order (nested maps recursively,
// also sorted): int = minval + Intn(maxval-minval+1); double = Uniform(minval, maxval);
// log = base^Uniform(minval, maxval); categorical = vals[Intn(len)]; const = val.
nlohmann::json SampleAll(const Hyperparameters& hparams, NpRandom& rand);

}  // namespace det::searcher
