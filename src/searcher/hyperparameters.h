#pragma once
// The `hyperparameters` section of an experiment config (reference §2.3) as the searchers see it:
// a tree of typed hyperparameters, names kept in sorted order at every level (upstream sorts the
// top level and iterates Go maps below it; we sort everywhere so a search is reproducible).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace det::searcher {

struct Hyperparameter {
  // Declared here, defaulted in the .cc: with implicit members, clang 14 + libstdc++ 12 (the fuzz
  // build) cannot instantiate std::pair<std::string, Hyperparameter> inside this recursive type.
  Hyperparameter();
  ~Hyperparameter();
  Hyperparameter(const Hyperparameter&);
  Hyperparameter(Hyperparameter&&) noexcept;
  Hyperparameter& operator=(const Hyperparameter&);
  Hyperparameter& operator=(Hyperparameter&&) noexcept;

  enum class Type { kConst, kInt, kDouble, kLog, kCategorical, kNested };
  Type type = Type::kConst;
  nlohmann::json val;                  // kConst
  int64_t int_min = 0, int_max = 0;    // kInt
  double min = 0, max = 0, base = 10;  // kDouble; kLog (exponents and base)
  std::optional<int64_t> count;        // kInt, kDouble, kLog: grid points
  std::vector<nlohmann::json> vals;    // kCategorical
  // kNested: children sorted by name.
  std::vector<std::pair<std::string, Hyperparameter>> nested;
};

// Sorted by name.
using Hyperparameters = std::vector<std::pair<std::string, Hyperparameter>>;

// Parses the section. A bare non-object value is a const; an object without a string `type` is a
// nested map; `null`/absent means no hyperparameters. Errors name the path, e.g.
// `hyperparameters.lr: minval must be less than maxval`.
absl::StatusOr<Hyperparameters> ParseHyperparameters(const nlohmann::json& section);

}  // namespace det::searcher
