#include "cli/token_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/file_util.h"
#include "common/json_yaml.h"

namespace det::cli {

std::filesystem::path TokenCache::DefaultPath() {
  if (const char* p = std::getenv("DET_AUTH_FILE"); p != nullptr && *p != '\0') return p;
  const char* home = std::getenv("HOME");
  std::filesystem::path base = home != nullptr && *home != '\0' ? home : "/tmp";
  return base / ".config" / "determined-cpp" / "auth.json";
}

TokenCache TokenCache::Empty(std::filesystem::path path) { return TokenCache(std::move(path)); }

absl::StatusOr<TokenCache> TokenCache::Load(std::filesystem::path path) {
  TokenCache cache(path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return cache;
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) return cache;
  absl::StatusOr<nlohmann::json> doc = ParseJson(*text);
  if (!doc.ok() || !doc->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "token cache ", path.string(), " is not a JSON object; delete it to start over"));
  }
  for (const auto& [url, entry] : doc->items()) {
    if (!entry.is_object()) continue;
    CachedLogin login;
    if (auto it = entry.find("username"); it != entry.end() && it->is_string())
      login.username = *it;
    if (auto it = entry.find("token"); it != entry.end() && it->is_string()) login.token = *it;
    if (!login.token.empty()) cache.logins_[url] = std::move(login);
  }
  return cache;
}

std::optional<CachedLogin> TokenCache::Get(const std::string& master_url) const {
  auto it = logins_.find(master_url);
  if (it == logins_.end()) return std::nullopt;
  return it->second;
}

void TokenCache::Set(const std::string& master_url, CachedLogin login) {
  logins_[master_url] = std::move(login);
}

bool TokenCache::Erase(const std::string& master_url) { return logins_.erase(master_url) > 0; }

absl::Status TokenCache::Save() const {
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& [url, login] : logins_) {
    doc[url] = {{"username", login.username}, {"token", login.token}};
  }
  std::string text = doc.dump(2) + "\n";

  if (path_.has_parent_path()) {
    absl::Status st = MakeDirs(path_.parent_path());
    if (!st.ok()) return st;
  }
  std::filesystem::path tmp = path_;
  tmp += absl::StrCat(".tmp.", getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write token cache ", tmp.string(), ": ", std::strerror(errno)));
  }
  ::fchmod(fd, 0600);  // the file may have existed with wider permissions
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return absl::DataLossError(
          absl::StrCat("cannot write token cache ", tmp.string(), ": ", std::strerror(err)));
    }
    off += static_cast<size_t>(n);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return absl::InternalError(
        absl::StrCat("cannot replace token cache ", path_.string(), ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace det::cli
