#pragma once
// A small REST client for the master's /api/v1 (libcurl). Shared by det, the agent and the harness.
// One RestClient may be used from one thread at a time; create one per thread. Cancel() is the
// exception: any thread may call it to abort the call in progress (a long poll, a log follow).
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"

namespace det::client {

struct Credentials {
  std::string user_token;        // sent as "Authorization: Bearer <token>"
  std::string allocation_token;  // sent as "Grpc-Metadata-x-allocation-token: Bearer <token>"
};

// How to check the master's certificate on an https:// URL (ignored for http://).
struct TlsOptions {
  std::string ca_file;     // PEM file with the master's certificate or its CA; "" = the system CAs
  std::string cert_name;   // the name the certificate must carry; "" = the URL's host
  bool no_verify = false;  // accept any certificate (upstream: DET_MASTER_CERT_FILE=noverify)

  // What upstream's clients read: DET_MASTER_CERT_FILE (a PEM file, or "noverify") and
  // DET_MASTER_CERT_NAME.
  static TlsOptions FromEnvironment();
};

struct RawResponse {
  int status = 0;
  std::string body;
};

struct RestClientSockets;  // rest_client.cc

class RestClient {
 public:
  // `master_url` like "http://127.0.0.1:8080" or "https://master:8443" (a bare "host:port" gets
  // "http://"). `tls` applies to https URLs; by default it comes from the environment, like
  // upstream's CLI and harness (TlsOptions::FromEnvironment).
  explicit RestClient(std::string master_url, Credentials credentials = {},
                      TlsOptions tls = TlsOptions::FromEnvironment());
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  const std::string& master_url() const { return master_url_; }
  void set_user_token(std::string token) { credentials_.user_token = std::move(token); }
  // Whole-call limit; a call that runs past it fails with DeadlineExceeded.
  void set_timeout_seconds(long seconds) { timeout_seconds_ = seconds; }
  // Aborts the call in progress at once (its connections are shut down), and fails every later
  // call, with Cancelled.
  void Cancel();

  // JSON calls: non-2xx responses become the Status the gateway error body stands for; transport
  // failures become Unavailable naming the master URL, except a certificate that fails
  // verification: FailedPrecondition naming DET_MASTER_CERT_FILE (retrying will not help).
  absl::StatusOr<nlohmann::json> Get(std::string_view path);
  absl::StatusOr<nlohmann::json> Post(std::string_view path, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Patch(std::string_view path, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Put(std::string_view path, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Delete(std::string_view path);
  absl::StatusOr<nlohmann::json> Delete(std::string_view path, const nlohmann::json& body);

  // Any method, raw body, no status mapping.
  absl::StatusOr<RawResponse> Send(std::string_view method, std::string_view path, std::string_view body);

  // A server stream (NDJSON lines of {"result": ...}): calls `on_result` with each `result` object until
  // the stream ends or `on_result` returns false. A mid-stream {"error": ...} line ends with its Status.
  absl::Status Stream(std::string_view path, const std::function<bool(const nlohmann::json&)>& on_result);

 private:
  absl::StatusOr<nlohmann::json> Call(std::string_view method, std::string_view path, const std::string* body);

  std::string master_url_;
  Credentials credentials_;
  TlsOptions tls_;
  long timeout_seconds_ = 60;
  std::atomic<bool> cancelled_{false};
  std::unique_ptr<RestClientSockets> sockets_;  // the transfers' open sockets, for Cancel()
  void* curl_;  // CURL*, kept out of the header
};

// Percent-encodes a query parameter value.
std::string UrlEncode(std::string_view s);

}  // namespace det::client
