#include "api/wire.h"

#include <cstdint>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::api {

std::string ToLowerCamel(std::string_view snake) {
  std::string out;
  bool upper = false;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out.push_back(upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
    upper = false;
  }
  return out;
}

const nlohmann::json* FindField(const nlohmann::json& obj, std::string_view snake_name) {
  if (!obj.is_object()) return nullptr;
  for (const std::string& key : {std::string(snake_name), ToLowerCamel(snake_name)}) {
    auto it = obj.find(key);
    if (it != obj.end() && !it->is_null()) return &*it;
  }
  return nullptr;
}

absl::StatusOr<int64_t> ReadInt64(const nlohmann::json& value, std::string_view what) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_float()) {
    double d = value.get<double>();
    // Range first: casting a double outside int64 is undefined behavior. 2^63 itself is out.
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
        d == static_cast<double>(static_cast<int64_t>(d))) {
      return static_cast<int64_t>(d);
    }
  }
  int64_t out;
  if (value.is_string() && absl::SimpleAtoi(value.get_ref<const std::string&>(), &out)) return out;
  return absl::InvalidArgumentError(absl::StrCat(std::string(what), ": expected an integer, got ", value.dump()));
}

absl::StatusOr<int> ReadInt32(const nlohmann::json& value, std::string_view what) {
  ASSIGN_OR_RETURN(int64_t v, ReadInt64(value, what));
  if (v < INT32_MIN || v > INT32_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(what), ": ", v, " is out of range for an int32"));
  }
  return static_cast<int>(v);
}

absl::StatusOr<double> ReadDouble(const nlohmann::json& value, std::string_view what) {
  if (value.is_number()) return value.get<double>();
  double d = 0;
  if (value.is_string() && absl::SimpleAtod(value.get_ref<const std::string&>(), &d)) return d;
  return absl::InvalidArgumentError(absl::StrCat(std::string(what), ": expected a number, got ", value.dump()));
}

absl::StatusOr<std::optional<std::string>> OptionalStringField(const nlohmann::json& obj,
                                                               std::string_view snake_name) {
  const nlohmann::json* v = FindField(obj, snake_name);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(ToLowerCamel(snake_name), ": expected a string, got ", v->dump()));
  }
  return std::optional<std::string>(v->get<std::string>());
}

nlohmann::json Int64(int64_t v) { return std::to_string(v); }

std::string StringField(const nlohmann::json& obj, std::string_view snake_name) {
  const nlohmann::json* f = FindField(obj, snake_name);
  return f != nullptr && f->is_string() ? f->get<std::string>() : std::string();
}

}  // namespace det::api
