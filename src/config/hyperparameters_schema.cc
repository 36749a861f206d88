#include "config/hyperparameters_schema.h"

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"

namespace det::config {
namespace {

using nlohmann::json;

const std::vector<Field>& ConstFields() {
  static const auto* f = new std::vector<Field>{{.name = "type"}, {.name = "val"}};
  return *f;
}
const std::vector<Field>& IntFields() {
  static const auto* f = new std::vector<Field>{{.name = "type"},
                                                {.name = "minval", .kind = Kind::kInt},
                                                {.name = "maxval", .kind = Kind::kInt},
                                                {.name = "count", .kind = Kind::kInt, .min = 1}};
  return *f;
}
const std::vector<Field>& DoubleFields() {
  static const auto* f = new std::vector<Field>{{.name = "type"},
                                                {.name = "minval", .kind = Kind::kNumber},
                                                {.name = "maxval", .kind = Kind::kNumber},
                                                {.name = "count", .kind = Kind::kInt, .min = 1}};
  return *f;
}
const std::vector<Field>& LogFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "type"},
      {.name = "minval", .kind = Kind::kNumber},
      {.name = "maxval", .kind = Kind::kNumber},
      {.name = "base", .kind = Kind::kNumber, .min = 0, .min_exclusive = true},
      {.name = "count", .kind = Kind::kInt, .min = 1}};
  return *f;
}
const std::vector<Field>& CategoricalFields() {
  static const auto* f = new std::vector<Field>{{.name = "type"}, {.name = "vals"}};
  return *f;
}

void CheckOne(json& hp, const std::string& path, bool grid, Problems& p);

void CheckNested(json& hps, const std::string& path, bool grid, Problems& p) {
  for (auto& [name, hp] : hps.items()) CheckOne(hp, JoinPath(path, name), grid, p);
}

void CheckOne(json& hp, const std::string& path, bool grid, Problems& p) {
  if (!hp.is_object()) {
    hp = json{{"type", "const"}, {"val", std::move(hp)}};
    return;
  }
  if (!hp.contains("type")) {
    CheckNested(hp, path, grid, p);
    return;
  }
  const json& type_value = hp["type"];
  std::string type = type_value.is_string() ? type_value.get<std::string>() : "";
  const std::vector<Field>* fields = type == "const"         ? &ConstFields()
                                     : type == "int"         ? &IntFields()
                                     : type == "double"      ? &DoubleFields()
                                     : type == "log"         ? &LogFields()
                                     : type == "categorical" ? &CategoricalFields()
                                                             : nullptr;
  if (fields == nullptr) {
    p.Add(path, absl::StrCat("unknown type ", DumpJson(type_value),
                             "; expected one of const, int, double, log, categorical"));
    return;
  }
  CheckObject(hp, path, *fields, p, {.fill_null_defaults = false});
  std::string why = absl::StrCat(" for type ", type);
  if (type == "const") {
    if (!hp.contains("val")) p.Missing(JoinPath(path, "val"), absl::StrCat("required", why));
    return;
  }
  if (type == "categorical") {
    if (!hp.contains("vals") || !hp["vals"].is_array() || hp["vals"].empty()) {
      p.Add(JoinPath(path, "vals"),
            absl::StrCat("must be a non-empty list, got ",
                         hp.contains("vals") ? Describe(hp["vals"]) : std::string("nothing")));
    }
    return;
  }
  bool have_min = Require(hp, path, "minval", why, p);
  bool have_max = Require(hp, path, "maxval", why, p);
  if (type == "log") Require(hp, path, "base", why, p);
  if (have_min && have_max && hp["minval"].is_number() && hp["maxval"].is_number() &&
      !(hp["minval"].get<double>() < hp["maxval"].get<double>())) {
    p.Add(JoinPath(path, "maxval"),
          absl::StrCat("must be greater than minval (", DumpJson(hp["minval"]), "), got ",
                       DumpJson(hp["maxval"])));
  }
  if (grid && !IsSet(hp, "count")) {
    p.Missing(JoinPath(path, "count"), "required when the grid searcher is used");
  }
}

}  // namespace

void CheckHyperparameters(json& hps, bool grid, Problems& p) {
  if (hps.is_null()) hps = json::object();
  if (!hps.is_object()) {
    p.Add("hyperparameters",
          absl::StrCat("must be a mapping of name to hyperparameter, got ", Describe(hps)));
    return;
  }
  CheckNested(hps, "hyperparameters", grid, p);
}


}  // namespace det::config
