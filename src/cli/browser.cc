#include "cli/browser.h"
#include "cli/env.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "cli/process_util.h"

namespace det::cli {
BrowserEnvironment BrowserEnvironment::FromProcess() {
  return {Env("BROWSER"), Env("DISPLAY"), Env("WAYLAND_DISPLAY"), Env("PATH")};
}

std::optional<std::string> FindOnPath(const std::string& name, const std::string& path) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) == 0) return name;
    return std::nullopt;
  }
  if (path.empty()) return std::nullopt;
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    std::string candidate = std::string(dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> BrowserCommand(const BrowserEnvironment& env,
                                                       const std::string& url) {
  if (env.display.empty() && env.wayland_display.empty()) return std::nullopt;
  for (absl::string_view command : absl::StrSplit(env.browser, ':', absl::SkipWhitespace())) {
    std::vector<std::string> words =
        absl::StrSplit(command, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (words.empty()) continue;
    std::optional<std::string> program = FindOnPath(words[0], env.path);
    if (!program.has_value()) continue;
    words[0] = *program;
    bool placed = false;
    for (size_t i = 1; i < words.size(); ++i) {
      if (words[i].find("%s") != std::string::npos) {
        words[i] = absl::StrReplaceAll(words[i], {{"%s", url}});
        placed = true;
      }
    }
    if (!placed) words.push_back(url);
    return words;
  }
  std::optional<std::string> xdg_open = FindOnPath("xdg-open", env.path);
  if (!xdg_open.has_value()) return std::nullopt;
  return std::vector<std::string>{*xdg_open, url};
}

absl::Status StartBrowser(const std::vector<std::string>& argv) {
  return SpawnDaemon(argv, "/dev/null").status();
}

}  // namespace det::cli
