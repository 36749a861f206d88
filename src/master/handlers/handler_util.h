#pragma once
// Small helpers shared by the handlers: body parsing, path parameters, JSON replies.
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "master/event_loop.h"
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

// ---- Replies: one style for every handler ----
//
// A handler's work is a function that returns absl::StatusOr<json> (or a lambda called at once) and
// propagates failures with RETURN_IF_ERROR / ASSIGN_OR_RETURN (common/status_macros.h); the handler
// replies once, with the body or the error:
//
//   Reply(r, GetTrial(ctx, req));
//   Reply(r, [&]() -> absl::StatusOr<json> { ASSIGN_OR_RETURN(...); ...; return body; }());
//
// Work that ends elsewhere (the cluster's loop, the metrics writer, a stream) is started by a
// function that returns absl::Status: OK once it handed the responder on, else the error that stopped
// it before, which ReplyIfError replies. What it hands on is a callback made by ReplyWith, which
// replies the error of the result it is given or what its `then` makes of the value:
//
//   ReplyIfError(r, [&]() -> absl::Status {
//     ASSIGN_OR_RETURN(int64_t id, PathId(req, "trial_id"));
//     ctx.cluster.KillTrial(id, ReplyWith(r));  // {} or the cluster's error
//     return absl::OkStatus();
//   }());
//
// Every error body, of a reply or of a stream (EndStreamWithError), is api::ErrorBody's.

// Replies with `value` or its error.
void Reply(const ResponderPtr& responder, const absl::StatusOr<nlohmann::json>& value);
// Replies with `response` (its own status, content type, headers) or the error.
void ReplyResponse(const ResponderPtr& responder, absl::StatusOr<HttpResponse> response);
// Replies the error of work that failed before it handed `responder` on; nothing when `started` is OK
// (the responder is then someone else's to answer).
void ReplyIfError(const ResponderPtr& responder, const absl::Status& started);

void ReplyJson(const ResponderPtr& responder, const nlohmann::json& body, int status = 200);
// The error reply: the HTTP status of the code, api::ErrorBody as the body.
void ReplyError(const ResponderPtr& responder, const absl::Status& status);

// The last line of a stream that began (BeginStream) and failed: api::ErrorBody(status,
// ErrorIn::kStream), the ordinary error body plus the fields upstream's client reads from a stream;
// then the stream ends.
void EndStreamWithError(const ResponderPtr& responder, const absl::Status& status);

namespace handler_util_internal {
inline const absl::Status& StatusOf(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& result) {
  return result.status();
}
// `then` called with what a successful result holds: nothing for a Status, the StatusOr's value. By
// overload, so that only the call that fits is compiled (clang checks both arms of an if constexpr
// whose calls do not depend on the result's type).
template <typename Then>
decltype(auto) CallThen(Then& then, absl::Status&) {
  return then();
}
template <typename Then, typename T>
decltype(auto) CallThen(Then& then, absl::StatusOr<T>& result) {
  return then(*std::move(result));
}
}  // namespace handler_util_internal

// A completion callback (std::function<void(absl::Status)> or <void(absl::StatusOr<T>)>) that answers
// `responder`: a failed result's error is replied; on success `then` is called (with the StatusOr's
// value; with nothing for a Status) and what it returns, json or absl::StatusOr<json>, is replied. A
// `then` that returns nothing replies itself, later (it hands the responder on again). The callback
// may run on any thread; `then` runs where it does.
template <typename Then>
auto ReplyWith(ResponderPtr responder, Then then) {
  return [responder = std::move(responder), then = std::move(then)](auto result) mutable {
    if (!result.ok()) return ReplyError(responder, handler_util_internal::StatusOf(result));
    auto call = [&]() -> decltype(auto) { return handler_util_internal::CallThen(then, result); };
    if constexpr (std::is_void_v<decltype(call())>) {
      call();
    } else {
      Reply(responder, call());
    }
  };
}

// ReplyWith whose work runs on `loop` (a handler's own: MasterContext::stream_loop): for a `then` that
// reads the store, since the cluster runs its callbacks on its loop, which must not wait on reads.
template <typename Then>
auto ReplyWithOn(EventLoop& loop, ResponderPtr responder, Then then) {
  return [&loop, reply = ReplyWith(std::move(responder), std::move(then))](auto result) mutable {
    loop.Post([reply = std::move(reply), result = std::move(result)]() mutable { reply(std::move(result)); });
  };
}

// A completion callback that replies {} on success, else the error.
inline auto ReplyWith(ResponderPtr responder) {
  return ReplyWith(std::move(responder), [](auto&&...) { return nlohmann::json::object(); });
}

// {"offset","limit","startIndex","endIndex","total"} for a page of `count` items out of `total`.
nlohmann::json Pagination(int64_t offset, int64_t limit, int64_t count, int64_t total);

}  // namespace det::master
