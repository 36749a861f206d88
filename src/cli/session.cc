#include "cli/session.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/token_cache.h"
#include "client/rest_client.h"
#include "common/crypto.h"

namespace det::cli {
namespace {

constexpr char kDefaultUser[] = "determined";

bool IsAuthError(const absl::Status& s) { return absl::IsUnauthenticated(s); }

TokenCache LoadCacheOrEmpty(const std::filesystem::path& path) {
  absl::StatusOr<TokenCache> cache = TokenCache::Load(path);
  if (cache.ok()) return std::move(*cache);
  static bool warned = false;  // once per process, however often the cache is read
  if (!warned)
    std::cerr << "Warning: ignoring the token cache: " << cache.status().message() << "\n";
  warned = true;
  return TokenCache::Empty(path);
}

}  // namespace

std::string CanonicalMasterUrl(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.find("://") == std::string::npos) url = "http://" + url;
  size_t scheme_end = url.find("://") + 3;
  size_t path_start = url.find('/', scheme_end);
  std::string authority = url.substr(
      scheme_end, path_start == std::string::npos ? std::string::npos : path_start - scheme_end);
  // A port is present if the authority ends in ":digits" (outside an IPv6 literal's brackets).
  size_t colon = authority.rfind(':');
  size_t bracket = authority.rfind(']');
  bool has_port = colon != std::string::npos && (bracket == std::string::npos || colon > bracket);
  if (!has_port && !authority.empty()) {
    std::string port = absl::StartsWith(url, "https://") ? ":8443" : ":8080";
    url.insert(scheme_end + authority.size(), port);
  }
  return url;
}

Session::Session(SessionOptions options)
    : options_(std::move(options)),
      client_(std::make_unique<client::RestClient>(options_.master_url)) {}

Session::~Session() = default;

void Session::UseToken(const std::string& username, const std::string& token) {
  username_ = username;
  token_ = token;
  client_->set_user_token(token);
}

absl::Status Session::Remember(const std::string& username, const std::string& token) {
  TokenCache cache = LoadCacheOrEmpty(options_.auth_file);
  cache.Set(options_.master_url, CachedLogin{username, token});
  absl::Status s = cache.Save();
  if (!s.ok()) std::cerr << "Warning: could not cache the login token: " << s.message() << "\n";
  return absl::OkStatus();  // a token we cannot cache still works for this run
}

absl::StatusOr<std::string> Session::RequestToken(const std::string& username,
                                                  const std::string& plain_password,
                                                  std::string* canonical_username) {
  client::RestClient anonymous(options_.master_url);
  nlohmann::json body = {{"username", username},
                         {"password", ClientSidePasswordHash(plain_password)},
                         {"isHashed", true}};
  absl::StatusOr<nlohmann::json> resp = anonymous.Post("/api/v1/auth/login", body);
  if (!resp.ok()) return resp.status();
  auto tok = resp->find("token");
  if (tok == resp->end() || !tok->is_string() || tok->get_ref<const std::string&>().empty()) {
    return absl::InternalError(
        absl::StrCat("the master at ", options_.master_url, " answered the login without a token"));
  }
  *canonical_username = username;
  if (auto user = resp->find("user"); user != resp->end() && user->is_object()) {
    if (auto name = user->find("username"); name != user->end() && name->is_string()) {
      *canonical_username = name->get<std::string>();
    }
  }
  return tok->get<std::string>();
}

absl::Status Session::AutoLogin(const std::string& username) {
  std::string canonical;
  absl::StatusOr<std::string> token =
      RequestToken(username, options_.password.value_or(""), &canonical);
  if (!token.ok() && (IsAuthError(token.status()) || absl::IsPermissionDenied(token.status())) &&
      !options_.password.has_value() && options_.ask_password) {
    absl::StatusOr<std::string> pw = options_.ask_password(username);
    if (!pw.ok()) return pw.status();
    token = RequestToken(username, *pw, &canonical);
  }
  if (!token.ok()) {
    if (IsAuthError(token.status()) || absl::IsPermissionDenied(token.status())) {
      return absl::Status(
          token.status().code(),
          absl::StrCat("cannot log in to ", options_.master_url, " as user '", username,
                       "': ", token.status().message(), " (log in with `det user login ", username,
                       "`, or set DET_USER and DET_PASS)"));
    }
    return token.status();
  }
  UseToken(canonical, *token);
  token_is_fresh_ = true;
  return Remember(canonical, *token);
}

absl::Status Session::EnsureLoggedIn() {
  if (!token_.empty()) return absl::OkStatus();
  if (const std::optional<CachedLogin>& task = options_.task_login;
      task.has_value() && !options_.password.has_value() &&
      (options_.user.empty() || options_.user == task->username)) {
    UseToken(task->username, task->token);
    token_is_fresh_ = true;  // a rejected task token is an error to report, not a reason to log in
    return absl::OkStatus();
  }
  TokenCache cache = LoadCacheOrEmpty(options_.auth_file);
  if (std::optional<CachedLogin> cached = cache.Get(options_.master_url);
      cached.has_value() && (options_.user.empty() || options_.user == cached->username)) {
    UseToken(cached->username, cached->token);
    token_is_fresh_ = false;
    return absl::OkStatus();
  }
  return AutoLogin(options_.user.empty() ? kDefaultUser : options_.user);
}

