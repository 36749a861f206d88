#pragma once
// Small helpers shared by the handlers: body parsing, path parameters, JSON replies.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "master/http/router.h"

namespace det::master {

// The request body as JSON; an empty body is an empty object (upstream accepts both).
absl::StatusOr<nlohmann::json> JsonBody(const HttpRequest& request);
// A path parameter that must be a positive integer.
absl::StatusOr<int64_t> PathId(const HttpRequest& request, const std::string& name);
// An optional integer query parameter.
absl::StatusOr<int64_t> QueryInt(const HttpRequest& request, const std::string& name, int64_t fallback);
// `trialIds`: at least one, each an integer, no duplicates; InvalidArgument says which rule broke.
absl::StatusOr<std::vector<int64_t>> QueryTrialIds(const HttpRequest& request);
bool QueryBool(const HttpRequest& request, const std::string& name);
// An optional boolean query parameter: absent or empty -> nullopt; true/false/1/0, else an error
// naming the parameter.
absl::StatusOr<std::optional<bool>> QueryOptionalBool(const HttpRequest& request, const std::string& name);
// The `orderBy` parameter: true for ORDER_BY_DESC (2); ORDER_BY_ASC (1), ORDER_BY_UNSPECIFIED (0)
// and absence are false; anything else is an error.
absl::StatusOr<bool> QueryOrderDescending(const HttpRequest& request);

void ReplyJson(const ResponderPtr& responder, const nlohmann::json& body, int status = 200);
void ReplyError(const ResponderPtr& responder, const absl::Status& status);
// Replies with `value` or its error.
void Reply(const ResponderPtr& responder, const absl::StatusOr<nlohmann::json>& value);

// {"offset","limit","startIndex","endIndex","total"} for a page of `count` items out of `total`.
nlohmann::json Pagination(int64_t offset, int64_t limit, int64_t count, int64_t total);

}  // namespace det::master
