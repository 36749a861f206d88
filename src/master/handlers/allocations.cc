#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"

namespace det::master {
namespace {

constexpr int64_t kMaxPreemptionWaitSeconds = 3600;

absl::Status CheckOwnAllocation(const HttpRequest& req) {
  const std::string& mine = req.principal->allocation_id;
  const std::string& wanted = req.path_params.at("allocation_id");
  if (!mine.empty() && mine != wanted) {
    return absl::PermissionDeniedError(absl::StrCat("allocation token is not valid for allocation ", wanted));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterAllocationRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/allocations/{allocation_id}/signals/preemption", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               if (absl::Status st = CheckOwnAllocation(req); !st.ok()) return ReplyError(r, st);
               // An allocation that ended must stop (true below); one that never existed is a 404.
               if (absl::StatusOr<Allocation> a = ctx.store.GetAllocation(req.path_params.at("allocation_id"));
                   !a.ok()) {
                 return ReplyError(r, a.status());
               }
               absl::StatusOr<int64_t> timeout = QueryInt(req, "timeout_seconds", 0);
               if (!timeout.ok()) return ReplyError(r, timeout.status());
               if (*timeout < 0 || *timeout > kMaxPreemptionWaitSeconds) {
                 return ReplyError(r, absl::InvalidArgumentError(absl::StrCat(
                                          "timeout_seconds must be between 0 and ", kMaxPreemptionWaitSeconds)));
               }
               ctx.cluster.WaitForPreemption(req.path_params.at("allocation_id"), std::chrono::seconds(*timeout),
                                             [r](absl::StatusOr<bool> preempt) {
                                               if (!preempt.ok()) return ReplyError(r, preempt.status());
                                               ReplyJson(r, {{"preempt", *preempt}});
                                             });
             });
  // Ours beyond upstream's empty body: {"port": N} registers the service the process serves on port
  // N of its agent with the proxy (docs/interactive.md); {"user": NAME} is the OS user it runs as.
  router.Add("POST", "/api/v1/allocations/{allocation_id}/ready", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               if (absl::Status st = CheckOwnAllocation(req); !st.ok()) return ReplyError(r, st);
               if (req.principal->allocation_id.empty() && !req.principal->admin) {
                 return ReplyError(r, absl::PermissionDeniedError(
                                          "only the allocation's own process (its token) reports it ready"));
               }
               int port = 0;
               std::string user;
               if (!req.body.empty()) {
                 absl::StatusOr<nlohmann::json> body = JsonBody(req);
                 if (!body.ok()) return ReplyError(r, body.status());
                 if (const nlohmann::json* p = api::FindField(*body, "port"); p != nullptr && !p->is_null()) {
                   if (!p->is_number_integer() || p->get<int64_t>() < 0 || p->get<int64_t>() > 65535) {
                     return ReplyError(r, absl::InvalidArgumentError(
                                              absl::StrCat("port: must be a TCP port from 1 to 65535, got ", p->dump())));
                   }
                   port = p->get<int>();
                 }
                 if (const nlohmann::json* u = api::FindField(*body, "user"); u != nullptr && u->is_string()) user = *u;
               }
               ctx.cluster.AllocationReady(req.path_params.at("allocation_id"), port, user, [r](absl::Status st) {
                 if (!st.ok()) return ReplyError(r, st);
                 ReplyJson(r, nlohmann::json::object());
               });
             });
  router.Add("POST", "/api/v1/allocations/{allocation_id}/signals/ack_preemption", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               if (absl::Status st = CheckOwnAllocation(req); !st.ok()) return ReplyError(r, st);
               ctx.cluster.AckPreemption(req.path_params.at("allocation_id"), [r](absl::Status st) {
                 if (!st.ok()) return ReplyError(r, st);
                 ReplyJson(r, nlohmann::json::object());
               });
             });
}

}  // namespace det::master
