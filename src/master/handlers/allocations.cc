#include "absl/strings/str_cat.h"
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
