#include "cli/command_ops.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fake_master_test_fixture.h"
#include "cli/trial_ops.h"
#include "common/base64.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kMine = "3f2a0000-0000-4000-8000-000000000001";
const std::string kMine2 = "3f2b0000-0000-4000-8000-000000000002";
const std::string kBobs = "9c000000-0000-4000-8000-000000000003";
const std::string kLaunched = "7e000000-0000-4000-8000-000000000004";

json Command(const std::string& id, const std::string& user, const std::string& state) {
  return {{"id", id},
          {"description", "Command (happy-blue-fox)"},
          {"state", state},
          {"startTime", "2024-05-01T10:00:00Z"},
          {"container", nullptr},
          {"displayName", ""},
          {"userId", user == "alice" ? 2 : 3},
          {"username", user},
          {"resourcePool", "default"},
          {"exitStatus", ""},
          {"jobId", "job-" + id.substr(0, 4)},
          {"workspaceId", 1},
          {"exitCode", nullptr}};
}

// A master with alice logged in, three existing commands, and a launch that records its body and
// answers with kLaunched. GET /api/v1/commands/kLaunched reports `launched_states_` one after
// another (the last one repeats).
class CommandOpsTest : public FakeMasterTest {
 protected:
  void SetUp() override {
    FakeMasterTest::SetUp();
    commands_ = {Command(kMine, "alice", "STATE_RUNNING"), Command(kMine2, "alice", "STATE_QUEUED"),
                 Command(kBobs, "bob", "STATE_TERMINATED")};
    commands_[2]["exitStatus"] = "command exited successfully";
    commands_[2]["exitCode"] = 0;
    json done = Command(kLaunched, "alice", "STATE_TERMINATED");
    done["exitCode"] = 3;
    done["exitStatus"] = "command exited with code 3";
    launched_states_ = {Command(kLaunched, "alice", "STATE_RUNNING"), done};
  }

  FakeResponse Serve(const FakeRequest& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string& t = r.target;
    if (t == "/api/v1/auth/login") return {200, R"({"token":"t","user":{"username":"alice"}})"};
    if (r.method == "GET" && t.rfind("/api/v1/commands?", 0) == 0) {
      json list = json::array();
      for (const json& c : commands_) {
        if (t.find("users=alice") == std::string::npos || c["username"] == "alice") {
          list.push_back(c);
        }
      }
      return {200, json{{"commands", list},
                        {"pagination",
                         {{"startIndex", 0}, {"endIndex", list.size()}, {"total", list.size()}}}}
                       .dump()};
    }
    if (r.method == "POST" && t == "/api/v1/commands") {
      if (launch_error_.status != 200) return launch_error_;
      launch_body_ = json::parse(r.body);
      return {200, json{{"command", Command(kLaunched, "alice", "STATE_QUEUED")},
                        {"config", launch_body_["config"]},
                        {"warnings", json::array({"LAUNCH_WARNING_CURRENT_SLOTS_EXCEEDED"})}}
                       .dump()};
    }
    if (r.method == "GET" && t.rfind("/api/v1/tasks/", 0) == 0) {
      return {200, R"({"result":{"taskId":"x","log":"hello\n"}})"
                   "\n"
                   R"({"result":{"taskId":"x","log":"world"}})"
                   "\n"};
    }
    const std::string prefix = "/api/v1/commands/";
    if (t.rfind(prefix, 0) == 0) {
      std::string rest = t.substr(prefix.size());
      std::string id = rest.substr(0, rest.find('/'));
      std::string action = rest.size() > id.size() ? rest.substr(id.size() + 1) : "";
      if (id == kLaunched && r.method == "GET") {
        json c = launched_states_.front();
        if (launched_states_.size() > 1) launched_states_.erase(launched_states_.begin());
        return {200, json{{"command", c}, {"config", {{"entrypoint", {"true"}}}}}.dump()};
      }
      for (const json& c : commands_) {
        if (c["id"] != id) continue;
        if (r.method == "GET" && action.empty()) {
          return {200,
                  json{{"command", c},
                       {"config", {{"entrypoint", {"sleep", "60"}}, {"resources", {{"slots", 0}}}}}}
                      .dump()};
        }
        if (r.method == "POST" && action == "kill") return {200, "{}"};
        if (r.method == "POST" && action == "set_priority") {
          json body = json::parse(r.body);
          if (body["priority"] == 0) {
            return {400, R"({"error":{"code":3,"error":"priority: must be 1 to 99, got 0"}})"};
          }
          return {200, json{{"command", c}}.dump()};
        }
      }
      return {404,
              json{{"error", {{"code", 5}, {"error", "command " + id + " not found"}}}}.dump()};
    }
    return {404, R"({"error":{"code":5,"error":"no route"}})"};
  }

