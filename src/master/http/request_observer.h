#pragma once
// What the router tells about each request it answered, for request counts and durations
// (observability/master_metrics.h). Kept apart from the router so that the HTTP layer does not
// depend on how figures are exported.
#include <string>

namespace det::master {

// One answered request. `route` is the pattern of the route that took it
// ("/api/v1/trials/{trial_id}"), never the request's own path, so that ids in paths cannot grow the
// set of label values; a request no route took has the route "/**" (upstream's collapse of
// unmatched URLs).
struct RequestRecord {
  std::string method;
  std::string route;
  int status = 0;
  double seconds = 0;  // from dispatch to the response's last byte handed to the server
};

// Threads: Observe may be called from any I/O thread at once; implementations synchronise.
class RequestObserver {
 public:
  virtual ~RequestObserver() = default;
  virtual void Observe(const RequestRecord& record) = 0;
};

}  // namespace det::master
