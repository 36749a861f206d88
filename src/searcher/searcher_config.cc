#include "searcher/searcher_config.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::searcher {
namespace {

using nlohmann::json;

absl::Status FieldError(const std::string& key, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("searcher.", key, ": ", what));
}

bool Present(const json& s, const char* key) { return s.contains(key) && !s[key].is_null(); }

// An integer field (integral JSON numbers only) >= min; `out` keeps its default when absent.
// A 64-bit integer (the config schema's int64 fields, e.g. max_time); a float with no fraction counts.
absl::Status ReadInt(const json& s, const char* key, int64_t min, int64_t& out) {
  if (!Present(s, key)) return absl::OkStatus();
  const json& v = s[key];
  int64_t i = 0;
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return FieldError(key, "must be an integer");
    }
    i = static_cast<int64_t>(v.get<uint64_t>());
  } else if (v.is_number_integer()) {
    i = v.get<int64_t>();
  } else if (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) &&
             std::fabs(v.get<double>()) < 9.0e15) {
    i = static_cast<int64_t>(v.get<double>());
  } else {
    return FieldError(key, "must be an integer");
  }
  if (i < min) return FieldError(key, absl::StrCat("must be >= ", min, ", got ", i));
  out = i;
  return absl::OkStatus();
}

// A 32-bit integer.
absl::Status ReadInt(const json& s, const char* key, int64_t min, int& out) {
  int64_t v = out;
  RETURN_IF_ERROR(ReadInt(s, key, min, v));
  if (v > std::numeric_limits<int>::max()) return FieldError(key, "must be an integer");
  out = static_cast<int>(v);
  return absl::OkStatus();
}

absl::Status Require(const json& s, const char* key) {
  if (!Present(s, key)) return FieldError(key, "required");
  return absl::OkStatus();
}

}  // namespace

std::string SearcherConfig::MethodType() const {
  if (name == "async_halving") return "asha";
  return name;
}

absl::StatusOr<SearcherConfig> ParseSearcherConfig(const json& experiment_config) {
  if (!experiment_config.is_object() || !Present(experiment_config, "searcher") ||
      !experiment_config["searcher"].is_object()) {
    return absl::InvalidArgumentError("searcher: required");
  }
  const json& s = experiment_config["searcher"];
  SearcherConfig c;
  if (!Present(s, "name") || !s["name"].is_string()) return FieldError("name", "required");
  c.name = s["name"].get<std::string>();
  for (const char* removed : {"custom", "adaptive", "adaptive_simple", "sync_halving"}) {
    if (c.name == removed) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the '", removed, "' searcher has been removed and is not valid for new experiments"));
    }
  }
  if (c.name != "single" && c.name != "random" && c.name != "grid" && c.name != "async_halving" &&
      c.name != "adaptive_asha") {
    return FieldError("name", absl::StrCat("unknown searcher \"", c.name,
                                           "\" (want single, random, grid, async_halving or "
                                           "adaptive_asha)"));
  }
  if (!Present(s, "metric") || !s["metric"].is_string() || s["metric"].get<std::string>().empty()) {
    return FieldError("metric", "required");
  }
  c.metric = s["metric"].get<std::string>();
  if (Present(s, "smaller_is_better")) {
    if (!s["smaller_is_better"].is_boolean())
      return FieldError("smaller_is_better", "must be a bool");
    c.smaller_is_better = s["smaller_is_better"].get<bool>();
  }
  if (c.name == "single") {
    c.max_trials = 1;
    c.max_concurrent_trials = 1;
    return c;
  }
  RETURN_IF_ERROR(ReadInt(s, "max_concurrent_trials", 0, c.max_concurrent_trials));
  if (c.name == "grid") return c;

  RETURN_IF_ERROR(Require(s, "max_trials"));
  RETURN_IF_ERROR(ReadInt(s, "max_trials", 1, c.max_trials));
  if (c.name == "random") return c;

  if (!Present(s, "max_time") || !Present(s, "time_metric")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the `", c.name, "` searcher requires `max_time` and `time_metric` to be set"));
  }
  if (!s["time_metric"].is_string() || s["time_metric"].get<std::string>().empty()) {
    return FieldError("time_metric", "must be a metric name");
  }
  c.time_metric = s["time_metric"].get<std::string>();
  int64_t max_time = 0;
  RETURN_IF_ERROR(ReadInt(s, "max_time", 1, max_time));
  c.max_time = static_cast<uint64_t>(max_time);
  if (Present(s, "divisor")) {
    if (!s["divisor"].is_number() || !(s["divisor"].get<double>() > 1.0) ||
        !std::isfinite(s["divisor"].get<double>())) {
      return FieldError("divisor", "must be a number > 1");
    }
    c.divisor = s["divisor"].get<double>();
  }
  if (c.name == "async_halving") {
    RETURN_IF_ERROR(Require(s, "num_rungs"));
    RETURN_IF_ERROR(ReadInt(s, "num_rungs", 1, c.num_rungs));
    if (c.num_rungs > 64) {  // divisor^63 already exceeds any max_time
      return FieldError("num_rungs", absl::StrCat("must be <= 64, got ", c.num_rungs));
    }
    return c;
  }
  RETURN_IF_ERROR(ReadInt(s, "max_rungs", 1, c.max_rungs));
  if (Present(s, "mode")) {
    if (!s["mode"].is_string()) return FieldError("mode", "must be a string");
    c.mode = s["mode"].get<std::string>();
    if (c.mode != "aggressive" && c.mode != "standard" && c.mode != "conservative") {
      return FieldError("mode", absl::StrCat("must be aggressive, standard or conservative, got \"",
                                             c.mode, "\""));
    }
  }
  if (Present(s, "bracket_rungs")) {
    if (!s["bracket_rungs"].is_array())
      return FieldError("bracket_rungs", "must be a list of ints");
    for (const json& r : s["bracket_rungs"]) {
      if (!r.is_number_integer() || r.get<int64_t>() < 1 || r.get<int64_t>() > 64) {
        return FieldError("bracket_rungs", "entries must be integers in 1..64");
      }
      c.bracket_rungs.push_back(r.get<int>());
    }
  }
  return c;
}

absl::StatusOr<uint32_t> ExperimentSeed(const json& experiment_config) {
  if (!experiment_config.is_object() || !Present(experiment_config, "reproducibility")) return 0u;
  const json& r = experiment_config["reproducibility"];
  if (!r.is_object() || !Present(r, "experiment_seed")) return 0u;
  const json& seed = r["experiment_seed"];
  if (!seed.is_number_integer() || seed.get<int64_t>() < 0 ||
      seed.get<int64_t>() > int64_t{0xffffffff}) {
    return absl::InvalidArgumentError(
        "reproducibility.experiment_seed: must be an integer in 0..4294967295");
  }
  return static_cast<uint32_t>(seed.get<int64_t>());
}

}  // namespace det::searcher
