#include "harness/cluster_info.h"

#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::harness {
namespace {

// Unset and empty are the same: an agent may export a variable with no value.
std::optional<std::string> NonEmpty(const EnvLookup& env, const std::string& name) {
  std::optional<std::string> v = env(name);
  if (v.has_value() && v->empty()) return std::nullopt;
  return v;
}

absl::Status RequireAll(const EnvLookup& env, const std::vector<std::string>& names,
                        const std::string& what) {
  std::vector<std::string> missing;
  for (const std::string& n : names) {
    if (!NonEmpty(env, n).has_value()) missing.push_back(n);
  }
  if (missing.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("missing environment variables [",
                                                    absl::StrJoin(missing, ", "), "] for ", what,
                                                    "; is this running on a Determined cluster?"));
}

absl::StatusOr<int64_t> ParseInt(const EnvLookup& env, const std::string& name) {
  std::string text = NonEmpty(env, name).value_or("");
  int64_t v = 0;
  if (!absl::SimpleAtoi(text, &v)) {
    return absl::InvalidArgumentError(
        absl::StrCat("environment variable ", name, ": expected an integer, got \"", text, "\""));
  }
  return v;
}

absl::StatusOr<std::string> ParseJsonObject(const EnvLookup& env, const std::string& name) {
  std::string text = NonEmpty(env, name).value_or("{}");
  auto j = ParseJson(text);
  if (!j.ok() || !j->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("environment variable ", name, ": expected a JSON object",
                     j.ok() ? absl::StrCat(", got ", text.substr(0, 80))
                            : absl::StrCat(": ", j.status().message())));
  }
  return j->dump();
}

absl::StatusOr<std::vector<int>> ParseSlotIds(const EnvLookup& env) {
  std::string text = NonEmpty(env, "DET_SLOT_IDS").value_or("[]");
  auto j = ParseJson(text);
  bool ok = j.ok() && j->is_array();
  std::vector<int> ids;
  if (ok) {
    for (const auto& e : *j) {
      if (!e.is_number_integer()) {
        ok = false;
        break;
      }
      ids.push_back(e.get<int>());
    }
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "environment variable DET_SLOT_IDS: expected a JSON list of integers like [0,1], got \"",
        text, "\""));
  }
  return ids;
}

absl::StatusOr<RendezvousInfo> ParseRendezvousInfo(const EnvLookup& env, size_t slot_count) {
  std::optional<std::string> text = NonEmpty(env, "DET_RENDEZVOUS_INFO");
  if (!text.has_value()) {
    return RendezvousInfo{.container_addrs = {"127.0.0.1"},
                          .container_rank = 0,
                          .container_slot_counts = {static_cast<int>(slot_count)}};
  }
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "environment variable DET_RENDEZVOUS_INFO: ", why,
        "; expected {\"container_addrs\": [...], \"container_rank\": N, \"container_slot_counts\": [...]}"));
  };
  absl::StatusOr<nlohmann::json> j = ParseJson(*text);
  if (!j.ok() || !j->is_object()) return bad("not a JSON object");
  RendezvousInfo info;
  const nlohmann::json& addrs = j->value("container_addrs", nlohmann::json());
  const nlohmann::json& counts = j->value("container_slot_counts", nlohmann::json());
  const nlohmann::json& rank = j->value("container_rank", nlohmann::json());
  if (!addrs.is_array() || addrs.empty() || !counts.is_array() || counts.size() != addrs.size()) {
    return bad("container_addrs and container_slot_counts must be lists of the same, non-zero length");
  }
  for (const auto& a : addrs) {
    if (!a.is_string()) return bad("container_addrs must hold strings");
    info.container_addrs.push_back(a.get<std::string>());
  }
  for (const auto& c : counts) {
    if (!c.is_number_integer() || c.get<int64_t>() < 0) return bad("container_slot_counts must hold counts");
    info.container_slot_counts.push_back(c.get<int>());
  }
  if (!rank.is_number_integer() || rank.get<int64_t>() < 0 ||
      rank.get<int64_t>() >= static_cast<int64_t>(addrs.size())) {
    return bad("container_rank must index container_addrs");
  }
  info.container_rank = rank.get<int>();
  return info;
}

