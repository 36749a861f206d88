#pragma once
// The Kubernetes API server's errors as absl statuses, as kube_api.h lists them: a reply's HTTP
// status (and its Status object's `reason`, which tells AlreadyExists from Conflict) gives the
// code, the Status object's `message` the text.
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/status.h"

namespace det::master::kube {

// 404 NotFound; 409 AlreadyExists (reason AlreadyExists) or Aborted (any other reason: Conflict);
// 410 OutOfRange; 400, 413, 415 and 422 InvalidArgument; 401 and 403 PermissionDenied; 405
// Unimplemented; 429 and 5xx Unavailable; anything else Unknown.
absl::StatusCode CodeForKubeReply(int http_status, std::string_view reason);

// The status of a non-2xx reply. `body` is normally a Status object ({"kind":"Status","code":409,
// "reason":"AlreadyExists","message":"pods \"x\" already exists",...}); the message is
// "<reason>: <message> (<call>)", or the start of a body that is not one. `call` names the
// request ("POST /api/v1/namespaces/default/pods").
absl::Status StatusFromKubeReply(int http_status, std::string_view body, std::string_view call);

// The status of a watch's ERROR event, whose object is a Status: its `code` (410: the
// resourceVersion is too old) maps as a reply's would.
absl::Status StatusFromWatchError(const nlohmann::json& status_object, std::string_view call);

}  // namespace det::master::kube
