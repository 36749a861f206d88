#include "cli/user_ops.h"

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/experiment_ops.h"
#include "cli/fake_master_test_fixture.h"
#include "cli/session.h"
#include "common/crypto.h"

namespace det::cli {
namespace {

using nlohmann::json;

// A master with login, the user routes over an in-memory list, and one experiment for the
// set/label commands.
class UserOpsTest : public FakeMasterTest {
 protected:
  void SetUp() override {
    users_ = {{{"id", 1},
               {"username", "admin"},
               {"displayName", ""},
               {"admin", true},
               {"active", true},
               {"remote", false}},
              {{"id", 2},
               {"username", "determined"},
               {"displayName", "Det"},
               {"admin", false},
               {"active", true},
               {"remote", false}}};
    experiment_ = {{"id", 7}, {"name", "e"}, {"labels", {"keep"}}};
    user_ = "admin";
    FakeMasterTest::SetUp();
  }

  FakeResponse Serve(const FakeRequest& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(r);
    if (r.target == "/api/v1/auth/login")
      return {200, R"({"token":"t","user":{"username":"admin"}})"};
    if (r.method == "GET" && r.target.rfind("/api/v1/users?", 0) == 0) {
      return {200, json{{"users", users_}, {"pagination", json::object()}}.dump()};
    }
    if (r.method == "POST" && r.target == "/api/v1/users") {
      json b = json::parse(r.body);
      json u = b["user"];
      u["id"] = static_cast<int>(users_.size()) + 1;
      users_.push_back(u);
      return {200, json{{"user", u}}.dump()};
    }
    for (json& u : users_) {
      std::string by_name = "/api/v1/users/" + u["username"].get<std::string>() + "/by-username";
      std::string by_id = "/api/v1/users/" + std::to_string(u["id"].get<int>());
      if (r.method == "GET" && r.target == by_name) return {200, json{{"user", u}}.dump()};
      if (r.method == "PATCH" && r.target == by_id) {
        u.update(json::parse(r.body));
        return {200, json{{"user", u}}.dump()};
      }
      if (r.method == "POST" && r.target == by_id + "/password")
        return {200, json{{"user", u}}.dump()};
    }
    if (r.target == "/api/v1/experiments/7") {
      if (r.method == "PATCH") experiment_.update(json::parse(r.body));
      return {200, json{{"experiment", experiment_}}.dump()};
    }
    if (r.target == "/api/v1/experiments/8") {
      return {
          403,
          R"({"error":{"code":7,"reason":"PermissionDenied","error":"user bob is not the owner of experiment 8 and is not an admin"}})"};
    }
    return {404, R"({"error":{"code":5,"error":"user not found"}})"};
  }

  std::vector<FakeRequest> Writes() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<FakeRequest> out;
    for (const FakeRequest& r : requests_) {
      if (r.method != "GET" && r.target != "/api/v1/auth/login") out.push_back(r);
    }
    return out;
  }

