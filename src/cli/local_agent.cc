#include "cli/local_agent.h"

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/process_util.h"
#include "common/file_util.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kConnected[] = "connected to the master";

fs::path RecordDir(const fs::path& data_dir) { return data_dir / "agents"; }
fs::path RecordOf(const fs::path& data_dir, const std::string& name) {
  return RecordDir(data_dir) / (name + ".json");
}

// The recorded agent's pid while it still runs, else 0.
pid_t RunningPid(const fs::path& record) {
  absl::StatusOr<std::string> text = ReadFile(record);
  if (!text.ok()) return 0;
  json doc = json::parse(*text, nullptr, false);
  pid_t pid = doc.is_object() ? doc.value("pid", 0) : 0;
  return pid > 0 && ProcessCommandContains(pid, kAgentBinary) ? pid : 0;
}

}  // namespace

std::string AgentMasterUrl(const std::string& host, int port) {
  if (absl::StartsWith(host, "http://") || absl::StartsWith(host, "https://")) {
    const size_t authority = host.find("://") + 3;
    if (host.find(':', authority) != std::string::npos) return host;  // the URL's own port
    return absl::StrCat(host, ":", port);
  }
  return absl::StrCat("http://", host, ":", port);
}

absl::StatusOr<int> AgentUp(const AgentUpOptions& options, std::ostream& out) {
  if (options.name.empty() || options.name.find('/') != std::string::npos) {
    return absl::InvalidArgumentError("--agent-name must be a non-empty name without '/'");
  }
  if (options.slots < 0) return absl::InvalidArgumentError("--slots must be >= 0");
  const fs::path record = RecordOf(options.data_dir, options.name);
  if (pid_t pid = RunningPid(record); pid != 0) {
    return absl::AlreadyExistsError(absl::StrCat("agent ", options.name, " is already running (pid ", pid,
                                                 "); stop it first with: det deploy local agent-down --agent-name ",
                                                 options.name, " --data-dir ", options.data_dir.string()));
  }
  const fs::path agent_bin = options.bin_dir / kAgentBinary;
  if (::access(agent_bin.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot find ", agent_bin.string(),
                                            "; det starts the agent from the directory it lives in"));
  }
  const fs::path work = options.data_dir / options.name;
  RETURN_IF_ERROR(MakeDirs(work));
  RETURN_IF_ERROR(MakeDirs(RecordDir(options.data_dir)));
  const std::string url = AgentMasterUrl(options.master_host, options.master_port);
  std::vector<std::string> args = {agent_bin.string(), "--master-url", url,           "--id",
                                   options.name,       "--slots",      std::to_string(options.slots),
                                   "--work-dir",       work.string()};
  if (!options.resource_pool.empty()) args.insert(args.end(), {"--resource-pool", options.resource_pool});
  if (!options.master_cert.empty()) {
    args.insert(args.end(), {"--security-tls-master-cert", fs::absolute(options.master_cert).string()});
  }
  const fs::path log = options.data_dir / (options.name + ".log");
  const uintmax_t log_start = fs::exists(log) ? fs::file_size(log) : 0;  // this run's lines only
  ASSIGN_OR_RETURN(pid_t pid, SpawnDaemon(args, log));

  auto fail = [&](const std::string& why) -> absl::Status {
    SignalAndWait({pid}, SIGKILL, std::chrono::seconds(2));
    std::cerr << "--- last lines of " << log.string() << " ---\n" << TailOfFile(log, 20) << "\n";
    return absl::UnavailableError(why);
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
  while (true) {
    if (std::optional<std::string> how = ReapIfExited(pid)) return fail(absl::StrCat("the agent ", *how));
    absl::StatusOr<std::string> text = ReadFile(log);
    if (text.ok() && text->find(kConnected, std::min<size_t>(log_start, text->size())) != std::string::npos) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      return fail(absl::StrCat("agent ", options.name, " did not connect to the master at ", url, " within ",
                               options.timeout_seconds, " s"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  json doc = {{"name", options.name}, {"pid", pid}, {"master_url", url}};
  RETURN_IF_ERROR(WriteFile(record, doc.dump(2) + "\n"));
  out << "Agent " << options.name << " (" << options.slots << " slot" << (options.slots == 1 ? "" : "s")
      << ") connected to " << url << "\n";
  out << "Log: " << log.string() << "\n";
  out << "Stop it with: det deploy local agent-down --agent-name " << options.name << " --data-dir "
      << options.data_dir.string() << "\n";
  return 0;
}

absl::StatusOr<int> AgentDown(const fs::path& data_dir, const std::string& name, std::ostream& out) {
  std::vector<fs::path> records;
  if (!name.empty()) {
    if (!fs::exists(RecordOf(data_dir, name))) {
      return absl::NotFoundError(absl::StrCat("no agent named ", name, " was started in ", data_dir.string()));
    }
    records.push_back(RecordOf(data_dir, name));
  } else {
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(RecordDir(data_dir), ec)) {
      if (e.path().extension() == ".json") records.push_back(e.path());
    }
  }
  for (const fs::path& record : records) {
    if (pid_t pid = RunningPid(record); pid != 0) {
      std::vector<pid_t> left = SignalAndWait({pid}, SIGTERM, std::chrono::seconds(5));
      SignalAndWait(left, SIGKILL, std::chrono::seconds(2));
      out << "Stopped agent " << record.stem().string() << "\n";
    }
    std::error_code ec;
    fs::remove(record, ec);
  }
  return 0;
}

}  // namespace det::cli
