#pragma once
// The harness's connection to the master: a RestClient authenticated with the allocation token,
// serialized by a mutex, retrying transient failures (reference §1c: the Core API session
// retries). An https:// DET_MASTER is verified as DET_MASTER_CERT_FILE / DET_MASTER_CERT_NAME say
// (client::TlsOptions::FromEnvironment), which the agent sets for TLS masters.
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "client/rest_client.h"
#include "harness/retry_policy.h"

namespace det::harness {

class Session {
 public:
  // `allocation_token` is DET_SESSION_TOKEN, sent as "Grpc-Metadata-x-allocation-token: Bearer
  // ...".
  Session(std::string master_url, std::string allocation_token, RetryPolicy retry = {});

  // Safe for concurrent use: calls are serialized. Each call retries transient failures under the
  // retry policy and then returns the last error.
  absl::StatusOr<nlohmann::json> Get(std::string_view path);
  absl::StatusOr<nlohmann::json> Post(std::string_view path, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Patch(std::string_view path, const nlohmann::json& body);

  const std::string& master_url() const { return master_url_; }
  const std::string& allocation_token() const { return allocation_token_; }

 private:
  template <typename Call>
  absl::StatusOr<nlohmann::json> WithRetry(Call call);

  std::string master_url_;
  std::string allocation_token_;
  RetryPolicy retry_;
  std::mutex mu_;
  std::unique_ptr<client::RestClient> client_;  // guarded by mu_
};

}  // namespace det::harness
