#include "cli/interactive_ops.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fake_master_test_fixture.h"
#include "cli/service_wait.h"
#include "cli/ssh_command.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kLaunched = "7e000000-0000-4000-8000-000000000004";
const std::string kOther = "3f2a0000-0000-4000-8000-000000000001";
const std::string kPem =
    "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----";

// An object of `kind` ("notebook", "shell", "tensorboard") as the master describes it.
json Object(const std::string& id, const std::string& kind, const std::string& state) {
  json o = {{"id", id},
            {"description", kind == "notebook" ? "JupyterLab (happy-fox)" : "X (happy-fox)"},
            {"state", state},
            {"startTime", "2024-05-01T10:00:00Z"},
            {"container", nullptr},
            {"displayName", ""},
            {"userId", 2},
            {"username", "alice"},
            {"resourcePool", "default"},
            {"exitStatus", ""},
            {"jobId", "job"},
            {"workspaceId", 1}};
  if (kind == "notebook") o["serviceAddress"] = "/proxy/" + id + "/?token=secret";
  if (kind == "tensorboard") {
    o["serviceAddress"] = "/proxy/" + id + "/";
    o["experimentIds"] = {3};
    o["trialIds"] = json::array();
  }
  if (kind == "shell") {
    o["privateKey"] = kPem;
    o["publicKey"] = "ssh-rsa AAAA";
    o["addresses"] = json::array();
    o["agentUserGroup"] = {{"user", "agentuser"}, {"uid", 1001}, {"group", "g"}, {"gid", 1001}};
  }
  return o;
}

json Task(const std::string& id, bool has_allocation, bool ready, bool ended) {
  json allocations = json::array();
  if (has_allocation) allocations.push_back({{"allocationId", id + ".1"}, {"isReady", ready}});
  return {{"task",
           {{"taskId", id},
            {"allocations", allocations},
            {"endTime", ended ? json("2024-05-01T10:05:00Z") : json(nullptr)},
            {"exitStatus", ended ? "task exited" : ""}}}};
}

// A master with alice logged in that launches every notebook, shell and TensorBoard as kLaunched
// and also knows kOther. GET /api/v1/tasks/kLaunched answers `task_script_` one after another, and
// GET <kind>/kLaunched the states in `state_script_` (the last ones repeat).
class InteractiveOpsTest : public FakeMasterTest {
 protected:
  void SetUp() override {
    FakeMasterTest::SetUp();
    task_script_ = {Task(kLaunched, true, true, false)};
    state_script_ = {"STATE_RUNNING"};
    env_.wait.poll_interval = std::chrono::milliseconds(0);
    env_.open_browser = [this](const std::string& url) {
      opened_.push_back(url);
      return true;
    };
    env_.run_ssh = [this](const std::vector<std::string>& argv) -> absl::StatusOr<int> {
      ssh_argv_ = argv;
      std::string key = argv[std::find(argv.begin(), argv.end(), "-i") - argv.begin() + 1];
      std::stringstream text;
      text << std::ifstream(key).rdbuf();
      key_seen_ = text.str();
      key_perms_ = fs::status(key).permissions() & fs::perms::all;
      return ssh_status_;
    };
    env_.det_program = "det";
    env_.temp_dir = dir_;
    env_.cache_dir = dir_ / "cache";
  }

