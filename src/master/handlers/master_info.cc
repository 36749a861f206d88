#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/master_config.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/task/authz.h"

namespace det::master {

void RegisterMasterInfoRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/info", Access::kPublic, [&ctx](HttpRequest&, ResponderPtr r) {
    ReplyJson(r, {{"version", ctx.info.version},
                  {"master_id", ctx.info.master_id},
                  {"cluster_id", ctx.info.cluster_id},
                  {"cluster_name", ctx.info.cluster_name},
                  {"telemetry", {{"enabled", false}, {"segment_key", ""}}},
                  {"sso_providers", nlohmann::json::array()}});
  });
  router.Add("GET", "/api/v1/master", Access::kPublic, [&ctx](HttpRequest&, ResponderPtr r) {
    ReplyJson(r, {{"version", ctx.info.version},
                  {"masterId", ctx.info.master_id},
                  {"clusterId", ctx.info.cluster_id},
                  {"clusterName", ctx.info.cluster_name},
                  {"telemetryEnabled", false},
                  {"ssoProviders", nlohmann::json::array()},
                  {"externalLoginUri", ""},
                  {"externalLogoutUri", ""},
                  {"branding", "determined"},
                  {"rbacEnabled", ctx.config.security.authz.rbac_ui_enabled},
                  {"product", "PRODUCT_UNSPECIFIED"},
                  {"featureSwitches", nlohmann::json::array()},
                  {"userManagementEnabled", true},
                  {"strictJobQueueControl", ctx.config.security.authz.strict_job_queue_control},
                  {"hasCustomLogo", false},
                  {"clusterMessage", nullptr}});  // no cluster message is set (an unset message)
  });
  // VIEW_MASTER_CONFIG cluster-wide (basic mode: any user, as upstream's).
  router.Add("GET", "/api/v1/master/config", Access::kAuthenticated, [&ctx](HttpRequest& req, ResponderPtr r) {
    Reply(r, [&]() -> absl::StatusOr<nlohmann::json> {
      RETURN_IF_ERROR(DefaultAuthz().CheckCluster(*req.principal, rbac::Permission::kViewMasterConfig,
                                                  "view the master's configuration"));
      absl::StatusOr<nlohmann::json> printable = ParseJson(config::ToPrintableJson(ctx.config));
      if (!printable.ok()) return absl::InternalError("master config is not valid JSON");
      return nlohmann::json{{"config", *printable}};
    }());
  });
  router.Add("GET", "/health", Access::kPublic, [&ctx](HttpRequest&, ResponderPtr r) {
    bool db_up = ctx.store.GetUser(1).ok();
    ReplyJson(r, {{"status", db_up ? "up" : "down"},
                  {"database", db_up ? "up" : "down"},
                  {"resource_managers", {{{"cluster_name", ctx.info.cluster_name}, {"status", "up"}}}}},
              db_up ? 200 : 503);
  });
}

}  // namespace det::master
