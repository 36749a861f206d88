#pragma once
// The part of the Kubernetes API the resource manager uses, per resource path: create, get, list,
// patch, delete, watch, and a container's log. One implementation speaks HTTP/JSON to a real API
// server (kube_http_client.h); tests use the project's fake API server (tests/fake_kube), which
// speaks the same wire.
//
// Paths are the API server's own: a collection ("/api/v1/namespaces/default/pods",
// "/apis/batch/v1/namespaces/default/jobs", "/api/v1/nodes") or an item (collection + "/NAME").
//
// Errors are the server's Status objects mapped onto absl codes: 404 NotFound, 409 AlreadyExists
// (reason AlreadyExists) or Aborted (reason Conflict), 410 OutOfRange (the resourceVersion is too old:
// list again), 400/422 InvalidArgument, 401/403 PermissionDenied, 429 and 5xx Unavailable (after the
// client's own retries), transport failures Unavailable. The message carries the server's message.
//
// Threads: every call blocks; the resource manager calls them on its worker threads, never on the
// cluster's loop. One KubeApi may be used from several threads at once.
#include <atomic>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::master::kube {

struct ListOptions {
  std::string label_selector;  // "a=b,c!=d"; "" = all
  std::string field_selector;  // "status.phase=Running"; "" = all
};

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK
  nlohmann::json object;
};

struct LogOptions {
  std::string container;   // "" = the pod's only container
  bool follow = false;     // stream until the container ends
  bool timestamps = false; // each line starts with its RFC3339 time and a space
  std::string since_time;  // RFC3339; "" = from the start
};

class KubeApi {
 public:
  virtual ~KubeApi() = default;

  // POST to the collection; the created object as the server returns it.
  virtual absl::StatusOr<nlohmann::json> Create(std::string_view collection, const nlohmann::json& object) = 0;
  virtual absl::StatusOr<nlohmann::json> Get(std::string_view item) = 0;
  // The list object: {"items": [...], "metadata": {"resourceVersion": "..."}}.
  virtual absl::StatusOr<nlohmann::json> List(std::string_view collection, const ListOptions& options) = 0;
  // JSON merge patch (application/merge-patch+json); the patched object.
  virtual absl::StatusOr<nlohmann::json> Patch(std::string_view item, const nlohmann::json& merge_patch) = 0;
  // DELETE with propagationPolicy ("Background", "Foreground", "Orphan"; "" = the server's default).
  // An object already gone is NotFound; callers that only want it gone treat that as done.
  virtual absl::Status Delete(std::string_view item, std::string_view propagation_policy) = 0;
  // Watches the collection from `resource_version` ("" = the current state as ADDED events first),
  // calling `on_event` for each event (BOOKMARKs included) on the calling thread, until the server ends
  // the stream (OkStatus: watch again from the last resourceVersion seen), `stop` becomes true
  // (Cancelled), or an error: OutOfRange when the resourceVersion is too old (an ERROR event with code
  // 410, or a 410 reply), so the caller lists again.
  virtual absl::Status Watch(std::string_view collection, const ListOptions& options,
                             const std::string& resource_version,
                             const std::function<void(const WatchEvent&)>& on_event,
                             const std::atomic<bool>& stop) = 0;
  // The container's log, a line at a time (without its newline), until its end (or, following,
  // until the container ends), or `stop` (Cancelled).
  virtual absl::Status Logs(std::string_view pod, const LogOptions& options,
                            const std::function<void(std::string_view line)>& on_line,
                            const std::atomic<bool>& stop) = 0;
};

}  // namespace det::master::kube
