#include "config/resources_schema.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace det::config {
namespace {

using nlohmann::json;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

size_t Digits(absl::string_view s, size_t i) {
  size_t start = i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i - start;
}

bool IsOneOf(char c, absl::string_view set) { return set.find(c) != absl::string_view::npos; }

const std::vector<Field>& ResourceFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "slots_per_trial", .kind = Kind::kInt, .default_value = 1, .min = 0},
      {.name = "max_slots", .kind = Kind::kInt, .min = 0},
      {.name = "weight", .kind = Kind::kNumber, .default_value = 1, .min = 0},
      {.name = "priority", .kind = Kind::kInt, .min = 1, .max = 99},
      {.name = "resource_pool", .kind = Kind::kString, .default_value = ""},
      {.name = "shm_size"},
      {.name = "devices", .default_value = json::array()},
      {.name = "is_single_node", .kind = Kind::kBool},
      {.name = "native_parallel", .kind = Kind::kBool, .default_value = false},
      {.name = "agent_label", .kind = Kind::kString},
  };
  return *f;
}

const std::vector<Field>& DeviceFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "host_path", .kind = Kind::kString},
      {.name = "container_path", .kind = Kind::kString},
      {.name = "mode", .kind = Kind::kString, .default_value = "mrw"},
  };
  return *f;
}

}  // namespace

bool IsSizeString(absl::string_view s) {
  size_t i = 0;
  size_t whole = Digits(s, i);
  i += whole;
  if (i < s.size() && s[i] == '.') {
    size_t frac = Digits(s, ++i);
    if (frac == 0) return false;
    i += frac;
  } else if (whole == 0) {
    return false;
  }
  if (i < s.size() && s[i] == ' ') ++i;
  if (i == s.size()) return true;
  if (IsOneOf(s[i], "kmgtpKMGTP")) {
    ++i;
    bool binary = i < s.size() && IsOneOf(s[i], "iI");  // "Ki" must be followed by b: "KiB"
    if (binary) ++i;
    if (i < s.size() && IsOneOf(s[i], "bB")) {
      ++i;
    } else if (binary) {
      return false;
    }
  } else if (IsOneOf(s[i], "bB")) {
    ++i;
  } else {
    return false;
  }
  return i == s.size();
}

void CheckDevices(json& devices, absl::string_view path, Problems& p) {
  if (devices.is_null()) devices = json::array();
  if (!devices.is_array()) {
    p.Add(path, absl::StrCat("must be a list of devices, got ", Describe(devices)));
    return;
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    json& d = devices[i];
    std::string item = IndexPath(path, i);
    if (d.is_string()) {
      std::vector<std::string> parts = absl::StrSplit(d.get<std::string>(), ':');
      bool ok = (parts.size() == 2 || parts.size() == 3);
      for (const std::string& part : parts) ok = ok && !part.empty();
      if (!ok) {
        p.Add(item, absl::StrCat("must be \"host_path:container_path[:mode]\", got ", Describe(d)));
        continue;
      }
      d = json{{"host_path", parts[0]},
               {"container_path", parts[1]},
               {"mode", parts.size() == 3 ? parts[2] : "mrw"}};
      continue;
    }
    if (!d.is_object()) {
      p.Add(item,
            absl::StrCat("must be an object or a \"host_path:container_path[:mode]\" string, got ",
                         Describe(d)));
      continue;
    }
    CheckObject(d, item, DeviceFields(), p);
    Require(d, item, "host_path", "", p);
    Require(d, item, "container_path", "", p);
  }
}

void CheckResources(json& res, Problems& p) {
  CheckOptions options{.hints = {{"slots", "experiments use resources.slots_per_trial"}}};
  if (!CheckObject(res, "resources", ResourceFields(), p, options)) return;
  const json& shm = res["shm_size"];
  if (shm.is_number_integer()) {
    if (shm.get<int64_t>() < 0)
      p.Add("resources.shm_size", absl::StrCat("must be >= 0, got ", shm.dump()));
  } else if (shm.is_string()) {
    if (!IsSizeString(shm.get<std::string>())) {
      p.Add("resources.shm_size",
            absl::StrCat("must be a size such as 4294967296, \"4G\" or \"512 MiB\", got ",
                         Describe(shm)));
    }
  } else if (!shm.is_null()) {
    p.Add("resources.shm_size",
          absl::StrCat("must be an integer or a size string, got ", Describe(shm)));
  }
  CheckDevices(res["devices"], "resources.devices", p);
  if (IsSet(res, "agent_label"))
    p.Warn("resources.agent_label is a removed feature and is ignored");
}

std::optional<int64_t> SizeInBytes(const nlohmann::json& size) {
  if (size.is_number_integer()) return size.get<int64_t>() >= 0 ? std::optional(size.get<int64_t>()) : std::nullopt;
  if (!size.is_string()) return std::nullopt;
  const std::string s = size.get<std::string>();
  char* end = nullptr;
  const double number = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || number < 0) return std::nullopt;
  std::string unit;
  for (const char* c = end; *c != '\0'; ++c) {
    if (*c != ' ') unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*c))));
  }
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  if (!unit.empty() && unit.back() == 'i') unit.pop_back();
  static const std::string kUnits = "kmgtp";
  double scale = 1;
  if (unit.size() == 1 && kUnits.find(unit[0]) != std::string::npos) {
    scale = std::pow(1024.0, static_cast<double>(kUnits.find(unit[0]) + 1));
  } else if (!unit.empty()) {
    return std::nullopt;
  }
  return static_cast<int64_t>(number * scale);
}

}  // namespace det::config
