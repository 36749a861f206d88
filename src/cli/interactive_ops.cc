#include "cli/interactive_ops.h"
#include "cli/env.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/browser.h"
#include "cli/experiment_create.h"
#include "cli/experiment_view.h"
#include "cli/format.h"
#include "cli/prompt.h"
#include "cli/session.h"
#include "cli/ssh_command.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// POSTs the launch body; returns the new task's object after printing the launch warnings.
absl::StatusOr<json> Launch(Session& session, const TaskListing& kind, const json& body,
                            std::ostream& err) {
  ASSIGN_OR_RETURN(json resp, session.Post(kind.path, body));
  json object = Field(resp, kind.noun.c_str());
  if (Str(object, "id").empty()) {
    return absl::InternalError(
        absl::StrCat("the master launched the ", kind.noun, " but did not return its id"));
  }
  PrintLaunchWarnings(resp, err);
  return object;
}

// Launches; then -d prints the id, else it says what is being scheduled and waits for the service.
// nullopt with `*code` set when the command is done (detached, or the task ended).
absl::StatusOr<std::optional<json>> LaunchAndWait(Session& session, const TaskListing& kind,
                                                  const json& body, bool detach,
                                                  const InteractiveEnvironment& env,
                                                  std::ostream& out, std::ostream& err, int* code) {
  ASSIGN_OR_RETURN(json launched, Launch(session, kind, body, err));
  std::string id = Str(launched, "id");
  if (detach) {
    out << id << "\n";
    *code = 0;
    return std::nullopt;
  }
  err << "Scheduling " << kind.noun << " " << id << " (" << Str(launched, "description")
      << ")...\n";
  err.flush();
  ASSIGN_OR_RETURN(ServiceWait wait, WaitForService(session, kind, id, env.wait, err));
  if (!wait.ready) {
    *code = 1;
    return std::nullopt;
  }
  return std::move(wait.object);
}

int ShowUrl(const std::string& url, bool no_browser, const InteractiveEnvironment& env,
            std::ostream& out) {
  out << url << "\n";
  out.flush();
  if (!no_browser && env.open_browser) env.open_browser(url);
  return 0;
}

absl::StatusOr<int> ConnectShell(Session& session, const json& shell,
                                 const std::vector<std::string>& ssh_args, bool show,
                                 const InteractiveEnvironment& env, std::ostream& out) {
  std::string id = Str(shell, "id");
  std::string pem = Str(shell, "privateKey");
  if (pem.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the master sent no private key for shell ", id));
  }
  SshInvocation in;
  in.det_program = env.det_program;
  in.master_url = session.master_url();
  in.tunnel_flags = TunnelTlsFlags(env.tls);
  in.shell_id = id;
  in.user = ShellUser(shell);
  in.stdin_is_tty = env.stdin_is_tty;
  in.ssh_args = ssh_args;
  if (show) {
    fs::path key = env.cache_dir / "shell" / id / "key";
    RETURN_IF_ERROR(WritePrivateKey(key, pem));
    in.key_file = key.string();
    out << ShellJoin(SshArgv(in)) << "\n";
    return 0;
  }
  if (!env.run_ssh) return absl::InternalError("no way to run ssh");
  ASSIGN_OR_RETURN(fs::path key, WriteTempPrivateKey(env.temp_dir, pem));
  in.key_file = key.string();
  out.flush();
  absl::StatusOr<int> code = env.run_ssh(SshArgv(in));
  std::error_code ec;
  fs::remove(key, ec);
  return code;
}

// The shell's object once sshd is ready; nullopt with `*code` set when it ended first.
absl::StatusOr<std::optional<json>> ReadyShell(Session& session, const std::string& id_or_prefix,
                                               const InteractiveEnvironment& env, std::ostream& err,
                                               int* code) {
  ASSIGN_OR_RETURN(std::string id, ResolveTaskId(session, kShellListing, id_or_prefix));
  ASSIGN_OR_RETURN(ServiceWait wait, WaitForService(session, kShellListing, id, env.wait, err));
  if (!wait.ready) {
    *code = 1;
    return std::nullopt;
  }
  return std::move(wait.object);
}

}  // namespace

InteractiveEnvironment InteractiveEnvironment::FromProcess() {
  InteractiveEnvironment env;
  env.open_browser = [](const std::string& url) {
    std::optional<std::vector<std::string>> argv =
        BrowserCommand(BrowserEnvironment::FromProcess(), url);
    return argv.has_value() && StartBrowser(*argv).ok();
  };
  env.run_ssh = RunForeground;
  env.stdin_is_tty = StdinIsTerminal();
  env.det_program = DetProgramForProxy();
  env.tls = client::TlsOptions::FromEnvironment();
  std::string tmp = Env("TMPDIR");
  env.temp_dir = tmp.empty() ? fs::path("/tmp") : fs::path(tmp);
  std::string cache = Env("XDG_CACHE_HOME");
  if (cache.empty()) {
    std::string home = Env("HOME");
    cache = home.empty() ? env.temp_dir.string() : (fs::path(home) / ".cache").string();
  }
  env.cache_dir = fs::path(cache) / "determined";
  return env;
}

absl::StatusOr<json> BuildNotebookRequest(const StartNotebookArgs& args,
                                          std::vector<std::string>* warnings) {
  ASSIGN_OR_RETURN(json body, BuildLaunchRequest(args, nullptr, warnings));
  if (args.preview) body["preview"] = true;
  return body;
}