  FakeResponse Serve(const FakeRequest& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string& t = r.target;
    if (t == "/api/v1/auth/login") return {200, R"({"token":"t","user":{"username":"alice"}})"};
    for (const std::string kind : {"notebook", "shell", "tensorboard"}) {
      const std::string collection = "/api/v1/" + kind + "s";
      if (r.method == "POST" && t == collection) {
        launch_body_ = json::parse(r.body);
        if (launch_body_.value("preview", false)) {
          json config = launch_body_["config"];
          config["resources"] = {{"slots", 1}};
          return {200,
                  json{{kind, Object("", kind, "STATE_UNSPECIFIED")}, {"config", config}}.dump()};
        }
        return {200, json{{kind, Object(kLaunched, kind, "STATE_QUEUED")},
                          {"config", launch_body_["config"]},
                          {"warnings", json::array()}}
                         .dump()};
      }
      if (r.method == "GET" && t.rfind(collection + "?", 0) == 0) {
        json list = json::array({Object(kOther, kind, "STATE_RUNNING")});
        if (t.find("users=alice") == std::string::npos) {
          list.push_back(Object("9c000000-0000-4000-8000-000000000003", kind, "STATE_RUNNING"));
        }
        return {200, json{{kind + "s", list},
                          {"pagination",
                           {{"startIndex", 0}, {"endIndex", list.size()}, {"total", list.size()}}}}
                         .dump()};
      }
      if (r.method == "GET" && t == collection + "/" + kLaunched) {
        json o = Object(kLaunched, kind, Next(state_script_));
        if (o["state"] == "STATE_TERMINATED") o["exitStatus"] = exit_status_;
        return {200, json{{kind, o}, {"config", json::object()}}.dump()};
      }
      if (r.method == "GET" && t == collection + "/" + kOther) {
        return {
            200,
            json{{kind, Object(kOther, kind, "STATE_RUNNING")}, {"config", json::object()}}.dump()};
      }
      if (r.method == "POST" && t == collection + "/" + kOther + "/kill") return {200, "{}"};
    }
    if (r.method == "GET" && t.rfind("/api/v1/tasks/" + kLaunched + "/logs", 0) == 0) {
      std::string body;
      for (const std::string& line : logs_newest_first_) {
        body += json{{"result", {{"taskId", kLaunched}, {"log", line + "\n"}}}}.dump() + "\n";
      }
      return {200, body};
    }
    if (r.method == "GET" && t == "/api/v1/tasks/" + kLaunched) {
      return {200, NextTask().dump()};
    }
    if (r.method == "GET" && t == "/api/v1/tasks/" + kOther) {
      return {200, Task(kOther, true, true, false).dump()};
    }
    return {404, R"({"error":{"code":5,"error":"not found"}})"};
  }

  std::string Next(std::vector<std::string>& script) {
    std::string s = script.front();
    if (script.size() > 1) script.erase(script.begin());
    return s;
  }
  json NextTask() {
    json s = task_script_.front();
    if (task_script_.size() > 1) task_script_.erase(task_script_.begin());
    return s;
  }

  std::vector<std::string> Calls() {
    std::vector<std::string> out;
    for (const FakeRequest& r : server_->requests()) {
      if (r.target != "/api/v1/auth/login") out.push_back(r.method + " " + r.target);
    }
    return out;
  }

  std::string WriteFile(const std::string& rel, const std::string& text) {
    fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

  std::mutex mu_;
  std::vector<json> task_script_;
  std::vector<std::string> state_script_;
  std::vector<std::string> logs_newest_first_;
  std::string exit_status_;
  json launch_body_;

  InteractiveEnvironment env_;
  std::vector<std::string> opened_;
  std::vector<std::string> ssh_argv_;
  std::string key_seen_;
  fs::perms key_perms_ = fs::perms::none;
  int ssh_status_ = 0;
};

TEST_F(InteractiveOpsTest, WaitShowsProgressUntilAnAllocationIsReady) {
  task_script_ = {Task(kLaunched, false, false, false), Task(kLaunched, true, false, false),
                  Task(kLaunched, true, false, false), Task(kLaunched, true, true, false)};
  state_script_ = {"STATE_QUEUED", "STATE_RUNNING", "STATE_RUNNING", "STATE_RUNNING"};
  std::ostringstream err;
  absl::StatusOr<ServiceWait> w =
      WaitForService(*session_, kNotebookListing, kLaunched, env_.wait, err);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->ready);
  EXPECT_EQ(w->object["serviceAddress"], "/proxy/" + kLaunched + "/?token=secret");
  EXPECT_EQ(err.str(), "Notebook " + kLaunched + " is queued...\nNotebook " + kLaunched +
                           " is running; waiting for it to be ready...\n");
  EXPECT_EQ(Calls().size(), 8u);  // four polls of the task and the notebook
}

