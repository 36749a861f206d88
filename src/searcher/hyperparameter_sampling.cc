#include "searcher/hyperparameter_sampling.h"

#include <cmath>

namespace det::searcher {
namespace {

nlohmann::json Sample(const Hyperparameter& hp, NpRandom& rand) {
  switch (hp.type) {
    case Hyperparameter::Type::kConst:
      return hp.val;
    case Hyperparameter::Type::kInt:
      return hp.int_min + rand.Intn(hp.int_max - hp.int_min + 1);
    case Hyperparameter::Type::kDouble:
      return rand.Uniform(hp.min, hp.max);
    case Hyperparameter::Type::kLog:
      return std::pow(hp.base, rand.Uniform(hp.min, hp.max));
    case Hyperparameter::Type::kCategorical:
      return hp.vals[static_cast<size_t>(rand.Intn(static_cast<int64_t>(hp.vals.size())))];
    case Hyperparameter::Type::kNested:
      return SampleAll(hp.nested, rand);
  }
  return nullptr;
}

}  // namespace

nlohmann::json SampleAll(const Hyperparameters& hparams, NpRandom& rand) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, hp] : hparams) out[name] = Sample(hp, rand);
  return out;
}

}  // namespace det::searcher
