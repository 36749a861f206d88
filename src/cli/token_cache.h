#pragma once
// The CLI's token cache: one JSON file mapping each master URL to the user logged in there and that
// user's session token:
//
//   {"http://127.0.0.1:8080": {"username": "determined", "token": "v2.public...."}}
//
// The file lives at $DET_AUTH_FILE, else ~/.config/determined-cpp/auth.json, and is written with
// mode 0600 (it holds credentials), atomically (temp file + rename), so concurrent `det` runs never
// see a torn file. Not thread-safe; one TokenCache per process.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::cli {

struct CachedLogin {
  std::string username;
  std::string token;
};

class TokenCache {
 public:
  // $DET_AUTH_FILE, else $HOME/.config/determined-cpp/auth.json.
  static std::filesystem::path DefaultPath();

  // A missing file is an empty cache; an unreadable or malformed one is an error.
  static absl::StatusOr<TokenCache> Load(std::filesystem::path path);
  // An empty cache that will be saved to `path`.
  static TokenCache Empty(std::filesystem::path path);

  std::optional<CachedLogin> Get(const std::string& master_url) const;
  void Set(const std::string& master_url, CachedLogin login);
  // Returns whether there was an entry.
  bool Erase(const std::string& master_url);

  // Creates the parent directory if needed.
  absl::Status Save() const;

  const std::filesystem::path& path() const { return path_; }

 private:
  explicit TokenCache(std::filesystem::path path) : path_(std::move(path)) {}

  std::filesystem::path path_;
  std::map<std::string, CachedLogin> logins_;
};

}  // namespace det::cli