absl::StatusOr<json> BuildTensorboardRequest(const StartTensorboardArgs& args,
                                             std::vector<std::string>* warnings) {
  if (args.experiment_ids.empty() && args.trial_ids.empty()) {
    return absl::InvalidArgumentError(
        "det tensorboard start: give the experiments (EXPERIMENT_ID...) or trials (-t TRIAL_ID...) "
        "whose metrics to show");
  }
  ASSIGN_OR_RETURN(json body, BuildLaunchRequest(args, nullptr, warnings));
  body["experimentIds"] = args.experiment_ids;
  body["trialIds"] = args.trial_ids;
  return body;
}

absl::StatusOr<json> BuildShellRequest(const StartShellArgs& args,
                                       std::vector<std::string>* warnings) {
  return BuildLaunchRequest(args, nullptr, warnings);
}

std::string ServiceUrl(const std::string& master_url, const json& object) {
  std::string address = Str(object, "serviceAddress");
  if (absl::StartsWith(address, "http://") || absl::StartsWith(address, "https://")) {
    return address;
  }
  if (address.empty()) address = absl::StrCat("/proxy/", Str(object, "id"), "/");
  std::string base = master_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (address.front() != '/') address = absl::StrCat("/", address);
  return base + address;
}

absl::StatusOr<int> StartNotebook(Session& session, const StartNotebookArgs& args,
                                  const InteractiveEnvironment& env, std::ostream& out,
                                  std::ostream& err) {
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(json body, BuildNotebookRequest(args, &warnings));
  RETURN_IF_ERROR(PlaceInWorkspace(session, args, body));
  for (const std::string& w : warnings) err << w << "\n";
  if (args.preview) {
    ASSIGN_OR_RETURN(json resp, session.Post(kNotebookListing.path, body));
    const json& config = Field(resp, "config");
    out << ToYaml(config.is_null() ? json::object() : config);
    return 0;
  }
  int code = 0;
  ASSIGN_OR_RETURN(std::optional<json> ready,
                   LaunchAndWait(session, kNotebookListing, body, args.detach, env, out, err, &code));
  if (!ready.has_value()) return code;
  return ShowUrl(ServiceUrl(session.master_url(), *ready), args.no_browser, env, out);
}

absl::StatusOr<int> StartTensorboard(Session& session, const StartTensorboardArgs& args,
                                     const InteractiveEnvironment& env, std::ostream& out,
                                     std::ostream& err) {
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(json body, BuildTensorboardRequest(args, &warnings));
  RETURN_IF_ERROR(PlaceInWorkspace(session, args, body));
  for (const std::string& w : warnings) err << w << "\n";
  int code = 0;
  ASSIGN_OR_RETURN(std::optional<json> ready,
                   LaunchAndWait(session, kTensorboardListing, body, args.detach, env, out, err, &code));
  if (!ready.has_value()) return code;
  return ShowUrl(ServiceUrl(session.master_url(), *ready), args.no_browser, env, out);
}

absl::StatusOr<int> OpenService(Session& session, const TaskListing& kind,
                                const std::string& id_or_prefix, bool no_browser,
                                const InteractiveEnvironment& env, std::ostream& out,
                                std::ostream& err) {
  ASSIGN_OR_RETURN(std::string id, ResolveTaskId(session, kind, id_or_prefix));
  ASSIGN_OR_RETURN(ServiceWait wait, WaitForService(session, kind, id, env.wait, err));
  if (!wait.ready) return 1;
  return ShowUrl(ServiceUrl(session.master_url(), wait.object), no_browser, env, out);
}

absl::StatusOr<int> StartShell(Session& session, const StartShellArgs& args,
                               const InteractiveEnvironment& env, std::ostream& out,
                               std::ostream& err) {
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(json body, BuildShellRequest(args, &warnings));
  RETURN_IF_ERROR(PlaceInWorkspace(session, args, body));
  for (const std::string& w : warnings) err << w << "\n";
  int code = 0;
  ASSIGN_OR_RETURN(std::optional<json> ready,
                   LaunchAndWait(session, kShellListing, body, args.detach, env, out, err, &code));
  if (!ready.has_value()) return code;
  return ConnectShell(session, *ready, args.ssh_args, args.show_ssh_command, env, out);
}

absl::StatusOr<int> OpenShell(Session& session, const std::string& id_or_prefix,
                              const std::vector<std::string>& ssh_args,
                              const InteractiveEnvironment& env, std::ostream& out,
                              std::ostream& err) {
  int code = 0;
  ASSIGN_OR_RETURN(std::optional<json> ready, ReadyShell(session, id_or_prefix, env, err, &code));
  if (!ready.has_value()) return code;
  return ConnectShell(session, *ready, ssh_args, /*show=*/false, env, out);
}

absl::StatusOr<int> ShowSshCommand(Session& session, const std::string& id_or_prefix,
                                   const std::vector<std::string>& ssh_args,
                                   const InteractiveEnvironment& env, std::ostream& out,
                                   std::ostream& err) {
  int code = 0;
  ASSIGN_OR_RETURN(std::optional<json> ready, ReadyShell(session, id_or_prefix, env, err, &code));
  if (!ready.has_value()) return code;
  return ConnectShell(session, *ready, ssh_args, /*show=*/true, env, out);
}

}  // namespace det::cli
