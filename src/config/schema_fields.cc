#include "config/schema_fields.h"

#include <cstdint>

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_yaml.h"

namespace det::config {
namespace {

using nlohmann::json;

std::string FormatBound(double v) {
  if (std::floor(v) == v && std::abs(v) < 1e15) return absl::StrCat(static_cast<int64_t>(v));
  return absl::StrCat(v);
}

const char* Expected(Kind kind) {
  switch (kind) {
    case Kind::kInt:
      return "an integer";
    case Kind::kNumber:
      return "a number";
    case Kind::kBool:
      return "a boolean";
    case Kind::kString:
      return "a string";
    case Kind::kStringList:
      return "a list of strings";
    case Kind::kIntList:
      return "a list of integers";
    case Kind::kObject:
      return "an object";
    default:
      return "a value";
  }
}

bool CheckRange(const json& v, absl::string_view path, const Field& f, Problems& p) {
  double d = v.get<double>();
  if (f.min) {
    if (f.min_exclusive ? !(d > *f.min) : !(d >= *f.min)) {
      p.Add(path, absl::StrCat("must be ", f.min_exclusive ? "> " : ">= ", FormatBound(*f.min),
                               ", got ", DumpJson(v)));
      return false;
    }
  }
  if (f.max && !(d <= *f.max)) {
    p.Add(path, absl::StrCat("must be <= ", FormatBound(*f.max), ", got ", DumpJson(v)));
    return false;
  }
  return true;
}

constexpr const char* kLengthUnits[] = {"batches", "records", "epochs"};

bool CheckLength(const json& v, absl::string_view path, int64_t min, Problems& p) {
  std::string expected = absl::StrCat(
      "must be a length: exactly one of {batches: N}, {records: N}, {epochs: N} with N >= ", min);
  if (!v.is_object() || v.size() != 1) {
    p.Add(path, absl::StrCat(expected, ", got ", Describe(v)));
    return false;
  }
  const std::string& unit = v.begin().key();
  const json& n = v.begin().value();
  bool known = false;
  for (const char* u : kLengthUnits) known = known || unit == u;
  if (!known) {
    p.Add(path, absl::StrCat(expected, ", got unknown unit \"", unit, "\""));
    return false;
  }
  Field f{.name = "", .kind = Kind::kInt, .min = static_cast<double>(min)};
  return CheckValue(n, JoinPath(path, unit), f, p);
}

}  // namespace

void Problems::Add(absl::string_view path, absl::string_view what) {
  AddLine(absl::StrCat(path, ": ", what));
}

void Problems::Missing(absl::string_view path, absl::string_view what) {
  errors_.push_back(absl::StrCat(path, ": ", what));
  missing_.push_back(true);
}

Problems Problems::WithoutMissing() const {
  Problems out(what_);
  for (size_t i = 0; i < errors_.size(); ++i) {
    if (!missing_[i]) out.AddLine(errors_[i]);
  }
  out.warnings_ = warnings_;
  return out;
}

absl::Status Problems::ToStatus() const {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid ", what_, " configuration:\n  ", absl::StrJoin(errors_, "\n  ")));
}

std::string JoinPath(absl::string_view path, absl::string_view key) {
  if (path.empty()) return std::string(key);
  return absl::StrCat(path, ".", key);
}

std::string IndexPath(absl::string_view path, size_t index) {
  return absl::StrCat(path, "[", index, "]");
}

std::string TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::string:
      return "string";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "value";
  }
}

std::string Describe(const json& v) {
  std::string text = DumpJson(v);
  if (text.size() > 60) text = absl::StrCat(text.substr(0, 57), "...");
  return absl::StrCat(TypeName(v), " ", text);
}

bool IsSet(const json& obj, absl::string_view key) {
  if (!obj.is_object()) return false;
  auto it = obj.find(key);
  return it != obj.end() && !it->is_null();
}

bool Require(const json& obj, absl::string_view path, absl::string_view key, absl::string_view why,
             Problems& p) {
  if (IsSet(obj, key)) return true;
  p.Missing(JoinPath(path, key), absl::StrCat("required", why));
  return false;
}

