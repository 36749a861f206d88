#include "cli/generic_task_ops.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/fake_master_test_fixture.h"
#include "common/json_yaml.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* kTasks = R"j({"allocationIdToSummary": {
  "t2.a1": {"taskId": "t2", "allocationId": "t2.a1", "name": "Generic Task (b)",
            "registeredTime": "2024-05-01T10:05:00Z", "resourcePool": "gpu", "slotsNeeded": 2,
            "resources": [], "schedulerType": "priority", "proxyPorts": []},
  "1.t1.a0": {"taskId": "1.t1", "allocationId": "1.t1.a0", "name": "Trial 1 (Experiment 1)",
              "registeredTime": "2024-05-01T10:00:00Z", "resourcePool": "default",
              "slotsNeeded": 1, "resources": [], "schedulerType": "priority",
              "proxyPorts": []}}})j";

// A master with one generic task "t1" that records the bodies of its requests.
class GenericTaskOpsTest : public FakeMasterTest {
 protected:
  FakeResponse Serve(const FakeRequest& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string& t = r.target;
    if (t == "/api/v1/auth/login") return {200, R"({"token":"t","user":{"username":"alice"}})"};
    if (r.method == "POST" && t == "/api/v1/generic-tasks") {
      create_body_ = json::parse(r.body);
      return {200, R"({"taskId":"t1","warnings":[]})"};
    }
    if (r.method == "GET" && t == "/api/v1/tasks") return {200, kTasks};
    if (r.method == "GET" && t == "/api/v1/tasks/t1/config") {
      return {200, R"({"config":"{\"entrypoint\":\"python3 run.py\",\"resources\":{\"slots\":1}}"})"};
    }
    const std::set<std::string> actions = {"/api/v1/tasks/t1/kill", "/api/v1/tasks/t1/pause",
                                           "/api/v1/tasks/t1/unpause"};
    if (r.method == "POST" && actions.count(t) > 0) {
      bodies_.push_back(r.body);
      return {200, "{}"};
    }
    if (r.method == "POST" && t == "/api/v1/tasks/done/pause") {
      return {400, R"({"error":{"code":9,"error":"task done is COMPLETED, not running"}})"};
    }
    return {404, R"({"error":{"code":5,"error":"task not found"}})"};
  }

  std::string WriteFile(const std::string& rel, const std::string& text) {
    fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

  std::vector<std::string> Calls() {
    std::vector<std::string> out;
    for (const FakeRequest& r : server_->requests()) {
      if (r.target != "/api/v1/auth/login") out.push_back(r.method + " " + r.target);
    }
    return out;
  }

  std::mutex mu_;
  json create_body_;
  std::vector<std::string> bodies_;
};

TEST_F(GenericTaskOpsTest, CreateSendsTheConfigTextAndTheContext) {
  CreateGenericTaskArgs a;
  a.config_file = WriteFile("task.yaml", "# my task\nentrypoint: python3 run.py\n");
  WriteFile("ctx/run.py", "print(1)\n");
  a.context_dir = (dir_ / "ctx").string();
  a.includes = {WriteFile("data.csv", "a,b\n")};
  a.project_id = 7;
  a.fork = "t0";
  std::ostringstream out, err;
  ASSERT_EQ(CreateGenericTask(*session_, a, out, err).value_or(-1), 0);
  EXPECT_EQ(out.str(), "Created task t1\n");
  EXPECT_EQ(Calls(), std::vector<std::string>{"POST /api/v1/generic-tasks"});
  // Without overrides the file's own text is sent, comments included.
  EXPECT_EQ(create_body_["config"], "# my task\nentrypoint: python3 run.py\n");
  EXPECT_EQ(create_body_["projectId"], 7);
  EXPECT_EQ(create_body_["forkedFrom"], "t0");
  std::set<std::string> paths;
  for (const json& f : create_body_["contextDirectory"]) paths.insert(f["path"].get<std::string>());
  EXPECT_EQ(paths, (std::set<std::string>{"run.py", "data.csv"}));
}

TEST_F(GenericTaskOpsTest, OverridesAreAppliedToTheYaml) {
  CreateGenericTaskArgs a;
  a.config_file = WriteFile("task.yaml", "entrypoint: python3 run.py\n");
  a.context_dir = fs::create_directories(dir_ / "empty") ? (dir_ / "empty").string() : "";
  a.overrides = {"resources.slots=2"};
  absl::StatusOr<json> body = BuildCreateGenericTaskRequest(a, nullptr);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(ParseYaml((*body)["config"].get<std::string>()).value_or(json()),
            json::parse(R"({"entrypoint": "python3 run.py", "resources": {"slots": 2}})"));
  EXPECT_FALSE(body->contains("projectId"));
  EXPECT_FALSE(body->contains("forkedFrom"));
  EXPECT_EQ((*body)["contextDirectory"], json::array());
}

TEST_F(GenericTaskOpsTest, BadInputIsRefusedBeforeAnythingIsSent) {
  std::ostringstream out, err;
  CreateGenericTaskArgs list;
  list.config_file = WriteFile("list.yaml", "- a\n");
  list.context_dir = dir_.string();
  EXPECT_EQ(
      CreateGenericTask(*session_, list, out, err).status().message(),
      "invalid task config file " + list.config_file + ": expected a YAML mapping of settings");
  CreateGenericTaskArgs bad_override = list;
  bad_override.config_file = WriteFile("ok.yaml", "entrypoint: x\n");
  bad_override.overrides = {"=1"};
  EXPECT_EQ(CreateGenericTask(*session_, bad_override, out, err).status().code(),
            absl::StatusCode::kInvalidArgument);
  CreateGenericTaskArgs no_context = bad_override;
  no_context.overrides.clear();
  no_context.context_dir = (dir_ / "missing").string();
  EXPECT_FALSE(CreateGenericTask(*session_, no_context, out, err).ok());
  EXPECT_TRUE(Calls().empty());
}

TEST_F(GenericTaskOpsTest, ConfigPrintsTheYamlText) {
  std::ostringstream out;
  ASSERT_EQ(PrintGenericTaskConfig(*session_, "t1", out).value_or(-1), 0);
  EXPECT_EQ(out.str(), "entrypoint: python3 run.py\nresources:\n  slots: 1\n");
  absl::StatusOr<int> missing = PrintGenericTaskConfig(*session_, "t9", out);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "task not found");
}

