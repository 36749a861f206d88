#include "master/handlers/handler_util.h"

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/errors.h"
#include "api/wire.h"
#include "common/json_yaml.h"

namespace det::master {

absl::StatusOr<nlohmann::json> JsonBody(const HttpRequest& request) {
  if (request.body.empty()) return nlohmann::json::object();
  absl::StatusOr<nlohmann::json> j = ParseJson(request.body);
  if (!j.ok()) return absl::InvalidArgumentError(absl::StrCat("request body: ", j.status().message()));
  if (!j->is_object()) return absl::InvalidArgumentError("request body must be a JSON object");
  return j;
}

absl::StatusOr<int64_t> PathId(const HttpRequest& request, const std::string& name) {
  auto it = request.path_params.find(name);
  int64_t v = 0;
  if (it == request.path_params.end() || !absl::SimpleAtoi(it->second, &v) || v <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": expected a positive integer, got \"", it == request.path_params.end() ? "" : it->second, "\""));
  }
  return v;
}

absl::StatusOr<int64_t> QueryInt(const HttpRequest& request, const std::string& name, int64_t fallback) {
  std::optional<std::string> v = request.Query(name);
  if (!v || v->empty()) return fallback;
  int64_t out = 0;
  if (!absl::SimpleAtoi(*v, &out)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": expected an integer, got \"", *v, "\""));
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> QueryTrialIds(const HttpRequest& request) {
  std::vector<int64_t> ids;
  for (const std::string& raw : request.QueryAll("trial_ids")) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(raw, &id)) return absl::InvalidArgumentError(absl::StrCat("trialIds: bad id \"", raw, "\""));
    if (absl::c_linear_search(ids, id)) return absl::InvalidArgumentError(absl::StrCat("trialIds: duplicate id ", id));
    ids.push_back(id);
  }
  if (ids.empty()) return absl::InvalidArgumentError("trialIds: at least one trial id is required");
  return ids;
}

bool QueryBool(const HttpRequest& request, const std::string& name) {
  std::optional<std::string> v = request.Query(name);
  return v && (*v == "true" || *v == "1");
}

absl::StatusOr<std::optional<bool>> QueryOptionalBool(const HttpRequest& request, const std::string& name) {
  std::optional<std::string> v = request.Query(name);
  if (!v || v->empty()) return std::optional<bool>();
  std::string s = absl::AsciiStrToLower(*v);
  if (s == "true" || s == "1") return std::optional<bool>(true);
  if (s == "false" || s == "0") return std::optional<bool>(false);
  return absl::InvalidArgumentError(absl::StrCat(name, ": expected true or false, got \"", *v, "\""));
}

absl::StatusOr<bool> QueryOrderDescending(const HttpRequest& request) {
  std::string order = request.Query("order_by").value_or("");
  if (order == "ORDER_BY_DESC" || order == "2") return true;
  if (order.empty() || order == "ORDER_BY_ASC" || order == "ORDER_BY_UNSPECIFIED" || order == "1" || order == "0") {
    return false;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "orderBy: expected ORDER_BY_ASC, ORDER_BY_DESC or ORDER_BY_UNSPECIFIED, got \"", order, "\""));
}

void ReplyJson(const ResponderPtr& responder, const nlohmann::json& body, int status) {
  responder->Send(JsonResponse(status, DumpJson(body)));
}

void ReplyError(const ResponderPtr& responder, const absl::Status& status) {
  responder->Send(ErrorResponse(status));
}

void Reply(const ResponderPtr& responder, const absl::StatusOr<nlohmann::json>& value) {
  if (value.ok()) {
    ReplyJson(responder, *value);
  } else {
    ReplyError(responder, value.status());
  }
}

void ReplyResponse(const ResponderPtr& responder, absl::StatusOr<HttpResponse> response) {
  if (response.ok()) {
    responder->Send(*std::move(response));
  } else {
    ReplyError(responder, response.status());
  }
}

void ReplyIfError(const ResponderPtr& responder, const absl::Status& started) {
  if (!started.ok()) ReplyError(responder, started);
}

void EndStreamWithError(const ResponderPtr& responder, const absl::Status& status) {
  responder->WriteChunk(DumpJson(api::ErrorBody(status, api::ErrorIn::kStream)) + "\n", nullptr);
  responder->EndStream();
}

nlohmann::json Pagination(int64_t offset, int64_t limit, int64_t count, int64_t total) {
  return {{"offset", offset},
          {"limit", limit},
          {"startIndex", offset},
          {"endIndex", offset + count},
          {"total", total}};
}

}  // namespace det::master
