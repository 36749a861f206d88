#pragma once
// The config of a command or generic task (upstream's CommandConfig / GenericTaskConfig) and its
// layering (reference §3.3): the master's task_container_defaults, then a template (unknown keys
// tolerated), then the submitted config (unknown keys refused), each overlaid on the one before:
// present scalars replace, objects merge key by key, lists are replaced.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace det::config {

struct BindMount {
  std::string host_path;
  std::string container_path;
  bool read_only = false;
};

struct CommandConfig {
  nlohmann::json full;  // the resolved config, every key present, as shown by `det cmd config`
  std::string description;  // "" when the caller should pick one ("Command (word-word-word)")
  std::vector<std::string> entrypoint;
  int slots = 1;
  std::string resource_pool;  // "" = the default pool for `slots`
  std::optional<int> priority;
  double weight = 1;
  std::optional<int> max_slots;
  bool is_single_node = false;
  std::vector<std::string> environment_variables;  // "K=V", the cpu list
  std::string work_dir;
  std::vector<BindMount> bind_mounts;
  int preemption_timeout = 30;  // seconds a stopping process gets before it is killed
  // Notebooks and TensorBoards: killed after this long without use (unset: never, or the master's
  // notebook_timeout / tensorboard_timeout).
  std::optional<std::chrono::milliseconds> idle_timeout;
  std::string notebook_idle_type = "kernels_or_terminals";
  std::vector<std::string> tensorboard_args;
};

// Overlays `top` onto `base` in place (see above).
void OverlayConfig(nlohmann::json& base, const nlohmann::json& top);

// A template serves commands, notebooks, shells and TensorBoards as well as experiments. Moves the
// keys that only a command's config has (resources.slots, work_dir, idle_timeout, notebook_idle_type,
// tensorboard_args) out of `tmpl`, so that the rest can be checked as a partial experiment config,
// and checks them as a command's: returns the problems, each "<path>: <what>".
std::vector<std::string> TakeCommandOnlyKeys(nlohmann::json& tmpl);

// Layers and checks a command's config. `defaults` is the master's (or the pool's)
// task_container_defaults; `tmpl` a template's config (null for none); `submitted` what the user
// sent. Every problem is reported at once: InvalidArgument "invalid command configuration:" with one
// line per field (`resources.slots: must be an integer >= 0, got string "two"`). An empty or missing
// entrypoint is refused.
absl::StatusOr<CommandConfig> ParseCommandConfig(const nlohmann::json& defaults, const nlohmann::json& tmpl,
                                                 const nlohmann::json& submitted, const std::string& what = "command");

}  // namespace det::config