  std::mutex mu_;
  std::vector<FakeRequest> requests_;
  json users_;
  json experiment_;
};

TEST_F(UserOpsTest, CreateSendsTheClientSideHash) {
  std::ostringstream out;
  ASSERT_TRUE(
      CreateUser(*session_, {.username = "alice", .admin = true, .password = "pw"}, out).ok());
  auto writes = Writes();
  ASSERT_EQ(writes.size(), 1u);
  json body = json::parse(writes[0].body);
  EXPECT_EQ(body["user"]["username"], "alice");
  EXPECT_EQ(body["user"]["admin"], true);
  EXPECT_EQ(body["password"], ClientSidePasswordHash("pw"));
  EXPECT_EQ(body["isHashed"], true);
  ASSERT_TRUE(
      CreateUser(*session_, {.username = "blank", .admin = false, .password = std::nullopt}, out)
          .ok());
  EXPECT_EQ(json::parse(Writes()[1].body)["password"], "");
}

TEST_F(UserOpsTest, ListRendersUpstreamTableAndJson) {
  std::ostringstream out;
  ASSERT_TRUE(ListUsers(*session_, /*json=*/false, out).ok());
  EXPECT_EQ(out.str(),
            " Username   | Display Name | Admin | Active | Remote\n"
            "------------+--------------+-------+--------+--------\n"
            " admin      |              | True  | True   | False\n"
            " determined | Det          | False | True   | False\n");
  std::ostringstream js;
  ASSERT_TRUE(ListUsers(*session_, /*json=*/true, js).ok());
  EXPECT_EQ(json::parse(js.str()).size(), 2u);
}

TEST_F(UserOpsTest, ActivateDeactivateRenameEdit) {
  std::ostringstream out;
  ASSERT_TRUE(SetUserActive(*session_, "determined", false, out).ok());
  EXPECT_EQ(users_[1]["active"], false);
  ASSERT_TRUE(SetUserActive(*session_, "determined", true, out).ok());
  EXPECT_EQ(users_[1]["active"], true);
  ASSERT_TRUE(EditUser(*session_, "determined", "Deter", out).ok());
  EXPECT_EQ(users_[1]["displayName"], "Deter");
  EXPECT_FALSE(EditUser(*session_, "determined", std::nullopt, out).ok());
  ASSERT_TRUE(RenameUser(*session_, "determined", "det2", out).ok());
  EXPECT_EQ(users_[1]["username"], "det2");
  absl::StatusOr<int> missing = SetUserActive(*session_, "nobody", true, out);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("not found"), std::string::npos) << missing.status();
  auto writes = Writes();
  ASSERT_EQ(writes.size(), 4u);
  EXPECT_EQ(writes[0].method, "PATCH");
  EXPECT_EQ(writes[0].target, "/api/v1/users/2");
  EXPECT_EQ(json::parse(writes[0].body), (json{{"active", false}}));
  EXPECT_EQ(out.str(), "");
}

TEST_F(UserOpsTest, LinkWithAgentUserPatchesTheUsersGroup) {
  std::ostringstream out;
  ASSERT_TRUE(LinkWithAgentUser(*session_, "determined", {.uid = 1000, .gid = 100, .user = "ml", .group = "users"}, out)
                  .ok());
  auto writes = Writes();
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].method, "PATCH");
  EXPECT_EQ(writes[0].target, "/api/v1/users/2");
  EXPECT_EQ(json::parse(writes[0].body),
            (json{{"agentUserGroup", {{"agentUid", 1000}, {"agentGid", 100}, {"agentUser", "ml"}, {"agentGroup", "users"}}}}));
  EXPECT_EQ(out.str(), "");
}

TEST_F(UserOpsTest, ChangePasswordPostsTheHashAsABareString) {
  std::ostringstream out;
  ASSERT_TRUE(ChangeUserPassword(*session_, "determined", "new-pw", out).ok());
  ASSERT_TRUE(ChangeUserPassword(*session_, "", "mine", out).ok());  // the logged-in user (admin)
  auto writes = Writes();
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[0].target, "/api/v1/users/2/password");
  EXPECT_EQ(json::parse(writes[0].body), json(ClientSidePasswordHash("new-pw")));
  EXPECT_EQ(writes[1].target, "/api/v1/users/1/password");
  EXPECT_EQ(json::parse(writes[1].body), json(ClientSidePasswordHash("mine")));
}

TEST_F(UserOpsTest, ExperimentSetAndLabels) {
  std::ostringstream out;
  ASSERT_TRUE(SetExperimentField(*session_, 7, "description", "hello", out).ok());
  ASSERT_TRUE(SetExperimentField(*session_, 7, "name", "renamed", out).ok());
  EXPECT_EQ(experiment_["description"], "hello");
  EXPECT_EQ(experiment_["name"], "renamed");
  ASSERT_TRUE(EditExperimentLabel(*session_, 7, "new", true, out).ok());
  EXPECT_EQ(experiment_["labels"], (json{"keep", "new"}));
  ASSERT_TRUE(EditExperimentLabel(*session_, 7, "keep", false, out).ok());
  EXPECT_EQ(experiment_["labels"], (json{"new"}));
  ASSERT_TRUE(EditExperimentLabel(*session_, 7, "absent", false, out).ok());  // nothing to do
  EXPECT_EQ(out.str(),
            "Set description of experiment 7 to 'hello'\n"
            "Set name of experiment 7 to 'renamed'\n"
            "Added label 'new' to experiment 7\n"
            "Removed label 'keep' from experiment 7\n"
            "Label 'absent' is not on experiment 7\n");
  absl::StatusOr<int> denied = SetExperimentField(*session_, 8, "name", "x", out);
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.status().message().find("not the owner of experiment 8"), std::string::npos)
      << denied.status();
}

}  // namespace
}  // namespace det::cli
