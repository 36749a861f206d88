#pragma once
// `det notebook start|open`, `det tensorboard start|open` and `det shell start|open|
// show-ssh-command`: launching an interactive task, waiting until its service is ready
// (service_wait.h), then opening it: a notebook or TensorBoard in the browser at
// `<master><serviceAddress>`, a shell with ssh through `det tunnel` (ssh_command.h).
//
// Output: the URL (notebook, TensorBoard), the id (with -d), the resolved config (--preview) or the
// ssh command (show-ssh-command) go to `out`, alone, so scripts can read them; progress and
// warnings go to `err`. Each function returns the process exit code (1 when the task ended before
// it was ready; ssh's status for shells), or an error for main() to print as "Error: <message>".
#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/ntsc_ops.h"
#include "cli/service_wait.h"
#include "client/rest_client.h"

namespace det::cli {

class Session;

// What the interactive commands take from the machine they run on; FromProcess() is the real one,
// tests replace the parts that would open a browser or run ssh.
struct InteractiveEnvironment {
  ServiceWaitOptions wait;
  // Opens `url` in a browser; false when there is no browser to open (then only the URL is shown).
  std::function<bool(const std::string& url)> open_browser;
  // Runs ssh (argv from SshArgv) in the foreground; returns its exit status.
  std::function<absl::StatusOr<int>(const std::vector<std::string>& argv)> run_ssh;
  bool stdin_is_tty = false;
  std::string det_program = "det";  // DetProgramForProxy()
  client::TlsOptions tls;           // the master's TLS settings, passed on to `det tunnel`
  std::filesystem::path temp_dir;   // where start/open put the shell's key for one ssh run
  std::filesystem::path cache_dir;  // where show-ssh-command keeps keys: <cache_dir>/shell/<id>/key

  // $BROWSER/xdg-open when a display is set, ssh on $PATH, /proc/self/exe, DET_MASTER_CERT_*,
  // $TMPDIR (else /tmp) and $XDG_CACHE_HOME/determined (else ~/.cache/determined).
  static InteractiveEnvironment FromProcess();
};

struct StartNotebookArgs : LaunchArgs {
  bool no_browser = false;  // --no-browser
  bool preview = false;     // --preview: print the resolved config, start nothing
};
struct StartTensorboardArgs : LaunchArgs {
  std::vector<int> experiment_ids;  // positional
  std::vector<int> trial_ids;       // -t/--trial-ids
  bool no_browser = false;
};
struct StartShellArgs : LaunchArgs {
  std::vector<std::string> ssh_args;  // after `--`: ssh options and/or a remote command
  bool show_ssh_command = false;      // print the ssh command instead of running it
};

// The launch bodies (BuildLaunchRequest, plus `preview` for notebooks and `experimentIds`/
// `trialIds` for TensorBoards; InvalidArgument when a TensorBoard has neither). No network.
absl::StatusOr<nlohmann::json> BuildNotebookRequest(const StartNotebookArgs& args,
                                                    std::vector<std::string>* warnings);
absl::StatusOr<nlohmann::json> BuildTensorboardRequest(const StartTensorboardArgs& args,
                                                       std::vector<std::string>* warnings);
absl::StatusOr<nlohmann::json> BuildShellRequest(const StartShellArgs& args,
                                                 std::vector<std::string>* warnings);

// Where a notebook's or TensorBoard's service is: `master_url` + the object's `serviceAddress`
// (a notebook's holds its `?token=`), else `master_url`/proxy/<id>/. An absolute address is
// returned as is.
std::string ServiceUrl(const std::string& master_url, const nlohmann::json& object);

// POST /api/v1/notebooks. --preview: prints the config the master resolved (YAML) and returns.
// -d: prints the id. Else says "Scheduling notebook ID (description)..." on `err`, waits for the
// service, prints its URL and opens it in the browser unless `no_browser`.
absl::StatusOr<int> StartNotebook(Session& session, const StartNotebookArgs& args,
                                  const InteractiveEnvironment& env, std::ostream& out,
                                  std::ostream& err);
// The same for POST /api/v1/tensorboards.
absl::StatusOr<int> StartTensorboard(Session& session, const StartTensorboardArgs& args,
                                     const InteractiveEnvironment& env, std::ostream& out,
                                     std::ostream& err);
// `det notebook|tensorboard open ID`: waits for the service if it is not ready yet, prints its URL
// and opens it unless `no_browser`.
absl::StatusOr<int> OpenService(Session& session, const TaskListing& kind,
                                const std::string& id_or_prefix, bool no_browser,
                                const InteractiveEnvironment& env, std::ostream& out,
                                std::ostream& err);

// POST /api/v1/shells; -d prints the id. Else waits for sshd, then runs ssh (the private key in a
// temporary 0600 file, removed afterwards) and returns its status; with `show_ssh_command` prints
// the command instead (as ShowSshCommand).
absl::StatusOr<int> StartShell(Session& session, const StartShellArgs& args,
                               const InteractiveEnvironment& env, std::ostream& out,
                               std::ostream& err);
// `det shell open ID [-- SSH_ARGS]`: as StartShell for an existing shell.
absl::StatusOr<int> OpenShell(Session& session, const std::string& id_or_prefix,
                              const std::vector<std::string>& ssh_args,
                              const InteractiveEnvironment& env, std::ostream& out,
                              std::ostream& err);
// `det shell show-ssh-command ID`: writes the key to <cache_dir>/shell/<id>/key and prints the ssh
// command, quoted so that it runs as printed when pasted into sh.
absl::StatusOr<int> ShowSshCommand(Session& session, const std::string& id_or_prefix,
                                   const std::vector<std::string>& ssh_args,
                                   const InteractiveEnvironment& env, std::ostream& out,
                                   std::ostream& err);

}  // namespace det::cli
