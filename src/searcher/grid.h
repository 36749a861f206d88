#pragma once
// The grid of a `grid` search (reference §5.2): one axis per leaf hyperparameter, the Cartesian
// product of the axes.
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "searcher/hyperparameters.h"

namespace det::searcher {

// Grids larger than this are refused (upstream would try to build them and run out of memory).
inline constexpr size_t kMaxGridPoints = 1'000'000;

// The values of one leaf hyperparameter's axis:
//   const: [val]; categorical: vals in order;
//   int: c = min(count, maxval-minval+1); c == 1 => [round((min+max)/2)];
//        else round(min + (i*(max-min))/(c-1)) for i in 0..c-1 (round half away from zero);
//   double: c == 1 => [(min+max)/2]; else min + i*(max-min)/(c-1);
//   log: the double rule on the exponent, value base^exponent.
// int/double/log without `count` are an InvalidArgument naming `path`.
absl::StatusOr<std::vector<nlohmann::json>> GridAxis(const Hyperparameter& hp,
                                                     const std::string& path);

// The grid points in product order (first axis, in sorted-name order with nested leaves flattened,
// varying slowest), each a nested JSON object. An empty nested map contributes the single value {};
// no hyperparameters at all is one point, {}.
absl::StatusOr<std::vector<nlohmann::json>> BuildGrid(const Hyperparameters& hparams);

}  // namespace det::searcher