  // "METHOD target" of every request but logins.
  std::vector<std::string> Calls() {
    std::vector<std::string> out;
    for (const FakeRequest& r : server_->requests()) {
      if (r.target != "/api/v1/auth/login") out.push_back(r.method + " " + r.target);
    }
    return out;
  }
  std::vector<FakeRequest> Posts(const std::string& target) {
    std::vector<FakeRequest> out;
    for (const FakeRequest& r : server_->requests()) {
      if (r.method == "POST" && r.target == target) out.push_back(r);
    }
    return out;
  }

  std::string WriteFile(const std::string& rel, const std::string& text) {
    fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

  RunCommandArgs Args(std::vector<std::string> entrypoint) {
    RunCommandArgs a;
    a.entrypoint = std::move(entrypoint);
    a.poll_interval = std::chrono::milliseconds(0);
    return a;
  }

  std::mutex mu_;
  std::vector<json> commands_;
  std::vector<json> launched_states_;
  FakeResponse launch_error_;  // status 200 = launch succeeds
  json launch_body_;
};

TEST_F(CommandOpsTest, RunSendsTheConfigFollowsTheLogsAndExitsWithTheCommandsCode) {
  RunCommandArgs a = Args({"python3", "-c", "import sys; sys.exit(3)"});
  a.config_file = WriteFile("cmd.yaml", "description: mine\nresources:\n  slots: 1\n");
  a.overrides = {"resources.slots=2", "environment.image=python:3.11"};
  a.volumes = {"/data:/mnt/data:ro", "/scratch:/scratch"};
  a.template_name = "gpu";
  std::ostringstream out, err;
  absl::StatusOr<int> code = RunCommand(*session_, a, out, err);
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 3);
  EXPECT_EQ(launch_body_, json::parse(R"j({
    "config": {
      "description": "mine",
      "resources": {"slots": 2},
      "environment": {"image": "python:3.11"},
      "entrypoint": ["python3", "-c", "import sys; sys.exit(3)"],
      "bind_mounts": [
        {"host_path": "/data", "container_path": "/mnt/data", "read_only": true},
        {"host_path": "/scratch", "container_path": "/scratch", "read_only": false}]},
    "templateName": "gpu"})j"));
  EXPECT_EQ(out.str(), "hello\nworld\n");
  EXPECT_NE(err.str().find("Launched command (id " + kLaunched + ")\n"), std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("Warning: The requested job requires more slots"), std::string::npos);
  EXPECT_EQ(Calls(),
            (std::vector<std::string>{
                "POST /api/v1/commands", "GET /api/v1/tasks/" + kLaunched + "/logs?follow=true",
                "GET /api/v1/commands/" + kLaunched,  // still RUNNING: poll again
                "GET /api/v1/commands/" + kLaunched}));
}

TEST_F(CommandOpsTest, DetachPrintsOnlyTheIdAndDoesNotWait) {
  std::ostringstream out, err;
  RunCommandArgs a = Args({"sleep", "60"});
  a.detach = true;
  EXPECT_EQ(RunCommand(*session_, a, out, err).value_or(-1), 0);
  EXPECT_EQ(out.str(), kLaunched + "\n");
  EXPECT_EQ(Calls(), std::vector<std::string>{"POST /api/v1/commands"});
  EXPECT_FALSE(launch_body_.contains("files"));
  EXPECT_FALSE(launch_body_.contains("templateName"));
}

TEST_F(CommandOpsTest, AKilledCommandExitsOneAndSaysWhy) {
  json killed = Command(kLaunched, "alice", "STATE_TERMINATED");
  killed["exitStatus"] = "killed by user";
  launched_states_ = {killed};
  std::ostringstream out, err;
  EXPECT_EQ(RunCommand(*session_, Args({"sleep", "60"}), out, err).value_or(-1), 1);
  EXPECT_NE(err.str().find("Command " + kLaunched + " ended: killed by user\n"), std::string::npos)
      << err.str();
}

