#pragma once
// Maps (method, path pattern) to handlers. Patterns use `{name}` segments: /api/v1/trials/{trial_id}.
// A last segment `*` makes a prefix route: /det/* takes /det and everything under it, the rest of the
// path ("a/b.js", or "") in path_params["*"].
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "master/http/http_types.h"
#include "master/http/request_observer.h"

namespace det::master {

using Handler = std::function<void(HttpRequest& request, ResponderPtr responder)>;

// Decides who is calling. Returns Unauthenticated when no valid credentials are presented.
class Authenticator {
 public:
  virtual ~Authenticator() = default;
  virtual absl::StatusOr<Principal> Authenticate(const HttpRequest& request) = 0;
};

enum class Access { kPublic, kAuthenticated };

class Router {
 public:
  explicit Router(Authenticator& authenticator) : authenticator_(authenticator) {}

  void Add(std::string method, std::string pattern, Access access, Handler handler);
  // Finds the route, authenticates, fills path params and runs the handler; answers 404/401 itself.
  void Dispatch(HttpRequest& request, ResponderPtr responder) const;
  // "METHOD /pattern" of every route, in the order they match: the contract tests' list of what the
  // master serves (determined-master --print-routes).
  std::vector<std::string> Patterns() const;
  // Every request dispatched from now on is reported to `observer` (null: none) once answered, its
  // duration read from `now`. `observer` outlives the router's use. Call before serving.
  using Now = std::function<std::chrono::steady_clock::time_point()>;
  void SetObserver(RequestObserver* observer, Now now = std::chrono::steady_clock::now);
  // Asked after authentication and before the handler of every authenticated route, with the route's
  // pattern: an error is the answer and the handler does not run. For rules that follow from the path
  // alone (master/handlers/path_scope.h). Call before serving.
  using Guard = std::function<absl::Status(const HttpRequest& request, const std::string& pattern)>;
  void SetGuard(Guard guard) { guard_ = std::move(guard); }

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    Access access;
    Handler handler;
    std::string pattern;  // as given to Add, for RequestRecord::route
  };
  Authenticator& authenticator_;
  std::vector<Route> routes_;
  RequestObserver* observer_ = nullptr;
  Now now_;
  Guard guard_;
};

// Helpers for handlers.
HttpResponse JsonResponse(int status, const std::string& json_text);
HttpResponse ErrorResponse(const absl::Status& status);

}  // namespace det::master
