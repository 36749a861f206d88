#include "master/rm/kubernetes/kube_status.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace det::master::kube {
namespace {

using nlohmann::json;

constexpr size_t kMaxQuotedBody = 300;  // of a reply that is not a Status object

std::string StringOr(const json& object, const char* key, std::string fallback) {
  if (object.is_object() && object.contains(key) && object[key].is_string()) {
    return object[key].get<std::string>();
  }
  return fallback;
}

absl::Status FromStatusObject(int http_status, const json& status, std::string_view call) {
  std::string reason = StringOr(status, "reason", "");
  std::string message = StringOr(status, "message", "");
  if (reason.empty()) reason = absl::StrCat("HTTP ", http_status);
  if (message.empty()) message = "(no message)";
  return absl::Status(CodeForKubeReply(http_status, reason),
                      absl::StrCat(reason, ": ", message, " (", std::string(call), ")"));
}

}  // namespace

absl::StatusCode CodeForKubeReply(int http_status, std::string_view reason) {
  switch (http_status) {
    case 404:
      return absl::StatusCode::kNotFound;
    case 409:
      return reason == "AlreadyExists" ? absl::StatusCode::kAlreadyExists
                                       : absl::StatusCode::kAborted;
    case 410:
      return absl::StatusCode::kOutOfRange;
    case 400:
    case 413:
    case 415:
    case 422:
      return absl::StatusCode::kInvalidArgument;
    case 401:
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 405:
      return absl::StatusCode::kUnimplemented;
    case 429:
      return absl::StatusCode::kUnavailable;
    default:
      return http_status >= 500 && http_status <= 599 ? absl::StatusCode::kUnavailable
                                                      : absl::StatusCode::kUnknown;
  }
}

absl::Status StatusFromKubeReply(int http_status, std::string_view body, std::string_view call) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() && (parsed.contains("message") || parsed.contains("reason"))) {
    return FromStatusObject(http_status, parsed, call);
  }
  std::string text(body.substr(0, kMaxQuotedBody));
  if (body.size() > kMaxQuotedBody) text += "...";
  if (text.empty()) text = "(empty body)";
  return absl::Status(CodeForKubeReply(http_status, ""),
                      absl::StrCat("HTTP ", http_status, ": ", text, " (", std::string(call), ")"));
}

absl::Status StatusFromWatchError(const json& status_object, std::string_view call) {
  int code = 500;
  if (status_object.is_object() && status_object.contains("code") &&
      status_object["code"].is_number_integer()) {
    code = status_object["code"].get<int>();
  }
  return FromStatusObject(code, status_object, call);
}

}  // namespace det::master::kube
