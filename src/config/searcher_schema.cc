#include "config/searcher_schema.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"

namespace det::config {
namespace {

using nlohmann::json;

constexpr char kKnownSearchers[] = "single, random, grid, async_halving, adaptive_asha";

// The most rungs an ASHA search may have (the searcher's own bound: divisor^63 already exceeds any
// max_time).
constexpr double kMaxRungs = 64;

std::vector<Field> Common() {
  return {{.name = "name", .kind = Kind::kString},
          {.name = "metric", .kind = Kind::kString},
          {.name = "smaller_is_better", .kind = Kind::kBool, .default_value = true},
          {.name = "source_trial_id", .kind = Kind::kInt},
          {.name = "source_checkpoint_uuid", .kind = Kind::kString}};
}

Field MaxTrials(std::optional<double> max = std::nullopt) {
  return {.name = "max_trials", .kind = Kind::kInt, .min = 1, .max = max};
}
Field MaxConcurrent() {
  return {.name = "max_concurrent_trials", .kind = Kind::kInt, .default_value = 16, .min = 0};
}
Field Divisor() {
  return {.name = "divisor",
          .kind = Kind::kNumber,
          .default_value = 4,
          .min = 1,
          .min_exclusive = true};
}
Field Mode() {
  return {.name = "mode",
          .kind = Kind::kEnum,
          .default_value = "standard",
          .allowed = {"aggressive", "standard", "conservative"}};
}
Field MaxRungs() { return {.name = "max_rungs", .kind = Kind::kInt, .default_value = 5, .min = 1}; }
Field BracketRungs() {
  return {.name = "bracket_rungs",
          .kind = Kind::kIntList,
          .default_value = json::array(),
          .min = 1,
          .max = kMaxRungs};
}
Field TimeMetric() { return {.name = "time_metric", .kind = Kind::kString}; }
Field MaxTime() { return {.name = "max_time", .kind = Kind::kInt, .min = 1, .int64 = true}; }
Field StopOnce() { return {.name = "stop_once", .kind = Kind::kBool, .default_value = false}; }
Field MaxLength() { return {.name = "max_length", .kind = Kind::kSearcherLength}; }
// ASHA's max_length: check-positive-length (no bare integer).
Field PositiveMaxLength() { return {.name = "max_length", .kind = Kind::kLength, .min = 1}; }
Field Budget() { return {.name = "budget", .kind = Kind::kSearcherLength}; }
Field TrainStragglers() { return {.name = "train_stragglers", .kind = Kind::kBool}; }

const std::map<std::string, std::vector<Field>>& Variants() {
  static const auto* variants = [] {
    auto* m = new std::map<std::string, std::vector<Field>>{
        {"single", {MaxLength()}},
        {"random", {MaxTrials(), MaxConcurrent(), MaxLength()}},
        {"grid", {MaxConcurrent(), MaxLength()}},
        {"async_halving",
         {{.name = "num_rungs", .kind = Kind::kInt, .min = 1, .max = kMaxRungs},
          MaxTrials(),
          Divisor(),
          MaxConcurrent(),
          TimeMetric(),
          MaxTime(),
          PositiveMaxLength(),
          StopOnce()}},
        {"adaptive_asha",
         {MaxTrials(), BracketRungs(), Divisor(), Mode(), MaxRungs(), MaxConcurrent(), TimeMetric(),
          MaxTime(), PositiveMaxLength(), StopOnce()}},
        {"custom",
         {{.name = "unit", .kind = Kind::kEnum, .allowed = {"batches", "records", "epochs"}}}},
        {"adaptive",
         {MaxLength(), Budget(), BracketRungs(), Divisor(), TrainStragglers(), Mode(), MaxRungs()}},
        {"adaptive_simple",
         {MaxLength(), MaxTrials(2000), Divisor(), Mode(), MaxRungs(), MaxConcurrent()}},
        {"sync_halving",
         {MaxLength(),
          Budget(),
          {.name = "num_rungs", .kind = Kind::kInt, .min = 1},
          Divisor(),
          TrainStragglers()}},
    };
    for (auto& [name, fields] : *m) {
      std::vector<Field> all = Common();
      all.insert(all.end(), fields.begin(), fields.end());
      fields = std::move(all);
    }
    return m;
  }();
  return *variants;
}

}  // namespace

bool IsRemovedSearcher(const std::string& name) {
  return name == "custom" || name == "adaptive" || name == "adaptive_simple" ||
         name == "sync_halving";
}

void CheckSearcher(json& searcher, Problems& p) {
  if (searcher.is_null()) {
    p.Missing("searcher", "required, e.g. {name: single, metric: validation_loss}");
    return;
  }
  if (!searcher.is_object()) {
    p.Add("searcher", absl::StrCat("must be an object, got ", Describe(searcher)));
    return;
  }
  if (!IsSet(searcher, "name")) {
    p.Missing("searcher.name", absl::StrCat("required; one of ", kKnownSearchers));
    return;
  }
  const json& name_value = searcher["name"];
  auto variant =
      name_value.is_string() ? Variants().find(name_value.get<std::string>()) : Variants().end();
  if (variant == Variants().end()) {
    p.Add("searcher.name", absl::StrCat("unknown searcher ", DumpJson(name_value),
                                        "; expected one of ", kKnownSearchers));
    return;
  }
  const std::string& name = variant->first;
  const bool stop_once_set = IsSet(searcher, "stop_once");
  CheckObject(searcher, "searcher", variant->second, p);
  if (IsRemovedSearcher(name)) {
    p.Add("searcher.name",
          absl::StrCat("the '", name,
                       "' searcher has been removed and is not valid for new experiments"));
  }
  Require(searcher, "searcher", "metric",
          ": the validation metric the searcher optimizes, e.g. validation_loss", p);
  if (name == "random" || name == "async_halving" || name == "adaptive_asha") {
    Require(searcher, "searcher", "max_trials", absl::StrCat(" for the ", name, " searcher"), p);
  }
  if (name == "async_halving") {
    Require(searcher, "searcher", "num_rungs", " for the async_halving searcher", p);
  }
  if ((name == "async_halving" || name == "adaptive_asha") &&
      (!IsSet(searcher, "max_time") || !IsSet(searcher, "time_metric"))) {
    p.Add(
        "searcher",
        absl::StrCat("the ", name,
                     " searcher requires both max_time and time_metric (ASHA no longer "
                     "uses max_length; set time_metric to a validation metric key such as batches "
                     "and max_time to the budget in its units)"));
  }
  if (IsSet(searcher, "max_length"))
    p.Warn(absl::StrCat("searcher.max_length is deprecated in 0.38: ", kOnlyTrialClasses));
  if (stop_once_set) p.Warn("searcher.stop_once is deprecated in 0.38 and ignored");
}

}  // namespace det::config