TEST_F(InteractiveOpsTest, WaitStopsWhenTheTaskEndsFirstAndShowsWhyAndTheLastLogLines) {
  task_script_ = {Task(kLaunched, true, false, false), Task(kLaunched, true, true, true)};
  state_script_ = {"STATE_RUNNING", "STATE_TERMINATED"};
  exit_status_ = "task exited with code 1";
  logs_newest_first_ = {"Error: tensorboard is not installed", "starting", "first"};
  std::ostringstream err;
  absl::StatusOr<ServiceWait> w =
      WaitForService(*session_, kTensorboardListing, kLaunched, env_.wait, err);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_FALSE(w->ready);  // ended wins over a stale isReady
  EXPECT_EQ(err.str(),
            "TensorBoard " + kLaunched +
                " is running; waiting for it to be ready...\n"
                "TensorBoard " +
                kLaunched +
                " ended before it was ready: task exited with code 1\n"
                "Its last log lines:\nfirst\nstarting\nError: tensorboard is not installed\n");
  EXPECT_EQ(Calls().back(),
            "GET /api/v1/tasks/" + kLaunched + "/logs?limit=25&orderBy=ORDER_BY_DESC");
}

TEST_F(InteractiveOpsTest, WaitReportsTheTasksExitStatusWhenTheObjectHasNone) {
  task_script_ = {Task(kLaunched, false, false, true)};
  state_script_ = {"STATE_QUEUED"};
  std::ostringstream err;
  absl::StatusOr<ServiceWait> w =
      WaitForService(*session_, kShellListing, kLaunched, env_.wait, err);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->ready);
  EXPECT_EQ(err.str(), "Shell " + kLaunched + " ended before it was ready: task exited\n");
}

TEST_F(InteractiveOpsTest, NotebookStartSendsTheConfigWaitsPrintsAndOpensTheUrl) {
  StartNotebookArgs a;
  a.config_file = WriteFile("nb.yaml", "description: mine\nresources:\n  slots: 1\n");
  a.overrides = {"resources.slots=0"};
  a.volumes = {"/data:/data:ro"};
  a.template_name = "tpl";
  task_script_ = {Task(kLaunched, true, false, false), Task(kLaunched, true, true, false)};
  std::ostringstream out, err;
  ASSERT_EQ(StartNotebook(*session_, a, env_, out, err).value_or(-1), 0) << err.str();
  EXPECT_EQ(launch_body_, json::parse(R"({
    "config": {"description": "mine", "resources": {"slots": 0},
               "bind_mounts": [{"host_path": "/data", "container_path": "/data", "read_only": true}]},
    "templateName": "tpl"})"));
  std::string url = session_->master_url() + "/proxy/" + kLaunched + "/?token=secret";
  EXPECT_EQ(out.str(), url + "\n");
  EXPECT_EQ(opened_, std::vector<std::string>{url});
  EXPECT_EQ(err.str().substr(0, err.str().find('\n')),
            "Scheduling notebook " + kLaunched + " (JupyterLab (happy-fox))...");
  EXPECT_EQ(Calls()[0], "POST /api/v1/notebooks");
}

TEST_F(InteractiveOpsTest, NoBrowserDetachAndPreview) {
  StartNotebookArgs a;
  a.no_browser = true;
  std::ostringstream out, err;
  ASSERT_EQ(StartNotebook(*session_, a, env_, out, err).value_or(-1), 0);
  EXPECT_TRUE(opened_.empty());
  EXPECT_EQ(out.str(), session_->master_url() + "/proxy/" + kLaunched + "/?token=secret\n");

  StartNotebookArgs d;
  d.detach = true;
  std::ostringstream dout, derr;
  size_t before = Calls().size();
  ASSERT_EQ(StartNotebook(*session_, d, env_, dout, derr).value_or(-1), 0);
  EXPECT_EQ(dout.str(), kLaunched + "\n");
  EXPECT_EQ(Calls().size(), before + 1);  // just the launch
  EXPECT_FALSE(launch_body_.contains("preview"));

  StartNotebookArgs p;
  p.preview = true;
  p.overrides = {"description=x"};
  std::ostringstream pout, perr;
  before = Calls().size();
  ASSERT_EQ(StartNotebook(*session_, p, env_, pout, perr).value_or(-1), 0);
  EXPECT_EQ(launch_body_["preview"], true);
  EXPECT_EQ(pout.str(), "description: x\nresources:\n  slots: 1\n");
  EXPECT_EQ(Calls().size(), before + 1);
}

