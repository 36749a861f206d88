#pragma once
// Opening a service's URL in the user's web browser, when there is one: a graphical session
// (DISPLAY or WAYLAND_DISPLAY set) and a program to open URLs ($BROWSER, else xdg-open). Over ssh
// or in a container there is none, and the CLI only prints the URL.
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace det::cli {

// What decides which browser to use; FromProcess() reads the environment.
struct BrowserEnvironment {
  std::string browser;          // $BROWSER: commands separated by ':', "%s" stands for the URL
  std::string display;          // $DISPLAY
  std::string wayland_display;  // $WAYLAND_DISPLAY
  std::string path;             // $PATH
  static BrowserEnvironment FromProcess();
};

// The executable file `name` names: itself when it holds a '/', else the first executable
// `dir/name` of the ':'-separated `path`. nullopt when there is none.
std::optional<std::string> FindOnPath(const std::string& name, const std::string& path);

// The argv that opens `url`: the first $BROWSER command whose program exists (its words, "%s"
// replaced by the URL, or the URL appended), else xdg-open URL. nullopt without a graphical
// session or without such a program. No I/O but looking for the programs.
std::optional<std::vector<std::string>> BrowserCommand(const BrowserEnvironment& env,
                                                       const std::string& url);

// Starts `argv` (from BrowserCommand) detached, its output discarded; does not wait for it.
absl::Status StartBrowser(const std::vector<std::string>& argv);

}  // namespace det::cli
