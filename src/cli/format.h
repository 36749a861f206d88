#pragma once
// Cell formatting shared by the list/describe commands, matching upstream's `render` helpers.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace det::cli {

// RFC 3339 timestamp -> "2024-01-02 03:04:05+0000" (UTC). null, "" and the zero time give "";
// text that is not a timestamp is returned unchanged.
std::string FormatTime(const nlohmann::json& value);
// 0.456 -> "45.6%"; null -> "N/A".
std::string FormatPercent(const nlohmann::json& value);
// 1536 -> "1.5KB", like upstream's sizeof_fmt.
std::string FormatBytes(int64_t bytes);
// "STATE_COMPLETED" -> "COMPLETED".
std::string StripStatePrefix(std::string_view state);
// A JSON value as a table cell: strings as is, null as "", numbers and bools as JSON, objects and
// arrays as compact JSON.
std::string Cell(const nlohmann::json& value);
// A JSON value as upstream's render_objects prints a cell: null as "N/A", booleans as True/False,
// strings as is, numbers as JSON, objects and arrays as Python prints a dict or list
// ({'cluster': True, 'workspace': None}).
std::string PyCell(const nlohmann::json& value);

// {"loss": 0.25, "acc": 0.9} -> "acc=0.9, loss=0.25" (floats with up to 6 significant digits).
std::string FormatMetrics(const nlohmann::json& metrics);
// A string field of an object, "" when absent or not a string.
std::string Str(const nlohmann::json& obj, const char* key);

}  // namespace det::cli
