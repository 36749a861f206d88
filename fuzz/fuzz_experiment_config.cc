// The experiment config parser on untrusted YAML (src/config/experiment_config.h), then, when the
// config is accepted, what the master does with it next: build its searcher, run the initial
// actions, and preview the search (src/searcher/). An accepted config must never fail to build a
// searcher: the parser is the only gate.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_yaml.h"
#include "config/experiment_config.h"
#include "searcher/preview.h"
#include "searcher/searcher.h"

namespace {

constexpr char kStorage[] = R"({"type":"shared_fs","host_path":"/tmp/ckpt"})";

[[noreturn]] void Fail(const std::string& what, const std::string& config) {
  std::fprintf(stderr, "%s\n--- config:\n%s\n", what.c_str(), config.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<det::config::ExperimentConfig> parsed = det::config::ParseExperimentConfig(
      text, {.checkpoint_storage_json = kStorage, .seed = 7, .name = "fuzz"});
  if (!parsed.ok()) return 0;

  absl::StatusOr<nlohmann::json> full = det::ParseJson(parsed->full_json);
  if (!full.ok()) Fail("full_json does not parse: " + full.status().ToString(), parsed->full_json);
  // The stored config must be accepted again as is (the master re-reads it after a restart).
  absl::StatusOr<det::config::ExperimentConfig> reparsed = det::config::ParseExperimentConfigJson(
      *full, {.checkpoint_storage_json = kStorage, .seed = 7, .name = "fuzz"});
  if (!reparsed.ok())
    Fail("defaulted config refused: " + reparsed.status().ToString(), parsed->full_json);

  absl::StatusOr<std::unique_ptr<det::searcher::Searcher>> searcher =
      det::searcher::Searcher::Create(*full);
  if (!searcher.ok()) {
    Fail("accepted config has no searcher: " + searcher.status().ToString(), parsed->full_json);
  }
  // Grid searches can be large by design; keep each run fast.
  std::vector<det::searcher::Action> actions = (*searcher)->InitialActions();
  (void)(*searcher)->Progress();
  (void)det::DumpJson((*searcher)->Snapshot());

  absl::StatusOr<nlohmann::json> preview = det::searcher::PreviewSearch(*full);
  if (!preview.ok())
    Fail("accepted config has no preview: " + preview.status().ToString(), parsed->full_json);
  (void)det::searcher::FormatPreview(*preview);
  (void)actions;
  return 0;
}
