#pragma once
// Users and their sessions.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/types.h"

namespace det::master {

// Users list order (upstream's GetUsersRequest.SortBy).
enum class UserSort { kId, kUsername, kDisplayName, kAdmin, kActive, kModifiedTime };

struct UserFilter {
  std::string name_contains;  // case-insensitive substring of the username or display name
  std::optional<bool> active;
  std::optional<bool> admin;
  UserSort sort = UserSort::kId;
  bool descending = false;
  int64_t offset = 0;  // >= 0
  int64_t limit = 0;   // 0 = all
};

struct UserPage {
  std::vector<api::User> users;
  int64_t total = 0;  // matching users before offset/limit
};

// The fields of PatchUser; unset = unchanged.
struct UserPatch {
  std::optional<std::string> username;
  std::optional<std::string> display_name;
  std::optional<bool> admin;
  std::optional<bool> active;
  // Set: replaces the stored hash (inner nullopt = no password).
  std::optional<std::optional<std::string>> password_hash;
  std::optional<std::string> agent_user_group_json;  // "" = none
};

class UserStore {
 public:
  virtual ~UserStore() = default;

  // Users and sessions.
  virtual absl::StatusOr<api::User> GetUserByName(const std::string& username) = 0;
  virtual absl::StatusOr<api::User> GetUser(int64_t id) = 0;
  // A login session (token_type USER_SESSION).
  virtual absl::Status AddSession(const std::string& token_hash, int64_t user_id, WallTime expiry) = 0;
  // The user of a login session or an access token (AccessTokenStore). NotFound when the token is
  // unknown, expired at `now` or revoked.
  virtual absl::StatusOr<int64_t> LookupSession(const std::string& token_hash, WallTime now) = 0;
  // Ends a login session; an access token is left as it is (it ends by being revoked).
  virtual absl::Status DeleteSession(const std::string& token_hash) = 0;
  // Replaces a user's stored password hash (bcrypt of the client-side form); nullopt = no password.
  virtual absl::Status SetUserPasswordHash(int64_t user_id, const std::optional<std::string>& hash) = 0;
  // Creates a user (id, modified_at assigned); AlreadyExists `user "NAME" already exists`.
  virtual absl::StatusOr<api::User> InsertUser(const api::User& user) = 0;
  // NotFound `user ID not found`; AlreadyExists when renaming onto a taken username.
  virtual absl::StatusOr<api::User> UpdateUser(int64_t id, const UserPatch& patch) = 0;
  virtual absl::StatusOr<UserPage> ListUsers(const UserFilter& filter) = 0;
  // Ends every login session of the user (deactivation, password change). Their access tokens stay
  // (an inactive user's are refused anyway; they end by being revoked).
  virtual absl::Status DeleteUserSessions(int64_t user_id) = 0;
};

}  // namespace det::master
