#pragma once
// What every command shares: the global flags and a lazily opened Session to the master.
// The CLI11 layer fills `flags` and `action`; main() runs the action after parsing.
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cli/session.h"

namespace det::cli {

struct GlobalFlags {
  std::string master;  // -m/--master; "" = $DET_MASTER, else http://localhost:8080
  std::string user;    // -u/--user; "" = $DET_USER
};

class CommandContext {
 public:
  GlobalFlags flags;
  // The selected command; returns the process exit code, or an error to print as "Error: ...".
  std::function<absl::StatusOr<int>()> action;

  // The canonical master URL from the flag, $DET_MASTER or the default.
  std::string MasterUrl() const;
  // The wanted user from the flag or $DET_USER ("" when neither is set).
  std::string User() const;
  // Opened on first use (no network traffic until a call is made).
  Session& session();

 private:
  std::unique_ptr<Session> session_;
};

}  // namespace det::cli
