// ParseYaml -> ToYaml -> ParseYaml must give the same JSON (src/common/json_yaml.h), and every
// scalar YamlScalarToJson types must survive the emitter.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_yaml.h"
#include "fuzz_fail.h"

namespace {

// Equal, except that NaN (from ".nan") only equals NaN.
bool SameJson(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number_float() && b.is_number_float()) {
    double x = a.get<double>(), y = b.get<double>();
    return x == y || (x != x && y != y);
  }
  if (a.type() != b.type() || a.size() != b.size()) return false;
  if (a.is_object()) {
    for (const auto& [k, v] : a.items()) {
      auto it = b.find(k);
      if (it == b.end() || !SameJson(v, *it)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameJson(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace

using det::fuzz::Fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);

  // A scalar on its own: typing it never throws, and the emitted form reads back the same.
  nlohmann::json scalar = det::YamlScalarToJson(text);
  (void)det::DumpJson(scalar);

  absl::StatusOr<nlohmann::json> parsed = det::ParseYaml(text);
  if (!parsed.ok()) return 0;
  std::string dumped = det::DumpJson(*parsed);
  std::string yaml = det::ToYaml(*parsed);
  absl::StatusOr<nlohmann::json> again = det::ParseYaml(yaml);
  if (!again.ok())
    Fail("ToYaml output does not parse", dumped, yaml + "\n" + again.status().ToString());
  // Invalid UTF-8 (replaced by DumpJson) and noncharacters such as U+FFFF (replaced by yaml-cpp's
  // emitter) come back as U+FFFD; compare only documents without it.
  std::string dumped_again = det::DumpJson(*again);
  if (dumped.find("\xEF\xBF\xBD") == std::string::npos &&
      dumped_again.find("\xEF\xBF\xBD") == std::string::npos && !SameJson(*parsed, *again)) {
    Fail("ParseYaml(ToYaml(x)) != x", dumped, det::DumpJson(*again));
  }
  return 0;
}
