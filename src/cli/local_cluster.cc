#include "cli/local_cluster.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "api/wire.h"
#include "cli/local_agent.h"
#include "cli/process_util.h"
#include "client/rest_client.h"
#include "common/crypto.h"
#include "common/file_util.h"
#include "common/local_postgres.h"
#include "common/json_yaml.h"

namespace det::cli {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr char kRecordFile[] = "cluster.json";
constexpr char kPortFile[] = "master.port";
constexpr char kMasterBinary[] = "determined-master";

// A started process, for cleanup and error reports.
struct Started {
  std::string name;  // "master", "agent-0"
  pid_t pid;
  fs::path log;
};

bool RecordedClusterRuns(const ClusterRecord& r) {
  if (ProcessCommandContains(r.master_pid, kMasterBinary)) return true;
  for (pid_t pid : r.agent_pids) {
    if (ProcessCommandContains(pid, kAgentBinary)) return true;
  }
  return false;
}

void StopStarted(const std::vector<Started>& started) {
  std::vector<pid_t> agents, master;
  for (const Started& s : started) (s.name == "master" ? master : agents).push_back(s.pid);
  std::vector<pid_t> left = SignalAndWait(agents, SIGTERM, std::chrono::seconds(5));
  SignalAndWait(left, SIGKILL, std::chrono::seconds(2));
  left = SignalAndWait(master, SIGTERM, std::chrono::seconds(5));
  SignalAndWait(left, SIGKILL, std::chrono::seconds(2));
}

void PrintLogTails(const std::vector<Started>& started) {
  for (const Started& s : started) {
    std::string tail = TailOfFile(s.log, 20);
    std::cerr << "--- last lines of " << s.log.string() << " ---\n" << tail;
    if (!tail.empty() && tail.back() != '\n') std::cerr << "\n";
  }
}

// Fails the bring-up: stops everything, shows the logs, and returns `error`.
// Stops what was started (the cluster's own PostgreSQL, in `postgres_dir`, last) and prints the
// logs' tails.
absl::Status Abort(const std::vector<Started>& started, const std::string& postgres_dir, absl::Status error) {
  StopStarted(started);
  PrintLogTails(started);
  if (!postgres_dir.empty()) (void)StopLocalPostgres(postgres_dir);
  return error;
}

// If any started process has died, the reason.
std::optional<std::string> AnyExited(const std::vector<Started>& started) {
  for (const Started& s : started) {
    if (std::optional<std::string> how = ReapIfExited(s.pid)) {
      return absl::StrCat(s.name, " (pid ", s.pid, ") ", *how);
    }
  }
  return std::nullopt;
}

// Counts the agents the master lists, logging in first if needed. Errors mean "not yet".
absl::StatusOr<int> CountAgents(client::RestClient& client, const ClusterUpOptions& options,
                                bool* logged_in) {
  if (!*logged_in) {
    json body = {{"username", options.username},
                 {"password", ClientSidePasswordHash(options.password)},
                 {"isHashed", true}};
    absl::StatusOr<json> resp = client.Post("/api/v1/auth/login", body);
    if (absl::IsUnauthenticated(resp.status()) || absl::IsPermissionDenied(resp.status())) {
      // The master is up and refuses these credentials: waiting will not help.
      return absl::PermissionDeniedError(
          absl::StrCat("cannot log in to the new master as '", options.username,
                       "': ", resp.status().message(), " (set DET_USER and DET_PASS)"));
    }
    if (!resp.ok()) return resp.status();
    client.set_user_token(resp->value("token", std::string()));
    *logged_in = true;
  }
  absl::StatusOr<json> resp = client.Get("/api/v1/agents");
  if (!resp.ok()) {
    if (absl::IsUnauthenticated(resp.status())) *logged_in = false;
    return resp.status();
  }
  auto it = resp->find("agents");
  return it != resp->end() && it->is_array() ? static_cast<int>(it->size()) : 0;
}

}  // namespace

