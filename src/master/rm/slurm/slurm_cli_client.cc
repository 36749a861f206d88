#include "master/rm/slurm/slurm_cli_client.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "master/rm/slurm/sbatch_args.h"
#include "common/subprocess.h"
#include "master/rm/slurm/slurm_json.h"

namespace det::master::slurm {

namespace {

std::string TrimmedText(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) text.pop_back();
  if (text.size() > 2000) text.resize(2000);
  return text;
}

bool Contains(const std::string& text, const char* needle) { return text.find(needle) != std::string::npos; }

// A failed command as a Status: Slurm's refusals of the request are InvalidArgument, an unknown job
// NotFound, the controller unreachable Unavailable; the message is the command and its stderr.
absl::Status CommandError(const std::vector<std::string>& argv, const CommandResult& r) {
  const std::string err = TrimmedText(r.err.empty() ? r.out : r.err);
  const std::string message = absl::StrCat(absl::StrJoin(argv, " "),
                                           " exited with status ", r.exit_status, ": ", err);
  if (Contains(err, "Invalid job id specified")) return absl::NotFoundError(message);
  if (Contains(err, "Unable to contact slurm controller") || Contains(err, "Socket timed out") ||
      Contains(err, "Communication connection failure") || Contains(err, "Could not establish a configuration source") ||
      Contains(err, "Zero Bytes were transmitted")) {
    return absl::UnavailableError(message);
  }
  if (Contains(err, "sudo:")) return absl::PermissionDeniedError(message);
  return absl::InvalidArgumentError(message);
}

}  // namespace

std::string SlurmCliClient::Program(const std::string& name) const {
  if (options_.bin_dir.empty()) return name;
  return absl::StrCat(options_.bin_dir, "/", name);
}

absl::StatusOr<std::string> SlurmCliClient::Submit(const SubmitRequest& request) {
  absl::StatusOr<std::vector<std::string>> args = SbatchArgs(request);
  if (!args.ok()) return args.status();
  std::vector<std::string> argv;
  if (!request.run_as_user.empty()) {
    argv = {options_.sudo, "-n", "-u", request.run_as_user};
    // sudo resets the environment: the options' variables travel as "env K=V" before sbatch.
    if (!options_.env.empty()) {
      argv.push_back("env");
      for (const auto& [k, v] : options_.env) argv.push_back(absl::StrCat(k, "=", v));
    }
  }
  argv.push_back(Program("sbatch"));
  argv.insert(argv.end(), args->begin(), args->end());
  absl::StatusOr<CommandResult> r = RunCommand(argv, request.script, options_.env, options_.command_timeout);
  if (!r.ok()) return r.status();
  if (r->exit_status != 0) {
    const std::string err = TrimmedText(r->err);
    // sbatch's own lines ("sbatch: error: Batch job submission failed: ...") are the message.
    if (Contains(err, "Unable to contact slurm controller") || Contains(err, "Socket timed out")) {
      return absl::UnavailableError(err);
    }
    if (Contains(err, "sudo:")) return absl::PermissionDeniedError(err);
    return absl::InvalidArgumentError(err.empty() ? absl::StrCat("sbatch exited with status ", r->exit_status)
                                                  : err);
  }
  // --parsable: "ID" or "ID;CLUSTER", after any warnings sbatch printed on stdout.
  std::string out = TrimmedText(r->out);
  std::string last = out.substr(out.find_last_of('\n') == std::string::npos ? 0 : out.find_last_of('\n') + 1);
  std::string id = last.substr(0, last.find(';'));
  if (id.empty() || !std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return absl::InternalError(absl::StrCat("sbatch --parsable printed no job id: \"", out, "\""));
  }
  return id;
}

absl::StatusOr<std::vector<SlurmJob>> SlurmCliClient::Jobs(const std::vector<std::string>& ids) {
  // 22.05's squeue --json ignores -j (every job comes back; an unknown id is no error), so the ids
  // are filtered here; passing -j still narrows later versions' output.
  std::vector<std::string> argv = {Program("squeue"), "--json"};
  if (!ids.empty()) argv.push_back(absl::StrCat("--jobs=", absl::StrJoin(ids, ",")));
  absl::StatusOr<CommandResult> r = RunCommand(argv, "", options_.env, options_.command_timeout);
  if (!r.ok()) return r.status();
  if (r->exit_status != 0) {
    // Later versions refuse an unknown id in -j outright ("Invalid job id specified"): none known.
    if (Contains(r->err, "Invalid job id specified")) return std::vector<SlurmJob>();
    return CommandError(argv, *r);
  }
  absl::StatusOr<std::vector<SlurmJob>> jobs = ParseSqueueJson(r->out);
  if (!jobs.ok() || ids.empty()) return jobs;
  const std::set<std::string> wanted(ids.begin(), ids.end());
  std::erase_if(*jobs, [&](const SlurmJob& j) { return !wanted.count(j.id); });
  return jobs;
}

absl::Status SlurmCliClient::Signal(const std::string& id, int signal) {
  std::vector<std::string> argv = {Program("scancel"), absl::StrCat("--signal=", signal), "--full", id};
  absl::StatusOr<CommandResult> r = RunCommand(argv, "", options_.env, options_.command_timeout);
  if (!r.ok()) return r.status();
  if (r->exit_status == 0) return absl::OkStatus();
  // A pending job has no processes to signal (22.05: exit 228, "Job can not be altered now").
  if (Contains(r->err, "Job can not be altered now")) return absl::OkStatus();
  return CommandError(argv, *r);
}

absl::Status SlurmCliClient::Cancel(const std::string& id) {
  std::vector<std::string> argv = {Program("scancel"), id};
  absl::StatusOr<CommandResult> r = RunCommand(argv, "", options_.env, options_.command_timeout);
  if (!r.ok()) return r.status();
  if (r->exit_status == 0) return absl::OkStatus();
  // Already ended or forgotten: what Cancel wants.
  if (Contains(r->err, "already completing or completed") || Contains(r->err, "Invalid job id specified")) {
    return absl::OkStatus();
  }
  return CommandError(argv, *r);
}

absl::StatusOr<std::vector<SlurmNode>> SlurmCliClient::Nodes() {
  std::vector<std::string> argv = {Program("sinfo"), "--json"};
  absl::StatusOr<CommandResult> r = RunCommand(argv, "", options_.env, options_.command_timeout);
  if (!r.ok()) return r.status();
  if (r->exit_status != 0) return CommandError(argv, *r);
  return ParseSinfoJson(r->out);
}

absl::StatusOr<std::vector<SlurmPartition>> SlurmCliClient::Partitions() {
  absl::StatusOr<std::vector<SlurmNode>> nodes = Nodes();
  if (!nodes.ok()) return nodes.status();
  std::vector<std::string> argv = {Program("scontrol"), "show", "partition", "--oneliner"};
  absl::StatusOr<CommandResult> r = RunCommand(argv, "", options_.env, options_.command_timeout);
  if (!r.ok()) return r.status();
  if (r->exit_status != 0) return CommandError(argv, *r);
  return ParseScontrolPartitions(r->out, *nodes);
}

}  // namespace det::master::slurm
