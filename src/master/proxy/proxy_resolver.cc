#include "master/proxy/proxy_resolver.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace det::master {
namespace {

// "abc" from "/proxy/abc/lab/tree" or "/proxy/abc".
std::string ServiceIdOf(const std::string& path) {
  absl::string_view rest = path;
  absl::ConsumePrefix(&rest, kProxyPrefix);
  return std::string(rest.substr(0, rest.find('/')));
}

// The notebook token the caller presents, if any.
std::string PresentedToken(const HttpRequest& head) {
  if (std::optional<std::string> q = head.Query("token")) return *q;
  const std::string header = head.Header("authorization");
  absl::string_view auth = header;
  if (absl::ConsumePrefix(&auth, "token ") || absl::ConsumePrefix(&auth, "Token ")) return std::string(auth);
  return "";
}

HttpResponse NotFound(const std::string& id) {
  return ErrorResponse(absl::NotFoundError(absl::StrCat("service \"", id, "\" not found")));
}

}  // namespace

RelayResolver MakeProxyResolver(ServiceRegistry& services, Authenticator& authenticator, const Authz& authz) {
  return [&services, &authenticator, &authz](const HttpRequest& head) -> std::variant<RelayTarget, HttpResponse> {
    const std::string id = ServiceIdOf(head.path);
    std::optional<Service> service = services.Use(id);
    if (!service) return NotFound(id);
    const bool token_ok = !service->token.empty() && PresentedToken(head) == service->token;
    if (!service->tcp && !token_ok) {
      absl::StatusOr<Principal> who = authenticator.Authenticate(head);
      if (!who.ok()) return ErrorResponse(who.status());
      if (!who->allocation_id.empty()) return NotFound(id);  // a task's token opens no service
      if (!authz.Check(*who, rbac::Permission::kUpdateNsc, {"service", id, service->owner_id, service->workspace_id}).ok()) return NotFound(id);
    }
    RelayTarget target;
    target.host = service->host;
    target.port = service->port;
    target.tcp_over_websocket = service->tcp;
    target.name = absl::StrCat("service ", id);
    target.remove_headers = {"authorization"};
    if (!service->token.empty()) target.set_headers.emplace_back("Authorization", absl::StrCat("token ", service->token));
    return target;
  };
}

}  // namespace det::master