template <typename Call>
auto Session::WithAuth(Call&& call) -> decltype(call()) {
  if (absl::Status s = EnsureLoggedIn(); !s.ok()) return s;
  auto result = call();
  absl::Status status;
  if constexpr (std::is_same_v<decltype(result), absl::Status>) {
    status = result;
  } else {
    status = result.status();
  }
  if (!IsAuthError(status) || token_is_fresh_) return result;
  // The cached token expired or was revoked: log in again as the same user and retry once.
  std::string user = !options_.user.empty() ? options_.user
                     : !username_.empty()   ? username_
                                            : std::string(kDefaultUser);
  token_.clear();
  client_->set_user_token("");
  if (absl::Status s = AutoLogin(user); !s.ok()) return s;
  return call();
}

absl::StatusOr<nlohmann::json> Session::Get(std::string_view path) {
  return WithAuth([&] { return client_->Get(path); });
}

absl::StatusOr<nlohmann::json> Session::Post(std::string_view path, const nlohmann::json& body) {
  return WithAuth([&] { return client_->Post(path, body); });
}

absl::StatusOr<nlohmann::json> Session::Patch(std::string_view path, const nlohmann::json& body) {
  return WithAuth([&] { return client_->Patch(path, body); });
}

absl::StatusOr<nlohmann::json> Session::Put(std::string_view path, const nlohmann::json& body) {
  return WithAuth([&] { return client_->Put(path, body); });
}

absl::StatusOr<nlohmann::json> Session::Delete(std::string_view path) {
  return WithAuth([&] { return client_->Delete(path); });
}

absl::StatusOr<nlohmann::json> Session::Delete(std::string_view path, const nlohmann::json& body) {
  return WithAuth([&] { return client_->Delete(path, body); });
}

absl::Status Session::Stream(std::string_view path,
                             const std::function<bool(const nlohmann::json&)>& on_result) {
  bool delivered = false;
  auto counting = [&](const nlohmann::json& r) {
    delivered = true;
    return on_result(r);
  };
  if (absl::Status s = EnsureLoggedIn(); !s.ok()) return s;
  absl::Status s = client_->Stream(path, counting);
  if (!IsAuthError(s) || delivered || token_is_fresh_) return s;
  std::string user = !options_.user.empty() ? options_.user : username_;
  token_.clear();
  client_->set_user_token("");
  if (absl::Status login = AutoLogin(user.empty() ? kDefaultUser : user); !login.ok()) return login;
  return client_->Stream(path, counting);
}

absl::Status Session::LoginAs(const std::string& username, const std::string& plain_password) {
  std::string canonical;
  absl::StatusOr<std::string> token = RequestToken(username, plain_password, &canonical);
  if (!token.ok()) return token.status();
  UseToken(canonical, *token);
  token_is_fresh_ = true;
  TokenCache cache = LoadCacheOrEmpty(options_.auth_file);
  cache.Set(options_.master_url, CachedLogin{canonical, *token});
  return cache.Save();
}

absl::StatusOr<std::string> Session::LoginWithToken(const std::string& token) {
  if (token.empty()) return absl::InvalidArgumentError("no token given");
  client::RestClient check(options_.master_url);
  check.set_user_token(token);
  absl::StatusOr<nlohmann::json> me = check.Get("/api/v1/me");
  if (!me.ok()) return me.status();
  std::string username;
  if (auto user = me->find("user"); user != me->end() && user->is_object()) {
    username = user->value("username", "");
  }
  if (username.empty()) return absl::InternalError("the master's /api/v1/me answer names no user");
  UseToken(username, token);
  token_is_fresh_ = true;
  TokenCache cache = LoadCacheOrEmpty(options_.auth_file);
  cache.Set(options_.master_url, CachedLogin{username, token});
  if (absl::Status s = cache.Save(); !s.ok()) return s;
  return username;
}

absl::Status Session::Logout() {
  TokenCache cache = LoadCacheOrEmpty(options_.auth_file);
  std::optional<CachedLogin> cached = cache.Get(options_.master_url);
  if (cached.has_value()) {
    client::RestClient authed(options_.master_url);
    authed.set_user_token(cached->token);
    absl::StatusOr<nlohmann::json> r = authed.Post("/api/v1/auth/logout", nlohmann::json::object());
    // An expired token is as good as logged out; an unreachable master still gets the cache
    // cleared.
    if (!r.ok() && !IsAuthError(r.status())) {
      std::cerr << "Warning: " << r.status().message() << "\n";
    }
    cache.Erase(options_.master_url);
    if (absl::Status s = cache.Save(); !s.ok()) return s;
  }
  token_.clear();
  username_.clear();
  client_->set_user_token("");
  return absl::OkStatus();
}

}  // namespace det::cli
