#pragma once
// The ssh command line that reaches a shell task through the master (`det shell start|open|
// show-ssh-command`), as upstream's cli/shell.py builds it: ssh runs `det tunnel` as its
// ProxyCommand, which carries the SSH stream over a WebSocket to the master's /proxy/{shell id}/,
// and logs in with the key pair the master generated for the shell.
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/rest_client.h"
#include "common/shell_quote.h"

namespace det::cli {

// Whether ssh's arguments after the destination hold a remote command: a word that is neither an
// option nor an option's argument (per ssh's own option letters), or anything after "--".
bool SshArgsHaveCommand(const std::vector<std::string>& ssh_args);

// The `det` program ssh should run as ProxyCommand: "det" when `det` on `path` is the same file as
// `self_exe` (so the command works as printed on any machine with det), else `self_exe`.
std::string DetProgramForProxy(const std::string& path, const std::filesystem::path& self_exe);
// DetProgramForProxy for this process ($PATH, /proc/self/exe).
std::string DetProgramForProxy();

// The `det tunnel` flags that carry the master's TLS settings (upstream's tunnel takes
// --cert-file F|noverify and --cert-name N): none for the defaults. A relative CA file is made
// absolute, so that the command works from another directory.
std::vector<std::string> TunnelTlsFlags(const client::TlsOptions& tls);

struct SshInvocation {
  std::string det_program;                // DetProgramForProxy()
  std::string master_url;                 // canonical, e.g. "http://master:8080"
  std::vector<std::string> tunnel_flags;  // TunnelTlsFlags()
  std::string shell_id;
  std::string user;      // the shell's agentUserGroup.user; "" = root
  std::string key_file;  // the private key, mode 0600
  bool stdin_is_tty = false;
  std::vector<std::string> ssh_args;  // after the destination: options and/or a remote command
};

// ssh -o ProxyCommand="<det> -m <master> tunnel [tls flags] %h" -o StrictHostKeyChecking=no
//     -o UserKnownHostsFile=/dev/null [-tt] -o IdentitiesOnly=yes -i <key> <user>@<shell id>
//     [ssh_args...]
// -tt when stdin is a terminal or no remote command is given (an interactive login needs a
// terminal on the far side even when ssh's own stdin is not one). The ProxyCommand's words are
// quoted for the shell ssh runs it with, and its '%' doubled (ssh expands %-tokens there).
std::vector<std::string> SshArgv(const SshInvocation& in);

// The shell's `agentUserGroup.user`, "root" when it has none.
std::string ShellUser(const nlohmann::json& shell);

// Writes `pem` (a newline added when missing: ssh refuses a key without one) to `path` with mode
// 0600, creating its directory with mode 0700 when needed.
absl::Status WritePrivateKey(const std::filesystem::path& path, const std::string& pem);
// A new file under `dir` (mkstemp, mode 0600) holding `pem`; returns its path.
absl::StatusOr<std::filesystem::path> WriteTempPrivateKey(const std::filesystem::path& dir,
                                                          const std::string& pem);

// Runs `argv` (argv[0] looked up on $PATH) with this process's stdin, stdout and stderr, and waits
// for it; while it runs, SIGINT and SIGQUIT are left to it (ssh forwards them to the remote side).
// Returns its exit status, or 128+N when signal N killed it. NotFound when the program is missing.
absl::StatusOr<int> RunForeground(const std::vector<std::string>& argv);

}  // namespace det::cli
