#include "cli/command_context.h"
#include "cli/env.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "cli/prompt.h"
#include "cli/token_cache.h"

namespace det::cli {
std::string CommandContext::MasterUrl() const {
  std::string url = flags.master;
  if (url.empty()) url = Env("DET_MASTER");
  if (url.empty()) url = "http://localhost:8080";
  return CanonicalMasterUrl(url);
}

std::string CommandContext::User() const {
  return flags.user.empty() ? Env("DET_USER") : flags.user;
}

Session& CommandContext::session() {
  if (session_ == nullptr) {
    SessionOptions options;
    options.master_url = MasterUrl();
    options.user = User();
    if (const char* pw = std::getenv("DET_PASS"); pw != nullptr) options.password = pw;
    options.auth_file = TokenCache::DefaultPath();
    if (std::string token = Env("DET_USER_TOKEN"); !token.empty() && !Env("DET_USER").empty()) {
      options.task_login = CachedLogin{Env("DET_USER"), std::move(token)};
    }
    if (StdinIsTerminal()) {
      options.ask_password = [](const std::string& username) {
        return ReadPassword(absl::StrCat("Password for user '", username, "': "));
      };
    }
    session_ = std::make_unique<Session>(std::move(options));
  }
  return *session_;
}

}  // namespace det::cli
