#include "master/handlers/trial_sources.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/status_macros.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/model_rules.h"

namespace det::master {
namespace {

using nlohmann::json;

constexpr char kInference[] = "TRIAL_SOURCE_INFO_TYPE_INFERENCE";
constexpr char kFineTuning[] = "TRIAL_SOURCE_INFO_TYPE_FINE_TUNING";

// Upstream's TrialSourceInfoType by name or number; "" for unspecified.
absl::StatusOr<std::string> ParseType(const std::string& raw) {
  if (raw.empty() || raw == "TRIAL_SOURCE_INFO_TYPE_UNSPECIFIED" || raw == "0") return std::string();
  if (raw == kInference || raw == "1") return std::string(kInference);
  if (raw == kFineTuning || raw == "2") return std::string(kFineTuning);
  return absl::InvalidArgumentError(absl::StrCat("trialSourceInfoType: \"", raw, "\" is not one of ", kInference,
                                                 ", ", kFineTuning));
}

absl::StatusOr<std::optional<int64_t>> OptionalInt(const json& obj, std::string_view name) {
  const json* v = api::FindField(obj, name);
  if (v == nullptr) return std::nullopt;
  ASSIGN_OR_RETURN(int64_t n, api::ReadInt64(*v, api::ToLowerCamel(name)));
  return n;
}

// POST /api/v1/trial-source-info `{trialSourceInfo: {trialId, checkpointUuid, modelId?, modelVersion?,
// trialSourceInfoType}}`, from the trial's own task or a user: the trial used that checkpoint.
absl::StatusOr<json> ReportTrialSourceInfo(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  const json* info = api::FindField(body, "trial_source_info");
  if (info == nullptr || !info->is_object()) return absl::InvalidArgumentError("trialSourceInfo is required");
  TrialSourceInfo source;
  const json* trial = api::FindField(*info, "trial_id");
  if (trial == nullptr) return absl::InvalidArgumentError("trialSourceInfo.trialId is required");
  ASSIGN_OR_RETURN(source.trial_id, api::ReadInt64(*trial, "trialSourceInfo.trialId"));
  source.checkpoint_uuid = api::StringField(*info, "checkpoint_uuid");
  if (source.checkpoint_uuid.empty()) {
    return absl::InvalidArgumentError("trialSourceInfo.checkpointUuid is required: the checkpoint the trial used");
  }
  ASSIGN_OR_RETURN(source.model_id, OptionalInt(*info, "model_id"));
  ASSIGN_OR_RETURN(source.model_version, OptionalInt(*info, "model_version"));
  if (source.model_id.has_value() != source.model_version.has_value()) {
    return absl::InvalidArgumentError("trialSourceInfo: modelId and modelVersion go together (both or neither)");
  }
  ASSIGN_OR_RETURN(source.type, ParseType(api::StringField(*info, "trial_source_info_type")));
  if (source.type.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("trialSourceInfo.trialSourceInfoType is required: ", kInference, " or ", kFineTuning));
  }
  RETURN_IF_ERROR(ctx.trial_facts.TrialReportedBy(source.trial_id, req.principal->allocation_id).status());
  RETURN_IF_ERROR(AddTrialSourceInfoChecked(ctx.store, source));
  return json{{"trialId", source.trial_id}, {"checkpointUuid", source.checkpoint_uuid}};
}

}  // namespace

absl::StatusOr<json> TrialSourceMetrics(Store& store, TrialSourceFilter filter, const HttpRequest& req) {
  ASSIGN_OR_RETURN(filter.type, ParseType(req.Query("trial_source_info_type").value_or("")));
  const std::string group = req.Query("metric_group").value_or("");
  ASSIGN_OR_RETURN(std::vector<TrialSourceInfo> sources, store.ListTrialSourceInfos(filter));
  json metrics = json::array();
  std::set<int64_t> seen;  // a trial linked twice reports once
  for (const TrialSourceInfo& source : sources) {
    if (!seen.insert(source.trial_id).second) continue;
    ASSIGN_OR_RETURN(std::vector<api::MetricsReport> reports, store.GetMetrics(source.trial_id, group, BatchRange{}));
    for (const api::MetricsReport& report : reports) metrics.push_back(api::ToJson(report));
  }
  return json{{"metrics", std::move(metrics)}};
}

void RegisterTrialSourceRoutes(Router& router, MasterContext& ctx) {
  router.Add("POST", "/api/v1/trial-source-info", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ReportTrialSourceInfo(ctx, req)); });
  router.Add("GET", "/api/v1/checkpoints/{checkpoint_uuid}/metrics", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               const std::string& uuid = req.path_params.at("checkpoint_uuid");
               Reply(r, [&]() -> absl::StatusOr<json> {
                 RETURN_IF_ERROR(ctx.store.GetCheckpoint(uuid).status());
                 return TrialSourceMetrics(ctx.store, {.checkpoint_uuid = uuid}, req);
               }());
             });
}

}  // namespace det::master
