#include "harness/core_context.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "harness/session.h"
#include "spdlog/spdlog.h"
#include "storage/shared_fs_storage.h"

namespace det::harness {

std::string DefaultLocalCheckpointDir() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg != nullptr && *xdg != '\0') return std::string(xdg) + "/determined";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "/tmp") + "/.local/share/determined";
}

absl::StatusOr<WorkerGroupOptions> WorkerGroupFromTorchDistributed() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v != nullptr ? v : "";
  };
  WorkerGroupOptions options;
  if (env("WORLD_SIZE").empty()) return options;
  auto number = [&](const char* name, const std::string& fallback, int& out) -> absl::Status {
    std::string text = env(name).empty() ? fallback : env(name);
    if (!absl::SimpleAtoi(text, &out)) {
      return absl::InvalidArgumentError(absl::StrCat("environment variable ", name, ": not a number: \"", text, "\""));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(number("RANK", "", options.rank));
  RETURN_IF_ERROR(number("WORLD_SIZE", "", options.size));
  RETURN_IF_ERROR(number("DET_CHIEF_PORT", "12360", options.port));
  options.chief_ip = !env("DET_CHIEF_IP").empty() ? env("DET_CHIEF_IP") : env("MASTER_ADDR");
  if (options.chief_ip.empty()) options.chief_ip = "127.0.0.1";
  return options;
}

absl::StatusOr<std::unique_ptr<CoreContext>> CoreContext::Init(const InitOptions& options) {
  ASSIGN_OR_RETURN(std::optional<ClusterInfo> info, ClusterInfoFromEnvironment());
  std::unique_ptr<CoreContext> ctx(new CoreContext());
  ctx->info_ = std::move(info);
  ASSIGN_OR_RETURN(ctx->distributed_, WorkerGroup::Join(options.distributed));

  std::shared_ptr<storage::StorageManager> storage;
  if (!options.checkpoint_storage_path.empty()) {
    storage =
        std::make_shared<storage::SharedFsStorage>(options.checkpoint_storage_path, "directory");
  }

  if (!ctx->info_.has_value() || !ctx->info_->trial.has_value()) {
    if (storage == nullptr) {
      storage =
          std::make_shared<storage::SharedFsStorage>(DefaultLocalCheckpointDir(), "directory");
      spdlog::info("no checkpoint storage given; storing checkpoints in {}", storage->Describe());
    }
    ctx->train_ = std::make_unique<TrainContext>(nullptr, nullptr, 0, 0);
    ctx->checkpoint_ = std::make_unique<CheckpointContext>(storage, nullptr, "", "");
    ctx->preempt_ = std::make_unique<PreemptContext>(nullptr, nullptr, "");
    ctx->preempt_->FollowChief(ctx->distributed_.get());
    return ctx;
  }

  const ClusterInfo& ci = *ctx->info_;
  const TrialInfo& trial = *ci.trial;
  if (storage == nullptr) {
    ASSIGN_OR_RETURN(nlohmann::json config, ParseJson(trial.config_json));
    nlohmann::json cs = config.is_object() && config.contains("checkpoint_storage")
                            ? config["checkpoint_storage"]
                            : nlohmann::json();
    ASSIGN_OR_RETURN(storage, storage::MakeStorageManager(cs));
  }
  auto session = std::make_shared<Session>(ci.master_url, ci.session_token);
  auto reporter = std::make_unique<MetricsReporter>(trial.trial_id, trial.trial_run_id,
                                                    ci.master_url, ci.session_token);
  ctx->train_ = std::make_unique<TrainContext>(session, std::move(reporter), trial.trial_id,
                                               trial.experiment_id);
  ctx->checkpoint_ =
      std::make_unique<CheckpointContext>(storage, session, ci.task_id, ci.allocation_id);
  ctx->preempt_ = PreemptContext::ForAllocation(session, ci.allocation_id);
  ctx->preempt_->FollowChief(ctx->distributed_.get());
  ctx->preempt_->Start();
  return ctx;
}

CoreContext::~CoreContext() {
  absl::Status s = Close();
  if (!s.ok()) spdlog::warn("closing the core context: {}", s.ToString());
}

absl::Status CoreContext::Close() {
  if (closed_) return absl::OkStatus();
  closed_ = true;
  if (preempt_ != nullptr) preempt_->Close();
  return train_ != nullptr ? train_->Close() : absl::OkStatus();
}

}  // namespace det::harness
