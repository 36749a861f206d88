#include "cli/format.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "common/time_util.h"

namespace det::cli {

std::string FormatTime(const nlohmann::json& value) {
  if (!value.is_string()) return "";
  const std::string& text = value.get_ref<const std::string&>();
  if (text.empty() || absl::StartsWith(text, "0001-01-01")) return "";
  auto t = ParseRfc3339(text);
  if (!t.ok()) return text;
  std::time_t secs = std::chrono::system_clock::to_time_t(*t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S+0000", &tm);
  return buf;
}

std::string FormatPercent(const nlohmann::json& value) {
  if (!value.is_number()) return "N/A";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", value.get<double>() * 100.0);
  return buf;
}

std::string FormatBytes(int64_t bytes) {
  static const char* kUnits[] = {"", "K", "M", "G", "T", "P", "E", "Z"};
  double v = static_cast<double>(bytes);
  char buf[32];
  for (const char* unit : kUnits) {
    if (std::fabs(v) < 1024.0) {
      std::snprintf(buf, sizeof(buf), "%3.1f%sB", v, unit);
      return buf;
    }
    v /= 1024.0;
  }
  std::snprintf(buf, sizeof(buf), "%.1fYB", v);
  return buf;
}

std::string StripStatePrefix(std::string_view state) {
  if (state.substr(0, 6) == "STATE_") state.remove_prefix(6);
  return std::string(state);
}

std::string Cell(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string FormatMetrics(const nlohmann::json& metrics) {
  if (!metrics.is_object()) return "";
  std::string out;
  for (const auto& [name, v] : metrics.items()) {
    if (!out.empty()) out += ", ";
    out += name;
    out += '=';
    if (v.is_number_float()) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.6g", v.get<double>());
      out += buf;
    } else {
      out += Cell(v);
    }
  }
  return out;
}

std::string Str(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

}  // namespace det::cli
