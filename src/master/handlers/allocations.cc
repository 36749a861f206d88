#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/status_macros.h"
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

// GET .../signals/preemption: whether the allocation must stop, once it must or after
// `timeout_seconds`; the cluster replies.
absl::Status WaitForPreemption(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  RETURN_IF_ERROR(CheckOwnAllocation(req));
  const std::string& id = req.path_params.at("allocation_id");
  // An allocation that ended must stop (true below); one that never existed is a 404.
  RETURN_IF_ERROR(ctx.store.GetAllocation(id).status());
  ASSIGN_OR_RETURN(int64_t timeout, QueryInt(req, "timeout_seconds", 0));
  if (timeout < 0 || timeout > kMaxPreemptionWaitSeconds) {
    return absl::InvalidArgumentError(
        absl::StrCat("timeout_seconds must be between 0 and ", kMaxPreemptionWaitSeconds));
  }
  ctx.cluster.WaitForPreemption(id, std::chrono::seconds(timeout),
                                ReplyWith(r, [](bool preempt) { return nlohmann::json{{"preempt", preempt}}; }));
  return absl::OkStatus();
}

// POST .../ready. Ours beyond upstream's empty body: {"port": N} registers the service the process
// serves on port N of its agent with the proxy (docs/interactive.md); {"user": NAME} is the OS user
// it runs as. The cluster replies.
absl::Status AllocationReady(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  RETURN_IF_ERROR(CheckOwnAllocation(req));
  if (req.principal->allocation_id.empty() && !req.principal->admin) {
    return absl::PermissionDeniedError("only the allocation's own process (its token) reports it ready");
  }
  int port = 0;
  std::string user;
  if (!req.body.empty()) {
    ASSIGN_OR_RETURN(nlohmann::json body, JsonBody(req));
    if (const nlohmann::json* p = api::FindField(body, "port"); p != nullptr && !p->is_null()) {
      if (!p->is_number_integer() || p->get<int64_t>() < 0 || p->get<int64_t>() > 65535) {
        return absl::InvalidArgumentError(absl::StrCat("port: must be a TCP port from 1 to 65535, got ", p->dump()));
      }
      port = p->get<int>();
    }
    if (const nlohmann::json* u = api::FindField(body, "user"); u != nullptr && u->is_string()) user = *u;
  }
  ctx.cluster.AllocationReady(req.path_params.at("allocation_id"), port, user, ReplyWith(r));
  return absl::OkStatus();
}

absl::Status AckPreemption(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  RETURN_IF_ERROR(CheckOwnAllocation(req));
  ctx.cluster.AckPreemption(req.path_params.at("allocation_id"), ReplyWith(r));
  return absl::OkStatus();
}

// GET .../resources/{resources_id}/rendezvous (upstream's AllocationRendezvousInfo): where the
// allocation's processes serve, in rank order, and the asking process's rank. Upstream waits until every
// process asks; this answers Unavailable until every process has an address, and the caller asks again.
absl::Status GetRendezvous(MasterContext& ctx, const HttpRequest& req, const ResponderPtr& r) {
  RETURN_IF_ERROR(CheckOwnAllocation(req));
  ctx.cluster.RendezvousOf(req.path_params.at("allocation_id"), req.path_params.at("resources_id"),
                           ReplyWith(r, [](const Cluster::RendezvousReply& reply) {
                             return nlohmann::json{{"rendezvousInfo",
                                                    {{"addresses", reply.where.addresses},
                                                     {"rank", reply.rank},
                                                     {"slots", reply.where.slots}}}};
                           }));
  return absl::OkStatus();
}

}  // namespace

void RegisterAllocationRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/allocations/{allocation_id}/signals/preemption", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, WaitForPreemption(ctx, req, r)); });
  router.Add("POST", "/api/v1/allocations/{allocation_id}/ready", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, AllocationReady(ctx, req, r)); });
  router.Add("GET", "/api/v1/allocations/{allocation_id}/resources/{resources_id}/rendezvous", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, GetRendezvous(ctx, req, r)); });
  router.Add("POST", "/api/v1/allocations/{allocation_id}/signals/ack_preemption", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { ReplyIfError(r, AckPreemption(ctx, req, r)); });
}

}  // namespace det::master
