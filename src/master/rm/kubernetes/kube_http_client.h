#pragma once
// KubeApi over HTTP/JSON to a real Kubernetes API server (libcurl), with the connection a
// kubeconfig or the in-cluster service account gives (kube_connection.h).
//
// Requests: `Authorization: Bearer <token>` when there is a token (re-read from token_file at most
// every token_file_refresh), `Accept: application/json` (Logs: "application/json, */*", its reply
// being text); Create is a POST, Patch a PATCH of
// application/merge-patch+json, Delete a DELETE whose body is DeleteOptions
// ({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}), as client-go
// sends.
//
// Retries (each call, up to max_attempts tries, waiting first_backoff, then twice as long, ...):
// - 429 and 503 (the server did nothing): every call, Create included, after Retry-After seconds
//   when the reply has one (cut to max_retry_after);
// - no connection (resolve or connect failed or timed out: nothing was sent): every call;
// - 500, 502, 504 and a connection broken mid-call: the idempotent calls only: Get, List, Patch (a
//   merge patch applied twice is applied once), Delete (a second try may find the object gone:
//   NotFound, which callers treat as done), and the start of Watch and Logs (not once an event or
//   a line was delivered). Never Create.
// A call that runs past request_timeout is not tried again, nor one whose TLS failed (a certificate
// refused: trying again would not help); both are Unavailable, saying so. Other errors map as
// kube_api.h says, once (kube_status.h). A Watch or Logs stream that breaks after delivering
// something is Unavailable: the caller goes on from what it has seen.
//
// Watch asks the server to end the stream after watch_timeout plus up to a fifth more (jitter,
// so that watches renew apart) and ends it itself watch_grace after that (Unavailable) should the
// server not. Watch and Logs have no other time limit: TCP keepalive finds a dead connection, and
// `stop` is looked at every 100 ms, so they end (Cancelled) within about that once it is set.
//
// Threads: every method may be called from several threads at once; each call uses its own curl
// handle (from a small pool, to reuse connections).
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "master/rm/kubernetes/kube_api.h"
#include "master/rm/kubernetes/kube_connection.h"
#include "master/rm/kubernetes/kube_transport.h"

namespace det::master::kube {

struct KubeHttpOptions {
  std::chrono::seconds request_timeout{30};  // a whole call other than Watch and Logs
  std::chrono::seconds connect_timeout{10};
  int max_attempts = 4;  // tries of one call, the first included
  std::chrono::milliseconds first_backoff{250};
  std::chrono::seconds max_retry_after{10};
  std::chrono::seconds watch_timeout{300};  // the watch's timeoutSeconds, before jitter
  std::chrono::seconds watch_grace{60};
  std::chrono::seconds token_file_refresh{60};
  // Waits between tries (of Watch and Logs, in slices of at most 100 ms, so that `stop` is seen).
  // Empty = std::this_thread::sleep_for; tests record the waits instead.
  std::function<void(std::chrono::milliseconds)> sleep;
};

class KubeHttpClient : public KubeApi {
 public:
  explicit KubeHttpClient(KubeConnection connection, KubeHttpOptions options = {});
  ~KubeHttpClient() override;

  absl::StatusOr<nlohmann::json> Create(std::string_view collection,
                                        const nlohmann::json& object) override;
  absl::StatusOr<nlohmann::json> Get(std::string_view item) override;
  absl::StatusOr<nlohmann::json> List(std::string_view collection,
                                      const ListOptions& options) override;
  absl::StatusOr<nlohmann::json> Patch(std::string_view item,
                                       const nlohmann::json& merge_patch) override;
  absl::Status Delete(std::string_view item, std::string_view propagation_policy) override;
  absl::Status Watch(std::string_view collection, const ListOptions& options,
                     const std::string& resource_version,
                     const std::function<void(const WatchEvent&)>& on_event,
                     const std::atomic<bool>& stop) override;
  absl::Status Logs(std::string_view pod, const LogOptions& options,
                    const std::function<void(std::string_view line)>& on_line,
                    const std::atomic<bool>& stop) override;

 private:
  struct Call;  // kube_http_client.cc

  // The call's request, with the current token.
  HttpRequest Request(const Call& call);
  std::string Url(const Call& call) const;
  std::string Token();
  // Sends `request` until it succeeds or may not be tried again; the last reply. A stream's
  // `ready_to_retry` (null for other calls) is asked before each further try: false when the call
  // may not go again (it delivered something); else it drops what the broken try left.
  HttpReply Perform(const Call& call, HttpRequest request,
                    const std::function<bool()>& ready_to_retry, const std::atomic<bool>* stop);
  // The error a reply that did not succeed stands for.
  absl::Status StatusOf(const HttpReply& reply, const Call& call,
                        std::chrono::seconds timeout) const;
  // A JSON call with its retries: the parsed 2xx body, or the error.
  absl::StatusOr<nlohmann::json> Send(const Call& call);
  // Sleeps between tries; false when `stop` became true meanwhile.
  bool Wait(std::chrono::milliseconds delay, const std::atomic<bool>* stop);

  const KubeConnection connection_;
  KubeHttpOptions options_;
  std::string server_;  // connection_.server without a trailing '/'
  std::unique_ptr<KubeTransport> transport_;

  absl::Mutex token_mu_;
  std::string token_ ABSL_GUARDED_BY(token_mu_);
  std::chrono::steady_clock::time_point token_read_at_ ABSL_GUARDED_BY(token_mu_);
};

}  // namespace det::master::kube
