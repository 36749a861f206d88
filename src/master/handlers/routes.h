#pragma once
// Route registration, one function per API area (handlers/*.cc).
#include "master/handlers/master_context.h"
#include "master/handlers/path_scope.h"
#include "master/http/router.h"
#include "master/http/server.h"
#include "master/handlers/webui.h"

namespace det::master {

class MasterMetrics;

void RegisterMasterInfoRoutes(Router& router, MasterContext& ctx);
void RegisterMasterLogRoutes(Router& router, MasterContext& ctx);
void RegisterAuthRoutes(Router& router, MasterContext& ctx);
void RegisterUserRoutes(Router& router, MasterContext& ctx);
void RegisterTokenRoutes(Router& router, MasterContext& ctx);
void RegisterExperimentRoutes(Router& router, MasterContext& ctx);
void RegisterExperimentContinueRoutes(Router& router, MasterContext& ctx);
void RegisterExperimentTrialRoutes(Router& router, MasterContext& ctx);
void RegisterTrialRoutes(Router& router, MasterContext& ctx);
void RegisterTrialSeriesRoutes(Router& router, MasterContext& ctx);
void RegisterTrialReportRoutes(Router& router, MasterContext& ctx);
void RegisterTaskRoutes(Router& router, MasterContext& ctx);
void RegisterCheckpointRoutes(Router& router, MasterContext& ctx);
void RegisterCheckpointDownloadRoutes(Router& router, MasterContext& ctx);
void RegisterAllocationRoutes(Router& router, MasterContext& ctx);
void RegisterAgentRoutes(Router& router, HttpServer& server, MasterContext& ctx);
void RegisterPreviewSearchRoutes(Router& router, MasterContext& ctx);
void RegisterTemplateRoutes(Router& router, MasterContext& ctx);
void RegisterWorkspaceRoutes(Router& router, MasterContext& ctx);
void RegisterProjectRoutes(Router& router, MasterContext& ctx);
void RegisterExperimentMoveRoutes(Router& router, MasterContext& ctx);
void RegisterExperimentBulkRoutes(Router& router, MasterContext& ctx);
void RegisterExperimentMetricStreamRoutes(Router& router, MasterContext& ctx);
void RegisterModelRoutes(Router& router, MasterContext& ctx);
void RegisterTrialSourceRoutes(Router& router, MasterContext& ctx);
void RegisterPoolBindingRoutes(Router& router, MasterContext& ctx);
void RegisterResourcePoolRoutes(Router& router, MasterContext& ctx);
void RegisterJobQueueRoutes(Router& router, MasterContext& ctx);
void RegisterTaskListRoutes(Router& router, MasterContext& ctx);
void RegisterLogRetentionRoutes(Router& router, MasterContext& ctx);
void RegisterCommandRoutes(Router& router, MasterContext& ctx);
void RegisterGroupRoutes(Router& router, MasterContext& ctx);
void RegisterRoleRoutes(Router& router, MasterContext& ctx);
void RegisterResourceUsageRoutes(Router& router, MasterContext& ctx);
// Upstream's Prometheus endpoints; registered only with observability.enable_prometheus (main.cc).
void RegisterPrometheusRoutes(Router& router, MasterContext& ctx, MasterMetrics& metrics);

inline void RegisterAllRoutes(Router& router, HttpServer& server, MasterContext& ctx) {
  // What a path names must be visible to the caller (a 404 otherwise), before any handler runs.
  router.SetGuard([&ctx](const HttpRequest& request, const std::string& pattern) {
    return CheckPathVisible(ctx.store, ctx.trial_facts, request, pattern);
  });
  RegisterMasterInfoRoutes(router, ctx);
  RegisterMasterLogRoutes(router, ctx);
  RegisterAuthRoutes(router, ctx);
  RegisterGroupRoutes(router, ctx);  // before /api/v1/users/{user_id}: PATCH /api/v1/users/assignments
  RegisterRoleRoutes(router, ctx);
  RegisterUserRoutes(router, ctx);
  RegisterTokenRoutes(router, ctx);
  // Before /experiments/{experiment_id}/... and /trials/{trial_id}: routes match in order.
  RegisterTrialSeriesRoutes(router, ctx);
  RegisterExperimentContinueRoutes(router, ctx);
  RegisterExperimentMetricStreamRoutes(router, ctx);
  RegisterLogRetentionRoutes(router, ctx);
  RegisterExperimentRoutes(router, ctx);
  RegisterExperimentTrialRoutes(router, ctx);
  RegisterTrialRoutes(router, ctx);
  RegisterTrialReportRoutes(router, ctx);
  RegisterTaskRoutes(router, ctx);
  RegisterCommandRoutes(router, ctx);
  RegisterCheckpointRoutes(router, ctx);
  RegisterCheckpointDownloadRoutes(router, ctx);
  RegisterAllocationRoutes(router, ctx);
  RegisterAgentRoutes(router, server, ctx);
  RegisterPreviewSearchRoutes(router, ctx);
  RegisterTemplateRoutes(router, ctx);
  RegisterWorkspaceRoutes(router, ctx);
  RegisterProjectRoutes(router, ctx);
  RegisterExperimentMoveRoutes(router, ctx);
  RegisterExperimentBulkRoutes(router, ctx);
  RegisterModelRoutes(router, ctx);
  RegisterTrialSourceRoutes(router, ctx);
  RegisterPoolBindingRoutes(router, ctx);
  RegisterResourcePoolRoutes(router, ctx);
  RegisterResourceUsageRoutes(router, ctx);
  RegisterJobQueueRoutes(router, ctx);
  RegisterTaskListRoutes(router, ctx);
  RegisterWebUiRoutes(router, ctx);
}

}  // namespace det::master
