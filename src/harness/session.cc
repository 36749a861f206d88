#include "harness/session.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

namespace det::harness {

Session::Session(std::string master_url, std::string allocation_token, RetryPolicy retry)
    : master_url_(std::move(master_url)),
      allocation_token_(std::move(allocation_token)),
      retry_(retry),
      client_(std::make_unique<client::RestClient>(
          master_url_,
          client::Credentials{.user_token = "", .allocation_token = allocation_token_})) {}

template <typename Call>
absl::StatusOr<nlohmann::json> Session::WithRetry(Call call) {
  std::lock_guard<std::mutex> lock(mu_);
  auto start = std::chrono::steady_clock::now();
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<nlohmann::json> r = call(*client_);
    if (r.ok() || !IsTransient(r.status())) return r;
    auto delay = retry_.DelayBefore(attempt);
    if (std::chrono::steady_clock::now() + delay - start > retry_.max_elapsed) return r;
    std::this_thread::sleep_for(delay);
  }
}

absl::StatusOr<nlohmann::json> Session::Get(std::string_view path) {
  return WithRetry([&](client::RestClient& c) { return c.Get(path); });
}

absl::StatusOr<nlohmann::json> Session::Post(std::string_view path, const nlohmann::json& body) {
  return WithRetry([&](client::RestClient& c) { return c.Post(path, body); });
}

absl::StatusOr<nlohmann::json> Session::Patch(std::string_view path, const nlohmann::json& body) {
  return WithRetry([&](client::RestClient& c) { return c.Patch(path, body); });
}

}  // namespace det::harness
