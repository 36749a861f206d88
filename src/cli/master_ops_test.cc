#include "cli/master_ops.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command_context.h"
#include "cli/session.h"
#include "cli/fake_http_server_test_util.h"
#include "common/test_temp_dir.h"

namespace det::cli {
namespace {

using nlohmann::json;

// A master with a blank-password "determined" user that serves /api/v1/master/config and
// /api/v1/master to bearers of its one token.
class MasterOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("DET_AUTH_FILE", (dir_ / "auth.json").c_str(), 1);
    ::unsetenv("DET_PASS");
    ::unsetenv("DET_USER");
    server_ = std::make_unique<FakeHttpServer>([this](const FakeRequest& r) -> FakeResponse {
      if (r.target == "/api/v1/auth/login") {
        return {200, R"({"token":"tok","user":{"username":"determined"}})"};
      }
      auto auth = r.headers.find("authorization");
      if (auth == r.headers.end() || auth->second != "Bearer tok") {
        return {401, R"({"error":{"code":16,"reason":"Unauthenticated","error":"no"}})"};
      }
      if (r.target == "/api/v1/master/config") {
        return {200, R"({"config":{"port":8080,"db":{"password":"********","type":"sqlite"}}})"};
      }
      if (r.target == "/api/v1/master") return {200, R"({"version":"0.38.1","clusterName":"c"})"};
      if (r.target.rfind("/api/v1/master/logs", 0) == 0) {
        logs_target_ = r.target;
        return {200,
                R"({"result":{"logEntry":{"id":"7","message":"agent a1 connected","timestamp":"2026-11-22T10:00:00Z","level":"LOG_LEVEL_INFO"}}})"
                "\n"
                R"({"result":{"logEntry":{"id":"8","message":"disk full","timestamp":"2026-11-22T10:00:01Z","level":"LOG_LEVEL_ERROR"}}})"
                "\n"};
      }
      return {404, R"({"error":{"code":5,"reason":"NotFound","error":"no route"}})"};
    });
    ctx_.flags.master = server_->url();
  }
  void TearDown() override {
    server_.reset();
    ::unsetenv("DET_AUTH_FILE");
  }

  TestTempDir tmp_{"det_cli_master"};
  const std::filesystem::path dir_ = tmp_.path();
  std::unique_ptr<FakeHttpServer> server_;
  CommandContext ctx_;
  std::string logs_target_;  // written by the server thread before it answers
};

TEST_F(MasterOpsTest, ConfigPrintsYamlByDefaultAndJsonOnRequest) {
  std::ostringstream yaml;
  ASSERT_EQ(MasterConfig(ctx_, MasterOutput::kYaml, yaml).value_or(-1), 0);
  EXPECT_NE(yaml.str().find("port: 8080\n"), std::string::npos) << yaml.str();
  EXPECT_NE(yaml.str().find("password: \"********\""), std::string::npos) << yaml.str();
  EXPECT_EQ(yaml.str().find("config:"), std::string::npos);  // the inner object only

  std::ostringstream out;
  ASSERT_EQ(MasterConfig(ctx_, MasterOutput::kJson, out).value_or(-1), 0);
  json parsed = json::parse(out.str());
  EXPECT_EQ(parsed["port"], 8080);
  EXPECT_EQ(parsed["db"]["type"], "sqlite");
}

TEST_F(MasterOpsTest, InfoPrintsTheMasterInfo) {
  std::ostringstream out;
  ASSERT_EQ(MasterInfo(ctx_, MasterOutput::kJson, out).value_or(-1), 0);
  EXPECT_EQ(json::parse(out.str())["clusterName"], "c");
}

TEST_F(MasterOpsTest, VersionShowsTheClientsAndTheMasters) {
  std::ostringstream out, err;
  ASSERT_EQ(Version(ctx_, MasterOutput::kJson, out, err).value_or(-1), 0);
  json parsed = json::parse(out.str());
  EXPECT_EQ(parsed["client"]["version"], "0.38.1");
  EXPECT_EQ(parsed["master"]["clusterName"], "c");
  EXPECT_EQ(parsed["master_address"], ctx_.MasterUrl());
  EXPECT_TRUE(err.str().empty()) << err.str();
}

TEST_F(MasterOpsTest, VersionWithoutAMasterStillShowsTheClients) {
  CommandContext nowhere;
  nowhere.flags.master = "http://127.0.0.1:1";
  std::ostringstream out, err;
  ASSERT_EQ(Version(nowhere, MasterOutput::kYaml, out, err).value_or(-1), 0);
  EXPECT_NE(out.str().find("version: 0.38.1"), std::string::npos) << out.str();
  EXPECT_NE(err.str().find("Warning: cannot reach the master at http://127.0.0.1:1"), std::string::npos) << err.str();
}

TEST_F(MasterOpsTest, LogsPrintsOneLinePerEntryAndAsksForTheTail) {
  std::ostringstream out;
  ASSERT_EQ(MasterLogs(ctx_, false, 2, out).value_or(-1), 0);
  EXPECT_EQ(out.str(),
            "2026-11-22T10:00:00Z [INFO]: agent a1 connected\n"
            "2026-11-22T10:00:01Z [ERROR]: disk full\n");
  EXPECT_EQ(logs_target_, "/api/v1/master/logs?offset=-2");
  std::ostringstream followed;
  ASSERT_EQ(MasterLogs(ctx_, true, std::nullopt, followed).value_or(-1), 0);
  EXPECT_EQ(logs_target_, "/api/v1/master/logs?follow=true");
  EXPECT_EQ(MasterLogs(ctx_, false, -1, out).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(MasterOpsTest, AStreamRefusedWithAnErrorKeepsTheMastersMessage) {
  absl::Status s = ctx_.session().Stream("/api/v1/tasks/nope/logs", [](const json&) { return true; });
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "no route");
}

}  // namespace
}  // namespace det::cli