TEST_F(CommandOpsTest, TheContextAndIncludesAreSentAsFiles) {
  WriteFile("ctx/run.sh", "echo hi\n");
  WriteFile("ctx/.detignore", "*.bin\n");
  WriteFile("ctx/big.bin", "x");
  std::string extra = WriteFile("extra.txt", "more");
  RunCommandArgs a = Args({"sh", "run.sh"});
  a.context_dir = (dir_ / "ctx").string();
  a.includes = {extra};
  a.detach = true;
  std::ostringstream out, err;
  ASSERT_EQ(RunCommand(*session_, a, out, err).value_or(-1), 0);
  std::map<std::string, std::string> files;
  for (const json& f : launch_body_["files"]) {
    files[f["path"].get<std::string>()] =
        Base64Decode(f["content"].get<std::string>()).value_or("?");
  }
  EXPECT_EQ(files,
            (std::map<std::string, std::string>{{"run.sh", "echo hi\n"}, {"extra.txt", "more"}}));
}

TEST_F(CommandOpsTest, AnEmptyCommandIsRefusedUnlessTheConfigHasAnEntrypoint) {
  std::ostringstream out, err;
  absl::StatusOr<int> none = RunCommand(*session_, Args({}), out, err);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(none.status().message().substr(0, 39), "det cmd run: give the command to run (`");
  EXPECT_TRUE(Posts("/api/v1/commands").empty());

  RunCommandArgs from_config = Args({});
  from_config.config_file = WriteFile("e.yaml", "entrypoint: [nvidia-smi]\n");
  from_config.detach = true;
  ASSERT_EQ(RunCommand(*session_, from_config, out, err).value_or(-1), 0);
  EXPECT_EQ(launch_body_["config"]["entrypoint"], json({"nvidia-smi"}));
  // The command line wins over the config's entrypoint.
  RunCommandArgs both = Args({"ls"});
  both.config_file = from_config.config_file;
  both.detach = true;
  ASSERT_EQ(RunCommand(*session_, both, out, err).value_or(-1), 0);
  EXPECT_EQ(launch_body_["config"]["entrypoint"], json({"ls"}));
}

TEST_F(CommandOpsTest, BadInputIsRefusedBeforeAnythingIsSent) {
  std::ostringstream out, err;
  RunCommandArgs bad_override = Args({"ls"});
  bad_override.overrides = {"novalue"};
  EXPECT_NE(RunCommand(*session_, bad_override, out, err)
                .status()
                .message()
                .find("Could not read configuration option 'novalue'"),
            std::string::npos);
  RunCommandArgs bad_volume = Args({"ls"});
  bad_volume.volumes = {"/only-host"};
  EXPECT_EQ(RunCommand(*session_, bad_volume, out, err).status().message(),
            "-v/--volume \"/only-host\": expected HOST_PATH:CONTAINER_PATH, optionally with :ro");
  RunCommandArgs list_config = Args({"ls"});
  list_config.config_file = WriteFile("l.yaml", "- a\n");
  EXPECT_NE(RunCommand(*session_, list_config, out, err)
                .status()
                .message()
                .find("expected a YAML mapping"),
            std::string::npos);
  RunCommandArgs missing = Args({"ls"});
  missing.config_file = (dir_ / "nope.yaml").string();
  EXPECT_EQ(RunCommand(*session_, missing, out, err).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(Calls().empty());
}

TEST_F(CommandOpsTest, AMasterRefusalKeepsItsMessage) {
  launch_error_ = {400, R"({"error":{"code":3,"error":"resources.slots: must be >= 0, got -1"}})"};
  std::ostringstream out, err;
  absl::StatusOr<int> r = RunCommand(*session_, Args({"ls"}), out, err);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "resources.slots: must be >= 0, got -1");
  EXPECT_EQ(out.str(), "");
}

