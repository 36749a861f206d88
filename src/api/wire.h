#pragma once
// Helpers for upstream's JSON conventions (reference §0.2): int64 as strings, both field spellings
// accepted on input.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"

namespace det::api {

// "experiment_id" -> "experimentId".
std::string ToLowerCamel(std::string_view snake);
// Looks up `snake_name` or its lowerCamel form in an object; nullptr when absent or null.
const nlohmann::json* FindField(const nlohmann::json& obj, std::string_view snake_name);
// An int64 given as a JSON number or a decimal string; `what` names the field in the error.
absl::StatusOr<int64_t> ReadInt64(const nlohmann::json& value, std::string_view what);
// An int32 the same way; values outside int32 are an error, not a wrap-around.
absl::StatusOr<int> ReadInt32(const nlohmann::json& value, std::string_view what);
// A double given as a JSON number or a decimal string (jsonpb accepts both).
absl::StatusOr<double> ReadDouble(const nlohmann::json& value, std::string_view what);
// An optional string field, accepting both spellings: nullopt when absent or null, an error naming
// the field (lowerCamel) when it is not a string.
absl::StatusOr<std::optional<std::string>> OptionalStringField(const nlohmann::json& obj,
                                                               std::string_view snake_name);
// int64 values are emitted as JSON strings.
nlohmann::json Int64(int64_t v);
// Optional string field, accepting both spellings; "" when absent.
std::string StringField(const nlohmann::json& obj, std::string_view snake_name);

}  // namespace det::api
