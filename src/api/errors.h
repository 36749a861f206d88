#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/status.h"

namespace det::api {

// gRPC code -> HTTP status, as grpc-gateway's HTTPStatusFromCode (reference §0.5).
int HttpStatusFromCode(absl::StatusCode code);
// "InvalidArgument", "NotFound", ... (the `reason` field of error bodies).
std::string_view CodeName(absl::StatusCode code);
// {"error":{"code":3,"reason":"InvalidArgument","error":"<message>"}}
nlohmann::json ErrorBody(const absl::Status& status);
// The inverse, for clients: the status an error response stands for. Falls back to the HTTP status
// when the body is not a gateway error.
absl::Status StatusFromErrorResponse(int http_status, std::string_view body);

}  // namespace det::api
