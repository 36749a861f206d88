#include "cli/token_ops.h"

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/format.h"
#include "cli/session.h"
#include "cli/table.h"
#include "client/rest_client.h"

namespace det::cli {
namespace {

using nlohmann::json;

// The enum value as upstream's CLI prints it: without the prefix all its values share.
std::string TokenTypeCell(const json& info) {
  std::string type = Str(info, "tokenType");
  const std::string prefix = "TOKEN_TYPE_";
  return absl::StartsWith(type, prefix) ? type.substr(prefix.size()) : type;
}

void PrintTokenInfos(const json& infos, bool as_json, std::ostream& out) {
  if (as_json) {
    out << infos.dump(2) << "\n";
    return;
  }
  Table table({"ID", "User ID", "Description", "Created At", "Expires At", "Revoked", "Token Type"});
  for (const json& t : infos) {
    table.AddRow({Cell(t.value("id", json())), Cell(t.value("userId", json())), Str(t, "description"),
                  Str(t, "createdAt"), Str(t, "expiry"), t.value("revoked", false) ? "True" : "False",
                  TokenTypeCell(t)});
  }
  out << table.Render();
}

absl::StatusOr<int64_t> UserIdByName(Session& session, const std::string& username) {
  absl::StatusOr<json> resp = session.Get(absl::StrCat("/api/v1/users/", client::UrlEncode(username), "/by-username"));
  if (!resp.ok()) return resp.status();
  json user = resp->value("user", json::object());
  if (!user.contains("id") || !user["id"].is_number_integer()) {
    return absl::NotFoundError(absl::StrCat("user '", username, "' not found or does not have an ID"));
  }
  return user["id"].get<int64_t>();
}

absl::StatusOr<int> PatchToken(Session& session, int64_t id, const json& body, const std::string& done, std::ostream& out) {
  absl::StatusOr<json> resp = session.Patch(absl::StrCat("/api/v1/tokens/", id), body);
  if (!resp.ok()) return resp.status();
  out << json{{"tokenInfo", resp->value("tokenInfo", json())}}.dump(2) << "\n" << done << "\n";
  return 0;
}

}  // namespace

absl::StatusOr<int> CreateToken(Session& session, const CreateTokenArgs& args, std::ostream& out) {
  std::string username = args.username;
  if (username.empty()) {
    if (absl::Status s = session.EnsureLoggedIn(); !s.ok()) return s;
    username = session.username();
  }
  absl::StatusOr<int64_t> user_id = UserIdByName(session, username);
  if (!user_id.ok()) return user_id.status();
  json body = {{"userId", *user_id}};
  if (args.expiration_days) {
    body["lifespan"] = *args.expiration_days == -1 ? std::string("-1") : absl::StrCat(24 * *args.expiration_days, "h");
  }
  if (args.description) body["description"] = *args.description;
  absl::StatusOr<json> resp = session.Post("/api/v1/tokens", body);
  if (!resp.ok()) return resp.status();
  if (args.json) {
    out << resp->dump(2) << "\n";
  } else {
    out << "TokenID: " << Cell(resp->value("tokenId", json())) << "\nAccess-Token: " << Str(*resp, "token") << "\n";
  }
  return 0;
}

absl::StatusOr<int> ListTokens(Session& session, const std::string& username, bool show_inactive, bool as_json,
                               std::ostream& out) {
  std::string path = absl::StrCat("/api/v1/tokens?showInactive=", show_inactive ? "true" : "false");
  if (!username.empty()) absl::StrAppend(&path, "&username=", client::UrlEncode(username));
  absl::StatusOr<json> resp = session.Get(path);
  if (!resp.ok()) return resp.status();
  PrintTokenInfos(resp->value("tokenInfo", json::array()), as_json, out);
  return 0;
}

absl::StatusOr<int> DescribeTokens(Session& session, const std::vector<int64_t>& ids, bool as_json, std::ostream& out) {
  if (ids.empty()) return absl::InvalidArgumentError("give at least one token id");
  std::string path = "/api/v1/tokens";
  for (size_t i = 0; i < ids.size(); ++i) absl::StrAppend(&path, i == 0 ? "?" : "&", "tokenIds=", ids[i]);
  absl::StatusOr<json> resp = session.Get(path);
  if (!resp.ok()) return resp.status();
  PrintTokenInfos(resp->value("tokenInfo", json::array()), as_json, out);
  return 0;
}

absl::StatusOr<int> RevokeToken(Session& session, int64_t id, std::ostream& out) {
  return PatchToken(session, id, {{"tokenId", id}, {"description", nullptr}, {"setRevoked", true}},
               absl::StrCat("Successfully revoked token ", id, "."), out);
}

absl::StatusOr<int> EditToken(Session& session, int64_t id, const std::optional<std::string>& description,
                              std::ostream& out) {
  json body = {{"tokenId", id}, {"setRevoked", false}};
  body["description"] = description && !description->empty() ? json(*description) : json(nullptr);
  return PatchToken(session, id, body, absl::StrCat("Successfully updated token with ID: ", id, "."), out);
}

absl::StatusOr<int> LoginWithToken(Session& session, const std::string& token, std::ostream& out) {
  absl::StatusOr<std::string> username = session.LoginWithToken(token);
  if (!username.ok()) return username.status();
  out << "Authenticated as " << *username << ".\n";
  return 0;
}

}  // namespace det::cli
