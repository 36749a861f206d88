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
// "Not Found", "Internal Server Error", ...: the reason phrase of an HTTP status HttpStatusFromCode
// gives ("" for others).
std::string_view HttpStatusText(int http_status);

// Where an error body goes: an ordinary reply, whose HTTP status carries the code too, or the last
// line of an NDJSON stream, whose status (200) went out with its first line.
enum class ErrorIn { kReply, kStream };

// The one error body of the API, for replies and streams alike:
//   {"error":{"code":3,"reason":"InvalidArgument","error":"<message>"}}
// A stream's line has the same fields plus those of grpc-gateway's stream error (runtime.StreamError),
// which is all upstream's client reads from a stream:
//   {"error":{"code":3,"reason":"InvalidArgument","error":"<message>","grpcCode":3,"httpCode":400,
//             "httpStatus":"Bad Request","message":"<message>","details":[]}}
// An unknown code is reported as Internal.
nlohmann::json ErrorBody(const absl::Status& status, ErrorIn in = ErrorIn::kReply);
// The inverse, for clients: the status an error response stands for. Falls back to the HTTP status
// when the body is not a gateway error.
absl::Status StatusFromErrorResponse(int http_status, std::string_view body);

}  // namespace det::api
