#include "searcher/hyperparameters.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::searcher {

Hyperparameter::Hyperparameter() = default;
Hyperparameter::~Hyperparameter() = default;
Hyperparameter::Hyperparameter(const Hyperparameter&) = default;
Hyperparameter::Hyperparameter(Hyperparameter&&) noexcept = default;
Hyperparameter& Hyperparameter::operator=(const Hyperparameter&) = default;
Hyperparameter& Hyperparameter::operator=(Hyperparameter&&) noexcept = default;
namespace {

using nlohmann::json;

absl::Status Error(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::StatusOr<double> Number(const json& hp, const std::string& path, const char* key) {
  if (!hp.contains(key)) return Error(path, absl::StrCat(key, " is required"));
  const json& v = hp[key];
  if (!v.is_number()) return Error(path, absl::StrCat(key, " must be a number"));
  double d = v.get<double>();
  if (!std::isfinite(d)) return Error(path, absl::StrCat(key, " must be finite"));
  return d;
}

absl::StatusOr<int64_t> Integer(const json& hp, const std::string& path, const char* key) {
  ASSIGN_OR_RETURN(double d, Number(hp, path, key));
  if (d != std::floor(d) || std::fabs(d) > 9.0e15) {
    return Error(path, absl::StrCat(key, " must be an integer"));
  }
  return static_cast<int64_t>(d);
}

absl::Status ParseCount(const json& hp, const std::string& path, Hyperparameter& out) {
  if (!hp.contains("count") || hp["count"].is_null()) return absl::OkStatus();
  ASSIGN_OR_RETURN(int64_t c, Integer(hp, path, "count"));
  if (c < 1) return Error(path, absl::StrCat("count must be >= 1, got ", c));
  out.count = c;
  return absl::OkStatus();
}

absl::StatusOr<Hyperparameters> ParseMap(const json& map, const std::string& prefix);

absl::StatusOr<Hyperparameter> ParseOne(const json& hp, const std::string& path) {
  Hyperparameter out;
  if (!hp.is_object()) {
    out.type = Hyperparameter::Type::kConst;
    out.val = hp;
    return out;
  }
  auto type_it = hp.find("type");
  if (type_it == hp.end() || !type_it->is_string()) {
    out.type = Hyperparameter::Type::kNested;
    ASSIGN_OR_RETURN(out.nested, ParseMap(hp, path));
    return out;
  }
  const std::string type = type_it->get<std::string>();
  if (type == "const") {
    out.type = Hyperparameter::Type::kConst;
    out.val = hp.value("val", json());
  } else if (type == "int") {
    out.type = Hyperparameter::Type::kInt;
    ASSIGN_OR_RETURN(out.int_min, Integer(hp, path, "minval"));
    ASSIGN_OR_RETURN(out.int_max, Integer(hp, path, "maxval"));
    if (out.int_min >= out.int_max) return Error(path, "minval must be less than maxval");
    RETURN_IF_ERROR(ParseCount(hp, path, out));
  } else if (type == "double" || type == "log") {
    out.type = type == "double" ? Hyperparameter::Type::kDouble : Hyperparameter::Type::kLog;
    ASSIGN_OR_RETURN(out.min, Number(hp, path, "minval"));
    ASSIGN_OR_RETURN(out.max, Number(hp, path, "maxval"));
    if (out.min >= out.max) return Error(path, "minval must be less than maxval");
    if (type == "log") {
      ASSIGN_OR_RETURN(out.base, Number(hp, path, "base"));
      if (out.base <= 0) return Error(path, "base must be > 0");
    }
    RETURN_IF_ERROR(ParseCount(hp, path, out));
  } else if (type == "categorical") {
    out.type = Hyperparameter::Type::kCategorical;
    if (!hp.contains("vals") || !hp["vals"].is_array() || hp["vals"].empty()) {
      return Error(path, "vals must be a non-empty array");
    }
    out.vals.assign(hp["vals"].begin(), hp["vals"].end());
  } else {
    return Error(path, absl::StrCat("unknown hyperparameter type \"", type,
                                    "\" (want const, int, double, log or categorical)"));
  }
  return out;
}

absl::StatusOr<Hyperparameters> ParseMap(const json& map, const std::string& prefix) {
  Hyperparameters out;
  for (auto it = map.begin(); it != map.end(); ++it) {  // nlohmann objects iterate sorted by key
    ASSIGN_OR_RETURN(Hyperparameter hp, ParseOne(it.value(), absl::StrCat(prefix, ".", it.key())));
    out.emplace_back(it.key(), std::move(hp));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace

absl::StatusOr<Hyperparameters> ParseHyperparameters(const nlohmann::json& section) {
  if (section.is_null()) return Hyperparameters{};
  if (!section.is_object()) {
    return absl::InvalidArgumentError("hyperparameters: must be a map of name to hyperparameter");
  }
  return ParseMap(section, "hyperparameters");
}

}  // namespace det::searcher
