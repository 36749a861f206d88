#pragma once
// `det token create|list|describe|revoke|edit|login`: access tokens (POST/GET/PATCH
// /api/v1/tokens), with upstream's arguments, requests and output.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::cli {

class Session;

// `det token create [USER] [-e DAYS] [-d DESC] [--json]`: the token's user is USER, else the
// logged-in one; DAYS becomes the lifespan "<24*DAYS>h" (-1: "-1", the longest the master allows;
// none: the master's default). Prints "TokenID: N" and "Access-Token: T" (or the reply as JSON).
struct CreateTokenArgs {
  std::string username;  // "" = the logged-in user
  std::optional<int> expiration_days;
  std::optional<std::string> description;
  bool json = false;
};
absl::StatusOr<int> CreateToken(Session& session, const CreateTokenArgs& args, std::ostream& out);

// `det token list [USER] [--show-inactive] [--json]`: table columns ID, User ID, Description,
// Created At, Expires At, Revoked, Token Type.
absl::StatusOr<int> ListTokens(Session& session, const std::string& username, bool show_inactive, bool json,
                               std::ostream& out);

// `det token describe ID... [--json]`: the active tokens among IDs, as `list` shows them.
absl::StatusOr<int> DescribeTokens(Session& session, const std::vector<int64_t>& ids, bool json, std::ostream& out);

// `det token revoke ID`: PATCH {setRevoked: true}; prints the token's info and a confirmation.
absl::StatusOr<int> RevokeToken(Session& session, int64_t id, std::ostream& out);

// `det token edit ID -d DESC`: PATCH {description, setRevoked: false}.
absl::StatusOr<int> EditToken(Session& session, int64_t id, const std::optional<std::string>& description,
                              std::ostream& out);

// `det token login TOKEN`: "Authenticated as NAME." once the master accepted it (Session::LoginWithToken).
absl::StatusOr<int> LoginWithToken(Session& session, const std::string& token, std::ostream& out);

}  // namespace det::cli