TEST_F(InteractiveOpsTest, TensorboardStartSendsTheIdsAndFailsWhenTheTaskEnds) {
  StartTensorboardArgs a;
  a.experiment_ids = {3, 4};
  a.trial_ids = {7};
  task_script_ = {Task(kLaunched, true, false, true)};
  state_script_ = {"STATE_TERMINATED"};
  exit_status_ = "tensorboard exited with code 1";
  logs_newest_first_ = {"tensorboard: command not found"};
  std::ostringstream out, err;
  EXPECT_EQ(StartTensorboard(*session_, a, env_, out, err).value_or(-1), 1);
  EXPECT_EQ(launch_body_["experimentIds"], json({3, 4}));
  EXPECT_EQ(launch_body_["trialIds"], json({7}));
  EXPECT_EQ(out.str(), "");
  EXPECT_NE(err.str().find("ended before it was ready: tensorboard exited with code 1\n"
                           "Its last log lines:\ntensorboard: command not found\n"),
            std::string::npos)
      << err.str();
  EXPECT_TRUE(opened_.empty());

  StartTensorboardArgs none;
  absl::StatusOr<int> refused = StartTensorboard(*session_, none, env_, out, err);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(InteractiveOpsTest, OpenResolvesAPrefixAndPrintsTheProxyUrl) {
  std::ostringstream out, err;
  ASSERT_EQ(OpenService(*session_, kTensorboardListing, "3f", true, env_, out, err).value_or(-1),
            0);
  EXPECT_EQ(out.str(), session_->master_url() + "/proxy/" + kOther + "/\n");
  EXPECT_EQ(err.str(), "");  // ready at once: no progress
  EXPECT_TRUE(opened_.empty());
}

TEST_F(InteractiveOpsTest, ShellStartRunsSshWithATemporaryKeyAndReturnsItsStatus) {
  StartShellArgs a;
  a.ssh_args = {"hostname"};
  ssh_status_ = 5;
  std::ostringstream out, err;
  EXPECT_EQ(StartShell(*session_, a, env_, out, err).value_or(-1), 5);
  ASSERT_FALSE(ssh_argv_.empty());
  std::string key =
      ssh_argv_[std::find(ssh_argv_.begin(), ssh_argv_.end(), "-i") - ssh_argv_.begin() + 1];
  EXPECT_EQ(fs::path(key).parent_path(), dir_);
  EXPECT_FALSE(fs::exists(key));  // removed after ssh
  EXPECT_EQ(key_seen_, kPem + "\n");
  EXPECT_EQ(key_perms_, fs::perms::owner_read | fs::perms::owner_write);
  SshInvocation want;
  want.det_program = "det";
  want.master_url = session_->master_url();
  want.shell_id = kLaunched;
  want.user = "agentuser";
  want.key_file = key;
  want.ssh_args = {"hostname"};
  EXPECT_EQ(ssh_argv_, SshArgv(want));
  EXPECT_EQ(std::count(ssh_argv_.begin(), ssh_argv_.end(), "-tt"), 0);  // a command, no terminal
  EXPECT_EQ(out.str(), "");
}

TEST_F(InteractiveOpsTest, ShowSshCommandKeepsTheKeyInTheCacheAndPrintsAQuotedCommand) {
  env_.tls.no_verify = true;
  std::ostringstream out, err;
  ASSERT_EQ(ShowSshCommand(*session_, "3f2a", {}, env_, out, err).value_or(-1), 0);
  fs::path key = dir_ / "cache" / "shell" / kOther / "key";
  ASSERT_TRUE(fs::exists(key));
  EXPECT_EQ(fs::status(key).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(out.str(), "ssh -o 'ProxyCommand=det -m " + session_->master_url() +
                           " tunnel --cert-file noverify %h' -o StrictHostKeyChecking=no -o "
                           "UserKnownHostsFile=/dev/null -tt -o IdentitiesOnly=yes -i " +
                           key.string() + " agentuser@" + kOther + "\n");
  EXPECT_TRUE(ssh_argv_.empty());  // printed, not run

  StartShellArgs show;
  show.show_ssh_command = true;
  std::ostringstream sout, serr;
  ASSERT_EQ(StartShell(*session_, show, env_, sout, serr).value_or(-1), 0);
  EXPECT_NE(sout.str().find("agentuser@" + kLaunched), std::string::npos);
  EXPECT_TRUE(ssh_argv_.empty());
}

TEST_F(InteractiveOpsTest, OpenShellPassesTheSshArguments) {
  std::ostringstream out, err;
  ASSERT_EQ(
      OpenShell(*session_, kOther, {"-L", "8888:localhost:8888"}, env_, out, err).value_or(-1), 0);
  ASSERT_GE(ssh_argv_.size(), 2u);
  EXPECT_EQ(ssh_argv_[ssh_argv_.size() - 2], "-L");
  EXPECT_EQ(std::count(ssh_argv_.begin(), ssh_argv_.end(), "-tt"), 1);  // a login: a terminal
  EXPECT_EQ(Calls()[0], "GET /api/v1/tasks/" + kOther);  // a full id needs no listing
}

TEST_F(InteractiveOpsTest, SharedOperationsUseTheKindsPaths) {
  std::ostringstream mine, killed;
  ASSERT_EQ(ListNtsc(*session_, kShellListing, {.quiet = true}, mine).value_or(-1), 0);
  EXPECT_EQ(mine.str(), kOther + "\n");
  EXPECT_EQ(Calls().back(), "GET /api/v1/shells?users=alice&offset=0&limit=1000");
  ASSERT_EQ(
      KillNtsc(*session_, kNotebookListing, {"3f2a", "zz"}, killed, /*force=*/true).value_or(-1),
      0);
  EXPECT_EQ(killed.str(),
            "Killed notebook " + kOther + "\nSkipping: no notebook with id starting with \"zz\"\n");
  absl::StatusOr<int> two = KillNtsc(*session_, kTensorboardListing, {"yy", "zz"}, killed);
  EXPECT_EQ(two.status().message().substr(0, 31), "2 tensorboards were not killed:");
}

TEST(ServiceUrlTest, MasterPlusServiceAddress) {
  EXPECT_EQ(ServiceUrl("http://m:8080", json{{"id", "x"}, {"serviceAddress", "/proxy/x/?token=t"}}),
            "http://m:8080/proxy/x/?token=t");
  EXPECT_EQ(ServiceUrl("https://m:8443/", json{{"id", "x"}, {"serviceAddress", "/proxy/x/"}}),
            "https://m:8443/proxy/x/");
  EXPECT_EQ(ServiceUrl("http://m:8080", json{{"id", "x"}}), "http://m:8080/proxy/x/");
  EXPECT_EQ(ServiceUrl("http://m:8080", json{{"id", "x"}, {"serviceAddress", "proxy/x/"}}),
            "http://m:8080/proxy/x/");
  EXPECT_EQ(ServiceUrl("http://m:8080", json{{"serviceAddress", "https://elsewhere/x"}}),
            "https://elsewhere/x");
}

TEST(LaunchRequestTest, KindsAddTheirOwnFields) {
  StartNotebookArgs nb;
  EXPECT_EQ(BuildNotebookRequest(nb, nullptr).value_or(json()), json::parse(R"({"config": {}})"));
  nb.preview = true;
  EXPECT_EQ(BuildNotebookRequest(nb, nullptr).value_or(json())["preview"], true);
  StartTensorboardArgs tb;
  tb.trial_ids = {9};
  EXPECT_EQ(BuildTensorboardRequest(tb, nullptr).value_or(json()),
            json::parse(R"({"config": {}, "experimentIds": [], "trialIds": [9]})"));
  StartShellArgs sh;
  sh.volumes = {"bad"};
  EXPECT_EQ(BuildShellRequest(sh, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace det::cli