absl::StatusOr<TrialInfo> ParseTrialInfo(const EnvLookup& env) {
  RETURN_IF_ERROR(
      RequireAll(env,
                 {"DET_TRIAL_ID", "DET_EXPERIMENT_ID", "DET_TRIAL_RUN_ID", "DET_TRIAL_SEED",
                  "DET_HPARAMS", "DET_EXPERIMENT_CONFIG", "DET_STEPS_COMPLETED"},
                 "a trial"));
  TrialInfo t;
  ASSIGN_OR_RETURN(t.trial_id, ParseInt(env, "DET_TRIAL_ID"));
  ASSIGN_OR_RETURN(t.experiment_id, ParseInt(env, "DET_EXPERIMENT_ID"));
  ASSIGN_OR_RETURN(t.trial_run_id, ParseInt(env, "DET_TRIAL_RUN_ID"));
  ASSIGN_OR_RETURN(int64_t seed, ParseInt(env, "DET_TRIAL_SEED"));
  if (seed < 0 || seed > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("environment variable DET_TRIAL_SEED: must fit in uint32, got ", seed));
  }
  t.trial_seed = static_cast<uint32_t>(seed);
  ASSIGN_OR_RETURN(t.steps_completed, ParseInt(env, "DET_STEPS_COMPLETED"));
  ASSIGN_OR_RETURN(t.hparams_json, ParseJsonObject(env, "DET_HPARAMS"));
  ASSIGN_OR_RETURN(t.config_json, ParseJsonObject(env, "DET_EXPERIMENT_CONFIG"));
  return t;
}

}  // namespace

absl::StatusOr<std::optional<ClusterInfo>> ParseClusterInfo(const EnvLookup& env) {
  if (!NonEmpty(env, "DET_MASTER").has_value()) return std::nullopt;
  bool has_trial = NonEmpty(env, "DET_TRIAL_ID").has_value();
  if (!NonEmpty(env, "DET_ALLOCATION_ID").has_value() && !has_trial) return std::nullopt;

  RETURN_IF_ERROR(RequireAll(
      env, {"DET_MASTER", "DET_TASK_ID", "DET_ALLOCATION_ID", "DET_SESSION_TOKEN"}, "a task"));
  ClusterInfo info;
  info.master_url = *env("DET_MASTER");
  info.task_id = *env("DET_TASK_ID");
  info.allocation_id = *env("DET_ALLOCATION_ID");
  info.session_token = *env("DET_SESSION_TOKEN");
  info.cluster_id = NonEmpty(env, "DET_CLUSTER_ID").value_or("");
  info.master_id = NonEmpty(env, "DET_MASTER_ID").value_or("");
  info.agent_id = NonEmpty(env, "DET_AGENT_ID").value_or("");
  info.user = NonEmpty(env, "DET_USER").value_or("");
  info.user_token = NonEmpty(env, "DET_USER_TOKEN").value_or("");
  info.workdir = NonEmpty(env, "DET_WORKDIR").value_or("");
  info.task_type = NonEmpty(env, "DET_TASK_TYPE").value_or(has_trial ? "TRIAL" : "");
  if (info.task_type.empty()) {
    return absl::FailedPreconditionError(
        "missing environment variable DET_TASK_TYPE (TRIAL, COMMAND, ...) for a task");
  }
  ASSIGN_OR_RETURN(info.slot_ids, ParseSlotIds(env));
  ASSIGN_OR_RETURN(info.rendezvous, ParseRendezvousInfo(env, info.slot_ids.size()));
  if (info.task_type == "TRIAL") {
    ASSIGN_OR_RETURN(info.trial, ParseTrialInfo(env));
    info.latest_checkpoint = NonEmpty(env, "DET_LATEST_CHECKPOINT");
  }
  return info;
}

absl::StatusOr<std::optional<ClusterInfo>> ClusterInfoFromEnvironment() {
  return ParseClusterInfo([](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  });
}

}  // namespace det::harness
