#include "api/errors.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace det::api {

int HttpStatusFromCode(absl::StatusCode code) {
  using C = absl::StatusCode;
  switch (code) {
    case C::kOk: return 200;
    case C::kCancelled: return 408;
    case C::kInvalidArgument:
    case C::kFailedPrecondition:
    case C::kOutOfRange: return 400;
    case C::kDeadlineExceeded: return 504;
    case C::kNotFound: return 404;
    case C::kAlreadyExists:
    case C::kAborted: return 409;
    case C::kPermissionDenied: return 403;
    case C::kUnauthenticated: return 401;
    case C::kResourceExhausted: return 429;
    case C::kUnimplemented: return 501;
    case C::kUnavailable: return 503;
    default: return 500;
  }
}

std::string_view CodeName(absl::StatusCode code) {
  using C = absl::StatusCode;
  switch (code) {
    case C::kOk: return "OK";
    case C::kCancelled: return "Canceled";
    case C::kUnknown: return "Unknown";
    case C::kInvalidArgument: return "InvalidArgument";
    case C::kDeadlineExceeded: return "DeadlineExceeded";
    case C::kNotFound: return "NotFound";
    case C::kAlreadyExists: return "AlreadyExists";
    case C::kPermissionDenied: return "PermissionDenied";
    case C::kResourceExhausted: return "ResourceExhausted";
    case C::kFailedPrecondition: return "FailedPrecondition";
    case C::kAborted: return "Aborted";
    case C::kOutOfRange: return "OutOfRange";
    case C::kUnimplemented: return "Unimplemented";
    case C::kInternal: return "Internal";
    case C::kUnavailable: return "Unavailable";
    case C::kDataLoss: return "DataLoss";
    case C::kUnauthenticated: return "Unauthenticated";
    default: return "Unknown";
  }
}

std::string_view HttpStatusText(int http_status) {
  switch (http_status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

nlohmann::json ErrorBody(const absl::Status& status, ErrorIn in) {
  absl::StatusCode code = status.code();
  if (code == absl::StatusCode::kUnknown) code = absl::StatusCode::kInternal;
  nlohmann::json error = {{"code", static_cast<int>(code)},
                          {"reason", std::string(CodeName(code))},
                          {"error", std::string(status.message())}};
  if (in == ErrorIn::kStream) {
    int http = HttpStatusFromCode(code);
    error["grpcCode"] = static_cast<int>(code);
    error["httpCode"] = http;
    error["httpStatus"] = std::string(HttpStatusText(http));
    error["message"] = std::string(status.message());
    error["details"] = nlohmann::json::array();
  }
  return {{"error", std::move(error)}};
}

namespace {

absl::StatusCode CodeFromHttp(int http) {
  using C = absl::StatusCode;
  switch (http) {
    case 400: return C::kInvalidArgument;
    case 401: return C::kUnauthenticated;
    case 403: return C::kPermissionDenied;
    case 404: return C::kNotFound;
    case 408: return C::kCancelled;
    case 409: return C::kAlreadyExists;
    case 429: return C::kResourceExhausted;
    case 501: return C::kUnimplemented;
    case 503: return C::kUnavailable;
    case 504: return C::kDeadlineExceeded;
    default: return C::kInternal;
  }
}

}  // namespace

absl::Status StatusFromErrorResponse(int http_status, std::string_view body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("error") && j["error"].is_object()) {
    const nlohmann::json& e = j["error"];
    std::string message;
    if (e.contains("error") && e["error"].is_string()) message = e["error"];
    else if (e.contains("message") && e["message"].is_string()) message = e["message"];
    absl::StatusCode code = CodeFromHttp(http_status);
    if (e.contains("code") && e["code"].is_number_integer()) {
      int c = e["code"];
      if (c > 0 && c <= 16) code = static_cast<absl::StatusCode>(c);
    }
    return absl::Status(code, message);
  }
  return absl::Status(CodeFromHttp(http_status),
                      absl::StrCat("HTTP ", http_status, ": ", std::string(body.substr(0, 500))));
}

}  // namespace det::api