bool CheckValue(const json& v, absl::string_view path, const Field& f, Problems& p) {
  auto wrong_type = [&] {
    p.Add(path, absl::StrCat("must be ", Expected(f.kind), ", got ", Describe(v)));
    return false;
  };
  switch (f.kind) {
    case Kind::kAny:
      return true;
    case Kind::kInt:
      if (!v.is_number_integer()) return wrong_type();
      // The config reads these as int: a larger value would pass here and fail later.
      if (!f.int64 && (v.get<double>() < INT32_MIN || v.get<double>() > INT32_MAX)) {
        p.Add(path, absl::StrCat("must be between ", INT32_MIN, " and ", INT32_MAX, ", got ", DumpJson(v)));
        return false;
      }
      return CheckRange(v, path, f, p);
    case Kind::kNumber:
      if (!v.is_number()) return wrong_type();
      // YAML can spell infinity (.inf, or a literal past 1.8e308); JSON cannot, and the stored
      // config would read it back as null.
      if (!std::isfinite(v.get<double>())) {
        p.Add(path, absl::StrCat("must be a finite number, got ", v.get<double>() > 0 ? ".inf" : "-.inf"));
        return false;
      }
      return CheckRange(v, path, f, p);
    case Kind::kBool:
      return v.is_boolean() || wrong_type();
    case Kind::kString:
      return v.is_string() || wrong_type();
    case Kind::kObject:
      return v.is_object() || wrong_type();
    case Kind::kEnum:
      for (const std::string& a : f.allowed) {
        if (v.is_string() && v.get_ref<const std::string&>() == a) return true;
      }
      p.Add(path,
            absl::StrCat("must be one of ", absl::StrJoin(f.allowed, ", "), ", got ", DumpJson(v)));
      return false;
    case Kind::kStringList:
    case Kind::kIntList: {
      if (!v.is_array()) return wrong_type();
      bool ok = true;
      Field item{.name = "",
                 .kind = f.kind == Kind::kStringList ? Kind::kString : Kind::kInt,
                 .min = f.min,
                 .min_exclusive = f.min_exclusive,
                 .max = f.max};
      for (size_t i = 0; i < v.size(); ++i)
        ok = CheckValue(v[i], IndexPath(path, i), item, p) && ok;
      return ok;
    }
    case Kind::kLength:
      return CheckLength(v, path, f.min ? static_cast<int64_t>(*f.min) : 0, p);
    case Kind::kSearcherLength:
      if (v.is_number_integer()) {
        Field n{.name = "", .kind = Kind::kInt, .min = 0};
        return CheckValue(v, path, n, p);
      }
      return CheckLength(v, path, 1, p);
  }
  return true;
}

bool CheckObject(json& obj, absl::string_view path, const std::vector<Field>& fields, Problems& p,
                 const CheckOptions& options) {
  if (obj.is_null()) obj = json::object();
  if (!obj.is_object()) {
    p.Add(path.empty() ? "config" : path, absl::StrCat("must be an object, got ", Describe(obj)));
    return false;
  }
  for (const auto& [key, value] : obj.items()) {
    bool known = false;
    for (const Field& f : fields) {
      if (key == f.name) {
        known = true;
        break;
      }
    }
    if (known) continue;
    const char* hint = nullptr;
    for (const KeyHint& h : options.hints) {
      if (key == h.key) hint = h.hint;
    }
    std::vector<std::string> names;
    names.reserve(fields.size());
    for (const Field& f : fields) names.emplace_back(f.name);
    if (path.empty()) {
      p.Add(key,
            absl::StrCat("unknown key; allowed top-level keys are ", absl::StrJoin(names, ", ")));
    } else if (hint != nullptr) {
      p.Add(path, absl::StrCat("unknown key \"", key, "\" (", hint, ")"));
    } else {
      p.Add(path, absl::StrCat("unknown key \"", key, "\"; allowed keys are ",
                               absl::StrJoin(names, ", ")));
    }
  }
  for (const Field& f : fields) {
    auto it = obj.find(f.name);
    if (it == obj.end() || it->is_null()) {
      if (!f.default_value.is_null() || options.fill_null_defaults) obj[f.name] = f.default_value;
      continue;
    }
    CheckValue(*it, JoinPath(path, f.name), f, p);
  }
  return true;
}

}  // namespace det::config
