#pragma once
// One HTTP exchange with the Kubernetes API server over libcurl, TLS as a KubeConnection says:
// what KubeHttpClient builds its calls (retries, error mapping, watch and log streams) on.
//
// Threads: Perform may be called from several threads at once. Each exchange has a curl handle of
// its own, taken from a small pool of idle ones so that connections (and TLS sessions) are reused.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "master/rm/kubernetes/kube_connection.h"

namespace det::master::kube {

struct HttpRequest {
  std::string method;                // "GET", "POST", "PATCH", "DELETE"
  std::string url;                   // the server's URL, the path and the query
  std::vector<std::string> headers;  // "Name: value"
  std::string body;                  // sent unless the method is GET ("" = none)
  std::chrono::seconds timeout{0};   // the whole exchange; 0 = no limit (streams)
  // A stream: a 2xx reply's body is handed over here as it comes, in pieces of any size, instead of
  // collected into HttpReply::body. Returning false ends the exchange (kReceiverEnded).
  std::function<bool(std::string_view piece)> on_body;
  // Checked at least every kStopCheckInterval while the exchange runs; ends it (kStopped).
  const std::atomic<bool>* stop = nullptr;
};

inline constexpr std::chrono::milliseconds kStopCheckInterval{100};

enum class HttpOutcome {
  kReplied,        // a whole reply: `status`, and `body` unless streamed
  kNotSent,        // no connection (resolve or connect failed): the server saw nothing
  kBroken,         // the connection failed after the request may have gone out
  kTimedOut,       // the whole-exchange timeout passed (a connect timeout is kNotSent)
  kTlsFailed,      // the server's certificate, or the client's, was refused
  kStopped,        // `stop` became true
  kReceiverEnded,  // on_body returned false
};

struct HttpReply {
  HttpOutcome outcome = HttpOutcome::kReplied;
  std::string error;  // curl's words, for outcomes other than kReplied
  int status = 0;     // the HTTP status, once the headers came (0 before)
  std::string body;   // the body of a reply not streamed (of an error reply, its first 64 KiB)
  std::optional<std::chrono::seconds> retry_after;  // the Retry-After header, in seconds
};

struct CurlSessionPool;  // kube_transport.cc

class KubeTransport {
 public:
  KubeTransport(const KubeConnection& connection, std::chrono::seconds connect_timeout);
  ~KubeTransport();
  KubeTransport(const KubeTransport&) = delete;
  KubeTransport& operator=(const KubeTransport&) = delete;

  HttpReply Perform(const HttpRequest& request);

 private:
  KubeConnection tls_;  // its TLS fields
  std::chrono::seconds connect_timeout_;
  std::unique_ptr<CurlSessionPool> pool_;
};

}  // namespace det::master::kube
