#include "master/http/router.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/json_yaml.h"
#include "api/errors.h"
#include "api/wire.h"

namespace det::master {
namespace {

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> out;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) out.emplace_back(part);
  return out;
}

// `?pretty` (reference §0.2): a unary JSON reply comes back indented. Streams pass through.
class PrettyResponder : public Responder {
 public:
  explicit PrettyResponder(ResponderPtr inner) : inner_(std::move(inner)) {}

  void Send(HttpResponse response) override {
    if (response.content_type == "application/json") {
      nlohmann::json j = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
      if (!j.is_discarded()) response.body = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    inner_->Send(std::move(response));
  }
  void BeginStream(int status, std::string content_type) override {
    inner_->BeginStream(status, std::move(content_type));
  }
  void WriteChunk(std::string data, std::function<void(bool ok)> done) override {
    inner_->WriteChunk(std::move(data), std::move(done));
  }
  void EndStream() override { inner_->EndStream(); }

 private:
  ResponderPtr inner_;
};

// Reports the request to the observer when its answer is handed over: a unary reply at Send, a
// stream at EndStream (or, when the handler drops a stream without ending it, when it is released).
class ObservingResponder : public Responder {
 public:
  ObservingResponder(ResponderPtr inner, RequestObserver& observer, const Router::Now& now,
                     std::string method)
      : inner_(std::move(inner)), observer_(observer), now_(now), start_(now()) {
    record_.method = std::move(method);
    record_.route = "/**";
  }
  ~ObservingResponder() override {
    if (!reported_ && record_.status != 0) Report();
  }
  void SetRoute(const std::string& route) { record_.route = route; }

  void Send(HttpResponse response) override {
    record_.status = response.status;
    Report();
    inner_->Send(std::move(response));
  }
  void BeginStream(int status, std::string content_type) override {
    record_.status = status;
    inner_->BeginStream(status, std::move(content_type));
  }
  void WriteChunk(std::string data, std::function<void(bool ok)> done) override {
    inner_->WriteChunk(std::move(data), std::move(done));
  }
  void EndStream() override {
    inner_->EndStream();
    if (!reported_) Report();
  }

 private:
  void Report() {
    reported_ = true;
    record_.seconds = std::chrono::duration<double>(now_() - start_).count();
    observer_.Observe(record_);
  }

  ResponderPtr inner_;
  RequestObserver& observer_;
  const Router::Now& now_;
  std::chrono::steady_clock::time_point start_;
  RequestRecord record_;
  bool reported_ = false;
};

}  // namespace

void Router::Add(std::string method, std::string pattern, Access access, Handler handler) {
  std::vector<std::string> segments = Split(pattern);
  routes_.push_back(
      {std::move(method), std::move(segments), access, std::move(handler), std::move(pattern)});
}

void Router::SetObserver(RequestObserver* observer, Now now) {
  observer_ = observer;
  now_ = std::move(now);
}

std::vector<std::string> Router::Patterns() const {
  std::vector<std::string> out;
  out.reserve(routes_.size());
  for (const Route& route : routes_) {
    std::string pattern = route.method + " ";
    for (const std::string& segment : route.segments) pattern += "/" + segment;
    out.push_back(std::move(pattern));
  }
  return out;
}

void Router::Dispatch(HttpRequest& request, ResponderPtr responder) const {
  std::shared_ptr<ObservingResponder> observing;
  if (observer_ != nullptr) {
    observing = std::make_shared<ObservingResponder>(std::move(responder), *observer_, now_,
                                                     request.method);
    responder = observing;
  }
  if (request.query.count("pretty") > 0) responder = std::make_shared<PrettyResponder>(std::move(responder));
  std::vector<std::string> segments = Split(request.path);
  bool path_matched = false;
  for (const Route& route : routes_) {
    const bool prefix = !route.segments.empty() && route.segments.back() == "*";
    const size_t fixed = prefix ? route.segments.size() - 1 : route.segments.size();
    if (prefix ? segments.size() < fixed : segments.size() != fixed) continue;
    std::map<std::string, std::string> params;
    if (prefix) {
      params["*"] = absl::StrJoin(segments.begin() + static_cast<std::ptrdiff_t>(fixed), segments.end(), "/");
    }
    bool match = true;
    for (size_t i = 0; i < fixed && match; ++i) {
      const std::string& want = route.segments[i];
      if (want.size() > 2 && want.front() == '{' && want.back() == '}') {
        params[want.substr(1, want.size() - 2)] = segments[i];
      } else {
        match = want == segments[i];
      }
    }
    if (!match) continue;
    path_matched = true;
    if (route.method != request.method) continue;
    if (observing) observing->SetRoute(route.pattern);
    request.path_params = std::move(params);
    if (route.access == Access::kAuthenticated) {
      absl::StatusOr<Principal> who = authenticator_.Authenticate(request);
      if (!who.ok()) {
        responder->Send(ErrorResponse(who.status()));
        return;
      }
      request.principal = std::move(*who);
    }
    // Handlers return errors as values; an exception escaping one is a bug, answered as Internal so
    // that one bad request cannot take the master down.
    try {
      if (guard_ && request.principal) {
        if (absl::Status allowed = guard_(request, route.pattern); !allowed.ok()) {
          responder->Send(ErrorResponse(allowed));
          return;
        }
      }
      route.handler(request, responder);
    } catch (const std::exception& e) {
      responder->Send(ErrorResponse(absl::InternalError(absl::StrCat("internal error: ", e.what()))));
    }
    return;
  }
  if (path_matched) {
    responder->Send(ErrorResponse(absl::UnimplementedError(
        absl::StrCat("method ", request.method, " is not allowed on ", request.path))));
    return;
  }
  responder->Send(ErrorResponse(absl::NotFoundError(absl::StrCat("api not found: ", request.method, " ", request.path))));
}

HttpResponse JsonResponse(int status, const std::string& json_text) {
  HttpResponse r;
  r.status = status;
  r.body = json_text;
  return r;
}

HttpResponse ErrorResponse(const absl::Status& status) {
  return JsonResponse(api::HttpStatusFromCode(status.code()), DumpJson(api::ErrorBody(status)));
}

}  // namespace det::master
