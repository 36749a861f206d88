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

namespace {

// Python's repr() of a JSON value: 'text', True, None, [1, 2], {'key': value}.
std::string PyRepr(const nlohmann::json& value) {
  if (value.is_null()) return "None";
  if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
  if (value.is_string()) {
    // Python quotes with ' unless the text holds a ' and no ".
    const std::string& text = value.get_ref<const std::string&>();
    const char quote =
        text.find('\'') != std::string::npos && text.find('"') == std::string::npos ? '"' : '\'';
    std::string out(1, quote);
    for (char c : text) {
      if (c == '\\' || c == quote) out += '\\';
      out += c;
    }
    return out + quote;
  }
  if (value.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < value.size(); ++i) out += (i == 0 ? "" : ", ") + PyRepr(value[i]);
    return out + "]";
  }
  if (value.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, v] : value.items()) {
      out += (first ? "" : ", ") + PyRepr(nlohmann::json(key)) + ": " + PyRepr(v);
      first = false;
    }
    return out + "}";
  }
  return value.dump();
}

}  // namespace

std::string PyCell(const nlohmann::json& value) {
  if (value.is_null()) return "N/A";
  if (value.is_string()) return value.get<std::string>();
  return PyRepr(value);
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