json ClusterRecordToJson(const ClusterRecord& r) {
  json pids = json::array();
  for (pid_t p : r.agent_pids) pids.push_back(p);
  json doc = {{"master_url", r.master_url}, {"master_pid", r.master_pid}, {"agent_pids", pids}};
  if (!r.postgres_dir.empty()) doc["postgres_dir"] = r.postgres_dir;
  if (!r.master_db_flags.empty()) doc["master_db_flags"] = r.master_db_flags;
  return doc;
}

absl::StatusOr<ClusterRecord> ClusterRecordFromJson(const json& doc) {
  if (!doc.is_object()) return absl::InvalidArgumentError("cluster record is not a JSON object");
  ClusterRecord r;
  if (auto it = doc.find("master_url"); it != doc.end() && it->is_string()) r.master_url = *it;
  if (auto it = doc.find("master_pid"); it != doc.end()) {
    absl::StatusOr<int64_t> pid = api::ReadInt64(*it, "master_pid");
    if (!pid.ok()) return pid.status();
    r.master_pid = static_cast<pid_t>(*pid);
  }
  if (auto it = doc.find("postgres_dir"); it != doc.end() && it->is_string()) r.postgres_dir = *it;
  if (auto it = doc.find("master_db_flags"); it != doc.end() && it->is_array()) {
    for (const json& f : *it) {
      if (f.is_string()) r.master_db_flags.push_back(f);
    }
  }
  if (auto it = doc.find("agent_pids"); it != doc.end() && it->is_array()) {
    for (const json& p : *it) {
      absl::StatusOr<int64_t> pid = api::ReadInt64(p, "agent_pids[]");
      if (!pid.ok()) return pid.status();
      r.agent_pids.push_back(static_cast<pid_t>(*pid));
    }
  }
  return r;
}

absl::StatusOr<std::optional<ClusterRecord>> ReadClusterRecord(const fs::path& data_dir) {
  fs::path file = data_dir / kRecordFile;
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<ClusterRecord>();
  absl::StatusOr<std::string> text = ReadFile(file);
  if (!text.ok()) return text.status();
  absl::StatusOr<json> doc = ParseJson(*text);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(file.string(), ": ", doc.status().message()));
  }
  absl::StatusOr<ClusterRecord> r = ClusterRecordFromJson(*doc);
  if (!r.ok())
    return absl::InvalidArgumentError(absl::StrCat(file.string(), ": ", r.status().message()));
  return std::optional<ClusterRecord>(std::move(*r));
}

fs::path DefaultLocalDataDir() {
  if (const char* d = std::getenv("DET_LOCAL_DATA_DIR"); d != nullptr && *d != '\0') return d;
  const char* home = std::getenv("HOME");
  fs::path base = home != nullptr && *home != '\0' ? home : "/tmp";
  return base / ".local" / "share" / "determined-cpp" / "local";
}

