#include "searcher/grid.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::searcher {
namespace {

using nlohmann::json;

struct Axis {
  std::vector<std::string> path;  // where the value goes in the trial's hparams
  std::vector<json> values;
};

// Object keys all the way down (a json_pointer would turn numeric names into array indexes).
void Set(json& root, const std::vector<std::string>& path, const json& value) {
  json* node = &root;
  for (const std::string& key : path) node = &(*node)[key];
  *node = value;
}

absl::Status CollectAxes(const Hyperparameters& hparams, const std::vector<std::string>& prefix,
                         const std::string& path, std::vector<Axis>& axes) {
  for (const auto& [name, hp] : hparams) {
    std::vector<std::string> pointer = prefix;
    pointer.push_back(name);
    std::string hp_path = absl::StrCat(path, ".", name);
    if (hp.type == Hyperparameter::Type::kNested && !hp.nested.empty()) {
      RETURN_IF_ERROR(CollectAxes(hp.nested, pointer, hp_path, axes));
      continue;
    }
    if (hp.type == Hyperparameter::Type::kNested) {
      axes.push_back({pointer, {json::object()}});
      continue;
    }
    ASSIGN_OR_RETURN(std::vector<json> values, GridAxis(hp, hp_path));
    axes.push_back({pointer, std::move(values)});
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<json>> GridAxis(const Hyperparameter& hp, const std::string& path) {
  using Type = Hyperparameter::Type;
  std::vector<json> values;
  switch (hp.type) {
    case Type::kConst:
      values.push_back(hp.val);
      return values;
    case Type::kCategorical:
      return hp.vals;
    case Type::kNested:
      return absl::InternalError(absl::StrCat(path, ": nested hyperparameter has no single axis"));
    case Type::kInt:
    case Type::kDouble:
    case Type::kLog:
      break;
  }
  if (!hp.count) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": grid search is in use but count was not provided"));
  }
  int64_t c = *hp.count;
  if (hp.type == Type::kInt) {
    c = std::min(c, hp.int_max - hp.int_min + 1);
    if (c == 1) {
      values.push_back(
          static_cast<int64_t>(std::round(static_cast<double>(hp.int_min + hp.int_max) / 2.0)));
      return values;
    }
    for (int64_t i = 0; i < c; ++i) {
      values.push_back(static_cast<int64_t>(std::round(
          static_cast<double>(hp.int_min) +
          static_cast<double>(i * (hp.int_max - hp.int_min)) / static_cast<double>(c - 1))));
    }
    return values;
  }
  if (c > static_cast<int64_t>(kMaxGridPoints)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": count ", c, " exceeds the grid limit of ", kMaxGridPoints));
  }
  auto point = [&](double exponent) {
    return hp.type == Type::kLog ? json(std::pow(hp.base, exponent)) : json(exponent);
  };
  if (c == 1) {
    values.push_back(point((hp.min + hp.max) / 2.0));
    return values;
  }
  for (int64_t i = 0; i < c; ++i) {
    values.push_back(
        point(hp.min + static_cast<double>(i) * (hp.max - hp.min) / static_cast<double>(c - 1)));
  }
  return values;
}

absl::StatusOr<std::vector<json>> BuildGrid(const Hyperparameters& hparams) {
  std::vector<Axis> axes;
  RETURN_IF_ERROR(CollectAxes(hparams, {}, "hyperparameters", axes));
  size_t total = 1;
  for (const Axis& axis : axes) {
    if (axis.values.empty()) return std::vector<json>{};
    if (total > kMaxGridPoints / axis.values.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("hyperparameters: the grid has more than ", kMaxGridPoints,
                       " points; lower the `count` of some hyperparameters"));
    }
    total *= axis.values.size();
  }
  std::vector<json> grid;
  grid.reserve(total);
  std::vector<size_t> index(axes.size(), 0);
  for (size_t n = 0; n < total; ++n) {
    json point = json::object();
    for (size_t a = 0; a < axes.size(); ++a) Set(point, axes[a].path, axes[a].values[index[a]]);
    grid.push_back(std::move(point));
    // Odometer: the last axis varies fastest.
    for (size_t a = axes.size(); a-- > 0;) {
      if (++index[a] < axes[a].values.size()) break;
      index[a] = 0;
    }
  }
  return grid;
}

}  // namespace det::searcher