TEST_F(CommandOpsTest, VolumesAreAppendedToTheConfigsBindMounts) {
  RunCommandArgs a = Args({"ls"});
  a.config_file =
      WriteFile("b.yaml", "bind_mounts:\n  host_path: /etc\n  container_path: /host-etc\n");
  a.volumes = {"/x:/y"};
  absl::StatusOr<json> body = BuildRunCommandRequest(a, nullptr);
  ASSERT_TRUE(body.ok()) << body.status();
  ASSERT_EQ((*body)["config"]["bind_mounts"].size(), 2u);
  EXPECT_EQ((*body)["config"]["bind_mounts"][0]["host_path"], "/etc");
  EXPECT_EQ((*body)["config"]["bind_mounts"][1]["container_path"], "/y");
  a.config_file = WriteFile("c.yaml", "bind_mounts: 3\n");
  EXPECT_EQ(BuildRunCommandRequest(a, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ParseVolumeTest, HostContainerAndReadOnly) {
  EXPECT_EQ(ParseVolume("/a:/b").value_or(json()),
            json::parse(R"({"host_path":"/a","container_path":"/b","read_only":false})"));
  EXPECT_EQ(ParseVolume("/a:/b:ro").value_or(json()),
            json::parse(R"({"host_path":"/a","container_path":"/b","read_only":true})"));
  EXPECT_EQ(ParseVolume("/a:/b:rw").value_or(json())["read_only"], false);
  // Without a mode, the container path keeps what follows the first colon.
  EXPECT_EQ(ParseVolume("/a:/b:c").value_or(json())["container_path"], "/b:c");
  EXPECT_FALSE(ParseVolume("/a").ok());
  EXPECT_FALSE(ParseVolume(":/b").ok());
  EXPECT_FALSE(ParseVolume("/a:").ok());
  EXPECT_FALSE(ParseVolume("/a::ro").ok());
}

TEST(CommandExitCodeTest, TheCommandsCodeOrOne) {
  std::ostringstream err;
  json c = Command(kMine, "alice", "STATE_TERMINATED");
  c["exitCode"] = 0;
  EXPECT_EQ(CommandExitCode(c, err), 0);
  c["exitCode"] = 137;
  EXPECT_EQ(CommandExitCode(c, err), 137);
  c["exitCode"] = "2";  // int64s may come as strings
  EXPECT_EQ(CommandExitCode(c, err), 2);
  EXPECT_EQ(err.str(), "");
  c["exitCode"] = 256;  // would read as 0 once truncated to a process exit status
  EXPECT_EQ(CommandExitCode(c, err), 1);
  EXPECT_EQ(err.str(), "Command " + kMine + " exited with code 256\n");
  err.str("");
  c["exitCode"] = nullptr;
  c["exitStatus"] = "killed by user";
  EXPECT_EQ(CommandExitCode(c, err), 1);
  EXPECT_EQ(err.str(), "Command " + kMine + " ended: killed by user\n");
  err.str("");
  c.erase("exitCode");
  c["exitStatus"] = "";
  EXPECT_EQ(CommandExitCode(c, err), 1);
  EXPECT_EQ(err.str(),
            "Command " + kMine + " ended: no exit code reported (state STATE_TERMINATED)\n");
}

TEST_F(CommandOpsTest, ListShowsTheUsersCommandsOrAll) {
  std::ostringstream mine, all, quiet, csv, as_json;
  ASSERT_EQ(ListCommands(*session_, {}, mine).value_or(-1), 0);
  EXPECT_EQ(mine.str(),
            " ID                                   | Owner | Description              | State   "
            "| Exit Status | Resource Pool\n"
            "--------------------------------------+-------+--------------------------+---------"
            "+-------------+---------------\n"
            " " +
                kMine +
                " | alice | Command (happy-blue-fox) | RUNNING |             | default\n"
                " " +
                kMine2 + " | alice | Command (happy-blue-fox) | QUEUED  |             | default\n");
  ASSERT_EQ(ListCommands(*session_, {.all = true}, all).value_or(-1), 0);
  EXPECT_NE(all.str().find(kBobs + " | bob   | Command (happy-blue-fox) | TERMINATED | command "
                                   "exited successfully | default"),
            std::string::npos)
      << all.str();
  ASSERT_EQ(ListCommands(*session_, {.all = true, .quiet = true}, quiet).value_or(-1), 0);
  EXPECT_EQ(quiet.str(), kMine + "\n" + kMine2 + "\n" + kBobs + "\n");
  ASSERT_EQ(ListCommands(*session_, {.format = OutputFormat::kCsv}, csv).value_or(-1), 0);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "ID,Owner,Description,State,Exit Status,Resource Pool");
  ASSERT_EQ(ListCommands(*session_, {.format = OutputFormat::kJson}, as_json).value_or(-1), 0);
  json listed = json::parse(as_json.str());
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0]["state"], "RUNNING");
  EXPECT_EQ(listed[0]["jobId"], "job-3f2a");
  std::vector<std::string> calls = Calls();
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls[0], "GET /api/v1/commands?users=alice&offset=0&limit=1000");
  EXPECT_EQ(calls[1], "GET /api/v1/commands?offset=0&limit=1000");
}

