#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"

namespace det {

// Parses YAML text into JSON. Scalars are typed as YAML 1.2 core schema would (int, float, bool,
// null, string); errors carry the line and column: "YAML syntax error at line 3, column 5: ...".
// Documents of more than kMaxYamlValues values (scalars, lists and maps, with aliases expanded:
// "billion laughs") are refused with InvalidArgument.
inline constexpr size_t kMaxYamlValues = 100'000;
// Nor may they nest more than kMaxYamlDepth levels (an alias cycle nests without end).
inline constexpr size_t kMaxYamlDepth = 200;
absl::StatusOr<nlohmann::json> ParseYaml(std::string_view text);
// Types one scalar like YAML would: "3" -> 3, "true" -> true, "1e-3" -> 0.001, "x" -> "x".
nlohmann::json YamlScalarToJson(const std::string& scalar);
// Emits JSON as block-style YAML.
std::string ToYaml(const nlohmann::json& value);
// Serializes JSON; invalid UTF-8 inside strings (task output, echoed input) becomes U+FFFD instead of
// throwing, so untrusted text can always be answered.
std::string DumpJson(const nlohmann::json& value);
// Parses JSON text, mapping exceptions to InvalidArgument with the parser's message.
absl::StatusOr<nlohmann::json> ParseJson(std::string_view text);

}  // namespace det
