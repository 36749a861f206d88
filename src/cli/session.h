#pragma once
// An authenticated connection to one master, with upstream's CLI login behaviour:
//  - inside a task, the task user's token (SessionOptions::task_login);
//  - the token cached for the master (TokenCache) is used when it belongs to the wanted user;
//  - otherwise, or when the master rejects the token (401), the session logs in by itself as the
//    wanted user (-u, DET_USER; else the cached user; else "determined") with the password from
//    DET_PASS or a blank one, asking for the password only if that fails and a prompt is available,
//    and caches the new token.
// Not thread-safe: one Session per thread.
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/token_cache.h"

namespace det::client {
class RestClient;
}

namespace det::cli {

// "host:port" -> "http://host:port"; no port -> :8080 (:8443 for https); no trailing '/'.
std::string CanonicalMasterUrl(std::string url);

struct SessionOptions {
  std::string master_url;               // canonical (CanonicalMasterUrl)
  std::string user;                     // wanted user; "" = the cached one, else "determined"
  std::optional<std::string> password;  // DET_PASS; unset = blank, then ask_password
  std::filesystem::path auth_file;      // TokenCache location
  // Inside a task: its user's session token (DET_USER, DET_USER_TOKEN), used before the cache and
  // without a login whenever the wanted user is that user (or none) and no password was given.
  std::optional<CachedLogin> task_login;
  // Asks for a user's password after a failed automatic login; unset = never ask.
  std::function<absl::StatusOr<std::string>(const std::string& username)> ask_password;
};

class Session {
 public:
  explicit Session(SessionOptions options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& master_url() const { return options_.master_url; }
  // The authenticated user; "" until EnsureLoggedIn succeeded.
  const std::string& username() const { return username_; }

  absl::Status EnsureLoggedIn();

  // Authenticated calls; a 401 triggers one fresh login and a retry.
  absl::StatusOr<nlohmann::json> Get(std::string_view path);
  absl::StatusOr<nlohmann::json> Post(std::string_view path, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Patch(std::string_view path, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Put(std::string_view path, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Delete(std::string_view path);
  absl::StatusOr<nlohmann::json> Delete(std::string_view path, const nlohmann::json& body);
  // NDJSON stream; retried after a 401 only if no result was delivered yet.
  absl::Status Stream(std::string_view path,
                      const std::function<bool(const nlohmann::json&)>& on_result);

  // `det user login`: logs in with the given credentials and caches the token.
  absl::Status LoginAs(const std::string& username, const std::string& plain_password);
  // `det token login TOKEN`: checks an access (or session) token with GET /api/v1/me and caches it
  // for the user it belongs to, as a login does; later commands use it. Returns that user's name.
  absl::StatusOr<std::string> LoginWithToken(const std::string& token);
  // `det user logout`: tells the master (if a token is cached) and drops the cached token.
  absl::Status Logout();

 private:
  template <typename Call>
  auto WithAuth(Call&& call) -> decltype(call());

  absl::Status AutoLogin(const std::string& username);
  absl::StatusOr<std::string> RequestToken(const std::string& username,
                                           const std::string& plain_password,
                                           std::string* canonical_username);
  absl::Status Remember(const std::string& username, const std::string& token);
  void UseToken(const std::string& username, const std::string& token);

  SessionOptions options_;
  std::unique_ptr<client::RestClient> client_;
  std::string username_;
  std::string token_;
  bool token_is_fresh_ = false;  // obtained by a login in this process: a 401 will not go away
};

}  // namespace det::cli