absl::StatusOr<std::vector<std::string>> PostgresUrlFlags(const std::string& url) {
  std::string rest = url;
  for (const char* scheme : {"postgres://", "postgresql://"}) {
    if (absl::StartsWith(rest, scheme)) rest = rest.substr(std::string(scheme).size());
  }
  if (rest == url) {
    return absl::InvalidArgumentError(
        absl::StrCat("--db ", url, ": expected postgres, or postgres://USER[:PASSWORD]@HOST[:PORT]/NAME"));
  }
  std::vector<std::string> flags;
  std::string query;
  if (size_t q = rest.find('?'); q != std::string::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  size_t slash = rest.find('/');
  std::string name = slash == std::string::npos ? "" : rest.substr(slash + 1);
  std::string authority = rest.substr(0, slash);
  if (size_t at = authority.rfind('@'); at != std::string::npos) {
    std::string user = authority.substr(0, at);
    authority = authority.substr(at + 1);
    if (size_t colon = user.find(':'); colon != std::string::npos) {
      flags.insert(flags.end(), {"--db-password", user.substr(colon + 1)});
      user = user.substr(0, colon);
    }
    if (!user.empty()) flags.insert(flags.end(), {"--db-user", user});
  }
  std::string host = authority;
  if (size_t colon = authority.rfind(':'); colon != std::string::npos && authority.find(']') == std::string::npos) {
    host = authority.substr(0, colon);
    flags.insert(flags.end(), {"--db-port", authority.substr(colon + 1)});
  }
  if (host.empty() || name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--db ", url, ": needs a host and a database name (postgres://USER@HOST/NAME)"));
  }
  flags.insert(flags.end(), {"--db-host", host, "--db-name", name});
  for (absl::string_view kv : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    if (p.first == "sslmode") flags.insert(flags.end(), {"--db-ssl-mode", p.second});
    if (p.first == "sslrootcert") flags.insert(flags.end(), {"--db-ssl-root-cert", p.second});
  }
  return flags;
}

absl::StatusOr<int> ClusterUp(const ClusterUpOptions& options, std::ostream& out) {
  if (options.agents < 0) return absl::InvalidArgumentError("--agents must be >= 0");
  if (options.slots < 0) return absl::InvalidArgumentError("--slots must be >= 0");
  if (options.master_port < 0 || options.master_port > 65535) {
    return absl::InvalidArgumentError("--master-port must be between 0 and 65535");
  }
  if (options.master_cert.empty() != options.master_key.empty()) {
    return absl::InvalidArgumentError("--master-cert and --master-key must be given together");
  }
  const bool tls = !options.master_cert.empty();
  fs::path cert, key;
  if (tls) {
    std::error_code abs_ec;
    cert = fs::absolute(options.master_cert, abs_ec);
    key = fs::absolute(options.master_key, abs_ec);
    for (const auto& [flag, file] :
         {std::pair{"--master-cert", cert}, std::pair{"--master-key", key}}) {
      if (!fs::is_regular_file(file, abs_ec)) {
        return absl::InvalidArgumentError(absl::StrCat(flag, " ", file.string(), ": no such file"));
      }
    }
  }
  fs::path master_config;
  if (!options.master_config.empty()) {
    std::error_code abs_ec;
    master_config = fs::absolute(options.master_config, abs_ec);
    if (!fs::is_regular_file(master_config, abs_ec)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--master-config-path ", master_config.string(), ": no such file"));
    }
  }
  const fs::path& dir = options.data_dir;
  if (absl::Status s = MakeDirs(dir); !s.ok()) return s;

  absl::StatusOr<std::optional<ClusterRecord>> existing = ReadClusterRecord(dir);
  if (existing.ok() && existing->has_value()) {
    const ClusterRecord& r = **existing;
    if (RecordedClusterRuns(r)) {
      return absl::AlreadyExistsError(absl::StrCat(
          "a local cluster recorded in ", dir.string(), " is still running (master ", r.master_url,
          ", pid ", r.master_pid,
          "); stop it first with: det deploy local cluster-down --data-dir ", dir.string()));
    }
  }
  std::error_code ec;
  fs::remove(dir / kRecordFile, ec);
  fs::remove(dir / kPortFile, ec);

  fs::path master_bin = options.bin_dir / kMasterBinary;
  fs::path agent_bin = options.bin_dir / kAgentBinary;
  for (const fs::path& bin : {master_bin, agent_bin}) {
    if (::access(bin.c_str(), X_OK) != 0) {
      return absl::NotFoundError(absl::StrCat(
          "cannot find ", bin.string(), "; det starts the cluster from the directory it lives in"));
    }
  }

  // The database first: a PostgreSQL of the cluster's own is started here (and stopped on failure).
  std::vector<std::string> db_flags;
  std::string postgres_dir;
  if (options.db == "postgres") {
    out << "Starting PostgreSQL for " << (dir / "postgres").string() << " ...\n";
    absl::StatusOr<LocalPostgres> pg =
        StartLocalPostgres({.dir = (dir / "postgres").string(), .port = 0, .durable = true});
    if (!pg.ok()) return absl::UnavailableError(absl::StrCat("--db postgres: ", pg.status().message()));
    postgres_dir = pg->dir;
    db_flags = {"--db-host", "127.0.0.1", "--db-port", std::to_string(pg->port), "--db-user", "postgres",
                "--db-name", pg->database};
  } else if (!options.db.empty()) {
    absl::StatusOr<std::vector<std::string>> flags = PostgresUrlFlags(options.db);
    if (!flags.ok()) return flags.status();
    db_flags = *flags;
  }

  const auto deadline = Clock::now() + std::chrono::seconds(options.timeout_seconds);
  std::vector<Started> started;
  fs::path master_log = dir / "master.log";
  std::vector<std::string> master_args = {
      master_bin.string(), "--data-dir",  dir.string(), "--host", "127.0.0.1", "--port",
      std::to_string(options.master_port), "--port-file", (dir / kPortFile).string()};
  if (tls) {
    master_args.insert(master_args.end(),
                       {"--security-tls-cert", cert.string(), "--security-tls-key", key.string()});
  }
  if (!master_config.empty()) master_args.insert(master_args.end(), {"--config-file", master_config.string()});
  if (!options.cluster_name.empty()) master_args.insert(master_args.end(), {"--cluster-name", options.cluster_name});
  master_args.insert(master_args.end(), db_flags.begin(), db_flags.end());
  absl::StatusOr<pid_t> master = SpawnDaemon(master_args, master_log);
  if (!master.ok()) return Abort(started, postgres_dir, master.status());
  started.push_back({"master", *master, master_log});

  // The master writes its port once it accepts connections.
  int port = 0;
  while (port == 0) {
    if (std::optional<std::string> dead = AnyExited(started)) {
      return Abort(started, postgres_dir, absl::UnavailableError(absl::StrCat("the ", *dead, " during startup")));
    }
    absl::StatusOr<std::string> text = ReadFile(dir / kPortFile);
    int parsed = 0;
    if (text.ok() && absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &parsed) && parsed > 0) {
      port = parsed;
      break;
    }
    if (Clock::now() >= deadline) {
      return Abort(started, postgres_dir, absl::DeadlineExceededError(
                                absl::StrCat("the master did not start listening within ",
                                             options.timeout_seconds, " s")));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string url = absl::StrCat(tls ? "https" : "http", "://127.0.0.1:", port);

  for (int i = 0; i < options.agents; ++i) {
    std::string id = absl::StrCat("agent-", i);
    fs::path work = dir / id;
    if (absl::Status s = MakeDirs(work); !s.ok()) return Abort(started, postgres_dir, s);
    fs::path log = dir / (id + ".log");
    std::vector<std::string> agent_args = {agent_bin.string(), "--master-url", url, "--id", id,
                                           "--slots", std::to_string(options.slots),
                                           "--work-dir", work.string()};
    if (!options.agent_resource_pool.empty()) {
      agent_args.insert(agent_args.end(), {"--resource-pool", options.agent_resource_pool});
    }
    if (tls) agent_args.insert(agent_args.end(), {"--security-tls-master-cert", cert.string()});
    absl::StatusOr<pid_t> agent = SpawnDaemon(agent_args, log);
    if (!agent.ok()) return Abort(started, postgres_dir, agent.status());
    started.push_back({id, *agent, log});
  }

  client::RestClient client(url, {},
                            tls ? client::TlsOptions{.ca_file = cert.string()}
                                : client::TlsOptions::FromEnvironment());
  client.set_timeout_seconds(10);
  bool logged_in = false;
  int connected = 0;
  absl::Status last_error;
  while (true) {
    if (std::optional<std::string> dead = AnyExited(started)) {
      return Abort(started, postgres_dir, absl::UnavailableError(absl::StrCat("the ", *dead, " during startup")));
    }
    absl::StatusOr<int> n = CountAgents(client, options, &logged_in);
    if (n.ok()) {
      connected = *n;
      if (connected >= options.agents) break;
    } else {
      last_error = n.status();
      if (absl::IsPermissionDenied(n.status())) return Abort(started, postgres_dir, n.status());
    }
    if (Clock::now() >= deadline) {
      std::string why =
          absl::StrCat("the local cluster did not come up within ", options.timeout_seconds,
                       " s: ", connected, " of ", options.agents, " agents connected");
      if (!n.ok()) absl::StrAppend(&why, " (last error: ", last_error.message(), ")");
      return Abort(started, postgres_dir, absl::DeadlineExceededError(why));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }

  ClusterRecord record;
  record.postgres_dir = postgres_dir;
  record.master_db_flags = db_flags;
  record.master_url = url;
  record.master_pid = started[0].pid;
  for (size_t i = 1; i < started.size(); ++i) record.agent_pids.push_back(started[i].pid);
  if (absl::Status s = WriteFile(dir / kRecordFile, ClusterRecordToJson(record).dump(2) + "\n");
      !s.ok()) {
    return Abort(started, postgres_dir, s);
  }

  out << "Master: " << url << "\n";
  out << "Agents: " << options.agents << " with " << options.slots << " slot"
      << (options.slots == 1 ? "" : "s") << " each\n";
  out << "Data and logs: " << dir.string() << "\n";
  if (!db_flags.empty()) out << "Database:      " << (postgres_dir.empty() ? options.db : "PostgreSQL in " + postgres_dir) << "\n";
  out << "Use it with:   export DET_MASTER=" << url << "\n";
  if (tls) out << "               export DET_MASTER_CERT_FILE=" << cert.string() << "\n";
  out << "Stop it with:  det deploy local cluster-down --data-dir " << dir.string() << "\n";
  return 0;
}

absl::StatusOr<int> ClusterDown(const fs::path& data_dir, std::ostream& out) {
  absl::StatusOr<std::optional<ClusterRecord>> record = ReadClusterRecord(data_dir);
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    out << "No local cluster is recorded in " << data_dir.string() << "; nothing to stop.\n";
    return 0;
  }
  const ClusterRecord& r = **record;

  std::vector<pid_t> agents;
  for (pid_t pid : r.agent_pids) {
    if (ProcessCommandContains(pid, kAgentBinary)) agents.push_back(pid);
  }
  std::vector<pid_t> master;
  if (ProcessCommandContains(r.master_pid, kMasterBinary)) master.push_back(r.master_pid);

  // The master first, while its agents still run: its running trials checkpoint and exit, and resume
  // at the next cluster-up without counting a restart (it gives them 30 s); then the agents.
  if (!master.empty()) {
    out << "Stopping the master (running trials checkpoint and exit first)...\n";
    out.flush();
  }
  std::vector<pid_t> left = SignalAndWait(master, SIGTERM, std::chrono::seconds(40));
  std::vector<pid_t> agents_left = SignalAndWait(agents, SIGTERM, std::chrono::seconds(5));
  left.insert(left.end(), agents_left.begin(), agents_left.end());
  std::vector<pid_t> killed = left;
  if (!left.empty()) left = SignalAndWait(left, SIGKILL, std::chrono::seconds(3));

  std::error_code ec;
  fs::remove(data_dir / kRecordFile, ec);
  fs::remove(data_dir / kPortFile, ec);
  if (!r.postgres_dir.empty()) {
    if (absl::Status st = StopLocalPostgres(r.postgres_dir); !st.ok()) {
      out << "Could not stop the cluster's PostgreSQL in " << r.postgres_dir << ": " << st.message() << "\n";
    }
  }

  if (master.empty() && agents.empty()) {
    out << "The local cluster recorded in " << data_dir.string()
        << " was no longer running; removed its record.\n";
    return 0;
  }
  out << "Stopped the local cluster at " << r.master_url << ":";
  if (!master.empty()) out << " master (pid " << master[0] << ")";
  if (!agents.empty()) {
    out << (master.empty() ? "" : ",") << " " << agents.size() << " agent"
        << (agents.size() == 1 ? "" : "s") << " (pid" << (agents.size() == 1 ? " " : "s ")
        << absl::StrJoin(agents, ", ") << ")";
  }
  out << ".\n";
  if (!killed.empty()) {
    out << "Had to SIGKILL pid" << (killed.size() == 1 ? " " : "s ") << absl::StrJoin(killed, ", ")
        << " after 10 s.\n";
  }
  if (!left.empty()) {
    return absl::InternalError(
        absl::StrCat("pids still running after SIGKILL: ", absl::StrJoin(left, ", ")));
  }
  return 0;
}

}  // namespace det::cli
