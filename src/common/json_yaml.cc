#include "common/json_yaml.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace det {
namespace {

using nlohmann::json;

bool IsIntLiteral(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// YAML 1.2 core-schema floats: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool IsFloatLiteral(const std::string& s) {
  bool digit = false;
  for (char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') {
      return false;
    }
  }
  if (!digit) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// What a document may hold: `values` counts the values still allowed (aliases are expanded, so
// this bounds "billion laughs"); `depth` bounds nesting, which also stops an alias that refers to a
// node containing it (a cycle). Once either runs out the rest is skipped; the caller reports it.
struct YamlLimits {
  size_t values;
  bool too_deep = false;
};

json NodeToJson(const YAML::Node& node, YamlLimits* limits, size_t depth = 0) {
  if (limits->values == 0 || limits->too_deep) return nullptr;
  if (depth > kMaxYamlDepth) {
    limits->too_deep = true;
    return nullptr;
  }
  --limits->values;
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // Quoted scalars ("3", '3') stay strings; plain ones are typed.
      if (node.Tag() == "!") return node.Scalar();
      return YamlScalarToJson(node.Scalar());
    case YAML::NodeType::Sequence: {
      json arr = json::array();
      for (const auto& item : node) {
        arr.push_back(NodeToJson(item, limits, depth + 1));
        if (limits->values == 0 || limits->too_deep) break;
      }
      return arr;
    }
    case YAML::NodeType::Map: {
      json obj = json::object();
      for (const auto& kv : node) {
        obj[kv.first.as<std::string>()] = NodeToJson(kv.second, limits, depth + 1);
        if (limits->values == 0 || limits->too_deep) break;
      }
      return obj;
    }
  }
  return nullptr;
}

// Words, paths, versions, commands: letters, digits, space and `_-./+@=,()` (any UTF-8 too),
// starting with a letter, digit, `_`, `/` or UTF-8, not ending with a space. Nothing YAML reads as
// syntax (`:`, `#`, `-` or `.` first, quotes, brackets, control characters) can appear.
bool IsSafePlainScalar(const std::string& s) {
  if (s.empty() || s.back() == ' ') return false;
  auto safe_first = [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '/' || c >= 0x80;
  };
  if (!safe_first(static_cast<unsigned char>(s.front()))) return false;
  for (unsigned char c : s) {
    if (!(safe_first(c) || std::strchr(" -.+@=,()", c) != nullptr) || c == '\0') return false;
  }
  return true;
}

void EmitJson(YAML::Emitter& out, const json& v) {
  if ((v.is_object() || v.is_array()) && v.empty()) {
    out << YAML::Flow << (v.is_object() ? YAML::BeginMap : YAML::BeginSeq)
        << (v.is_object() ? YAML::EndMap : YAML::EndSeq);
  } else if (v.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [k, item] : v.items()) {
      // YAML limits implicit keys to 1024 characters as written; longer ones need the explicit
      // `? key` form. Escapes can make a key up to 10 times longer than its bytes (yaml-cpp also
      // quotes and escapes a "plain" key whose bytes are not valid UTF-8), so any long key is
      // explicit.
      if (k.size() > 100) out << YAML::LongKey;
      out << YAML::Key;
      if (!IsSafePlainScalar(k)) out << YAML::DoubleQuoted;  // keys are strings whatever they say
      out << k << YAML::Value;
      EmitJson(out, item);
    }
    out << YAML::EndMap;
  } else if (v.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& item : v) EmitJson(out, item);
    out << YAML::EndSeq;
  } else if (v.is_null()) {
    out << YAML::Null;
  } else if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    // Keep strings that would re-type as something else quoted, and every string that is not
    // plainly safe: yaml-cpp emits some plain although they read back differently ("--- x" as a
    // document marker, "k :\r" as a map).
    if (!YamlScalarToJson(s).is_string() || !IsSafePlainScalar(s)) {
      out << YAML::DoubleQuoted << s;
    } else {
      out << s;
    }
  } else if (v.is_boolean()) {
    out << v.get<bool>();
  } else if (v.is_number_unsigned()) {
    out << v.get<uint64_t>();
  } else if (v.is_number_integer()) {
    out << v.get<int64_t>();
  } else if (double d = v.get<double>(); std::isinf(d)) {
    // json::dump() writes infinities as `null`; YAML has its own spelling.
    out << (d > 0 ? ".inf" : "-.inf");
  } else {
    out << v.dump();
  }
}

}  // namespace

json YamlScalarToJson(const std::string& s) {
  if (s == "null" || s == "Null" || s == "NULL" || s == "~" || s.empty()) return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (IsIntLiteral(s)) {
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == 0) return v;
  }
  if (IsFloatLiteral(s)) return std::strtod(s.c_str(), nullptr);
  if (s == ".inf" || s == ".Inf" || s == "+.inf") return INFINITY;
  if (s == "-.inf" || s == "-.Inf") return -INFINITY;
  return s;
}

absl::StatusOr<json> ParseYaml(std::string_view text) {
  try {
    YAML::Node root = YAML::Load(std::string(text));
    YamlLimits limits{.values = kMaxYamlValues + 1};
    json out = NodeToJson(root, &limits);
    if (limits.too_deep) {
      return absl::InvalidArgumentError(absl::StrCat(
          "YAML document nested more than ", kMaxYamlDepth,
          " levels deep (or an alias refers to a node that contains it)"));
    }
    if (limits.values == 0) {
      return absl::InvalidArgumentError(absl::StrCat("YAML document too large: more than ",
                                                     kMaxYamlValues, " values (aliases expanded)"));
    }
    return out;
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("YAML syntax error at line ", e.mark.line + 1,
                                                   ", column ", e.mark.column + 1, ": ", e.msg));
  }
}

std::string ToYaml(const json& value) {
  YAML::Emitter out;
  EmitJson(out, value);
  return std::string(out.c_str()) + "\n";
}

std::string DumpJson(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

absl::StatusOr<json> ParseJson(std::string_view text) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON: ", e.what()));
  }
}

}  // namespace det