TEST_F(CommandOpsTest, ConfigResolvesAPrefixAndPrintsYaml) {
  std::ostringstream out;
  ASSERT_EQ(PrintCommandConfig(*session_, "9c", out).value_or(-1), 0);
  EXPECT_EQ(out.str(), "entrypoint:\n  - sleep\n  - \"60\"\nresources:\n  slots: 0\n");
  EXPECT_EQ(Calls(), (std::vector<std::string>{"GET /api/v1/commands?offset=0&limit=1000",
                                               "GET /api/v1/commands/" + kBobs}));
  absl::StatusOr<int> ambiguous = PrintCommandConfig(*session_, "3f", out);
  EXPECT_EQ(ambiguous.status().message(),
            "command id prefix \"3f\" is ambiguous: matches " + kMine + ", " + kMine2);
  EXPECT_EQ(PrintCommandConfig(*session_, "ff", out).status().message(),
            "no command with id starting with \"ff\"");
}

TEST_F(CommandOpsTest, LogsAreTheTasksLogs) {
  std::ostringstream out;
  TrialLogsArgs args;
  args.head = 5;
  ASSERT_EQ(PrintCommandLogs(*session_, "3f2b", args, out).value_or(-1), 0);
  EXPECT_EQ(out.str(), "hello\nworld\n");
  EXPECT_EQ(Calls().back(), "GET /api/v1/tasks/" + kMine2 + "/logs?limit=5");

  std::ostringstream as_json;
  args.json = true;
  ASSERT_EQ(PrintCommandLogs(*session_, "3f2b", args, as_json).value_or(-1), 0);
  EXPECT_EQ(as_json.str(), "{\"log\":\"hello\\n\",\"taskId\":\"x\"}\n{\"log\":\"world\",\"taskId\":\"x\"}\n");
}

TEST_F(CommandOpsTest, KillTriesEveryIdAndReportsTheFailures) {
  std::ostringstream out;
  ASSERT_EQ(KillCommands(*session_, {"3f2a", kBobs}, out).value_or(-1), 0);
  EXPECT_EQ(out.str(), "Killed command " + kMine + "\nKilled command " + kBobs + "\n");
  ASSERT_EQ(Posts("/api/v1/commands/" + kMine + "/kill").size(), 1u);
  EXPECT_EQ(Posts("/api/v1/commands/" + kMine + "/kill")[0].body, "{}");

  std::ostringstream partly;
  absl::StatusOr<int> r = KillCommands(*session_, {"zz", "3f2b"}, partly);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "no command with id starting with \"zz\"");
  EXPECT_EQ(partly.str(), "Killed command " + kMine2 + "\n");

  const std::string gone = "00000000-0000-4000-8000-000000000000";
  absl::StatusOr<int> two = KillCommands(*session_, {"3f", gone}, partly);
  EXPECT_EQ(two.status().message(),
            "2 commands were not killed: command id prefix \"3f\" is ambiguous: matches " + kMine +
                ", " + kMine2 + "; command " + gone + " not found");
}

TEST_F(CommandOpsTest, SetPriorityPostsThePriority) {
  std::ostringstream out;
  ASSERT_EQ(SetCommandPriority(*session_, "9", 42, out).value_or(-1), 0);
  EXPECT_EQ(out.str(), "Set priority of command " + kBobs + " to 42\n");
  std::vector<FakeRequest> posts = Posts("/api/v1/commands/" + kBobs + "/set_priority");
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_EQ(json::parse(posts[0].body), json::parse(R"({"priority": 42})"));
  absl::StatusOr<int> refused = SetCommandPriority(*session_, kBobs, 0, out);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(), "priority: must be 1 to 99, got 0");
}

}  // namespace
}  // namespace det::cli
