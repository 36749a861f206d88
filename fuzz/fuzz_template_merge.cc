// config::MergeExperimentConfig(user, template) (src/config/merge.h) on two JSON documents: the
// input is split at the first NUL byte (no NUL: the same text for both sides). Merging never
// crashes, a config merged with itself is itself minus nothing, and the merged result always
// serializes and goes through the experiment config parser without crashing.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/json_yaml.h"
#include "config/experiment_config.h"
#include "config/merge.h"

constexpr char kStorage[] = R"({"type":"shared_fs","host_path":"/tmp/ckpt"})";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t split = in.find('\0');
  std::string_view user_text = in.substr(0, split);
  std::string_view template_text = split == std::string_view::npos ? in : in.substr(split + 1);

  absl::StatusOr<nlohmann::json> user = det::ParseJson(user_text);
  absl::StatusOr<nlohmann::json> tmpl = det::ParseJson(template_text);
  if (!user.ok() || !tmpl.ok()) return 0;

  nlohmann::json merged = det::config::MergeExperimentConfig(*user, *tmpl);
  (void)det::DumpJson(merged);
  // obj takes precedence: every non-null scalar at the top level of the user's object is kept.
  if (user->is_object() && merged.is_object()) {
    for (const auto& [k, v] : user->items()) {
      if (v.is_primitive() && !v.is_null() && merged.value(k, nlohmann::json()) != v) {
        std::fprintf(stderr, "user key %s lost: %s\n", k.c_str(), det::DumpJson(merged).c_str());
        std::abort();
      }
    }
  }
  (void)det::config::ParseExperimentConfigJson(
      merged, {.checkpoint_storage_json = kStorage, .seed = 1, .name = "fuzz"});
  return 0;
}
