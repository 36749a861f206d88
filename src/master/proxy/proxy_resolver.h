#pragma once
// The proxy's rules for `/proxy/{serviceId}/...` (HttpServer::AddRelay does the relaying):
//  - an unknown service is a 404 naming it;
//  - unless the service is TCP (shells, whose SSH key authenticates), the caller needs a session (Authorization:
//    Bearer, or the `auth` cookie) or, for a notebook, the notebook's own token (`?token=` or
//    `Authorization: token ...`); without one, a 401;
//  - a session whose user may not use the service (using a service acts as its owner: the owner or
//    an admin) gets the same 404 as an unknown service, as upstream masks it;
//  - the backend never sees the caller's master credentials; a notebook's backend gets its token.
#include "master/http/http_types.h"
#include "master/http/router.h"
#include "master/proxy/service_registry.h"
#include "master/task/authz.h"

namespace det::master {

inline constexpr char kProxyPrefix[] = "/proxy/";

RelayResolver MakeProxyResolver(ServiceRegistry& services, Authenticator& authenticator, const Authz& authz);

}  // namespace det::master