TEST_F(GenericTaskOpsTest, KillPauseUnpausePostAnEmptyBody) {
  std::ostringstream out;
  ASSERT_EQ(ActOnGenericTask(*session_, "t1", GenericTaskAction::kKill, out).value_or(-1), 0);
  ASSERT_EQ(ActOnGenericTask(*session_, "t1", GenericTaskAction::kPause, out).value_or(-1), 0);
  ASSERT_EQ(ActOnGenericTask(*session_, "t1", GenericTaskAction::kUnpause, out).value_or(-1), 0);
  EXPECT_EQ(out.str(), "Killed task t1\nPaused task t1\nUnpaused task t1\n");
  EXPECT_EQ(Calls(),
            (std::vector<std::string>{"POST /api/v1/tasks/t1/kill", "POST /api/v1/tasks/t1/pause",
                                      "POST /api/v1/tasks/t1/unpause"}));
  EXPECT_EQ(bodies_, (std::vector<std::string>{"{}", "{}", "{}"}));
  absl::StatusOr<int> refused = ActOnGenericTask(*session_, "done", GenericTaskAction::kPause, out);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(), "task done is COMPLETED, not running");
}

TEST_F(GenericTaskOpsTest, ListIsOldestFirst) {
  std::ostringstream out, csv, as_json;
  ASSERT_EQ(ListTasks(*session_, OutputFormat::kTable, out).value_or(-1), 0);
  EXPECT_EQ(
      out.str(),
      " Task ID | Allocation ID | Name                   | Slots Needed | Registered Time     "
      "     | Resource Pool\n"
      "---------+---------------+------------------------+--------------+--------------------"
      "------+---------------\n"
      " 1.t1    | 1.t1.a0       | Trial 1 (Experiment 1) |            1 | 2024-05-01 10:00:00+"
      "0000 | default\n"
      " t2      | t2.a1         | Generic Task (b)       |            2 | 2024-05-01 10:05:00+"
      "0000 | gpu\n");
  ASSERT_EQ(ListTasks(*session_, OutputFormat::kCsv, csv).value_or(-1), 0);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "Task ID,Allocation ID,Name,Slots Needed,Registered Time,Resource Pool");
  ASSERT_EQ(ListTasks(*session_, OutputFormat::kJson, as_json).value_or(-1), 0);
  EXPECT_EQ(json::parse(as_json.str()), json::parse(kTasks)["allocationIdToSummary"]);
}

}  // namespace
}  // namespace det::cli
