#include "cli/session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/fake_http_server_test_util.h"
#include "cli/token_cache.h"
#include "common/crypto.h"
#include "common/test_temp_dir.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A master that knows users "determined" (blank password) and "alice" (password "pw"), and accepts
// the tokens in `valid_tokens`.
class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<FakeHttpServer>([this](const FakeRequest& r) { return Serve(r); });
  }
  void TearDown() override {
    server_.reset();
  }

  FakeResponse Serve(const FakeRequest& r) {
    std::lock_guard<std::mutex> lock(mu_);
    if (r.target == "/api/v1/auth/login") {
      json b = json::parse(r.body);
      std::string user = b["username"];
      std::string want = user == "alice" ? ClientSidePasswordHash("pw") : "";
      if (b["isHashed"] != true || b["password"] != want ||
          (user != "alice" && user != "determined")) {
        return {
            401,
            R"({"error":{"code":16,"reason":"Unauthenticated","error":"invalid credentials"}})"};
      }
      std::string token = "tok-" + user + "-" + std::to_string(++logins_);
      valid_[token] = user;
      return {200, json{{"token", token}, {"user", {{"username", user}}}}.dump()};
    }
    auto auth = r.headers.find("authorization");
    std::string token = auth == r.headers.end() ? "" : auth->second.substr(7);
    if (!valid_.count(token)) {
      return {401,
              R"({"error":{"code":16,"reason":"Unauthenticated","error":"invalid credentials"}})"};
    }
    if (r.target == "/api/v1/me")
      return {200, json{{"user", {{"username", valid_[token]}}}}.dump()};
    if (r.target == "/api/v1/auth/logout") {
      valid_.erase(token);
      return {200, "{}"};
    }
    return {404, R"({"error":{"code":5,"reason":"NotFound","error":"nope"}})"};
  }

  SessionOptions Options(const std::string& user = "") {
    SessionOptions o;
    o.master_url = server_->url();
    o.user = user;
    o.auth_file = dir_ / "auth.json";
    return o;
  }

  std::string Me(Session& s) {
    absl::StatusOr<json> me = s.Get("/api/v1/me");
    EXPECT_TRUE(me.ok()) << me.status();
    return me.ok() ? (*me)["user"]["username"].get<std::string>() : "";
  }

  int Logins() {
    int n = 0;
    for (const FakeRequest& r : server_->requests()) n += r.target == "/api/v1/auth/login";
    return n;
  }

  std::optional<CachedLogin> Cached() {
    absl::StatusOr<TokenCache> c = TokenCache::Load(dir_ / "auth.json");
    return c.ok() ? c->Get(server_->url()) : std::nullopt;
  }

  TestTempDir tmp_{"det_cli_session"};
  const fs::path dir_ = tmp_.path();
  std::unique_ptr<FakeHttpServer> server_;
  std::mutex mu_;
  std::map<std::string, std::string> valid_;
  int logins_ = 0;
};

TEST_F(SessionTest, LogsInAsDeterminedWithBlankPasswordAndCachesTheToken) {
  Session s(Options());
  EXPECT_EQ(Me(s), "determined");
  EXPECT_EQ(s.username(), "determined");
  EXPECT_EQ(Logins(), 1);
  ASSERT_TRUE(Cached().has_value());
  EXPECT_EQ(Cached()->username, "determined");

  Session again(Options());  // a later `det` run reuses the cached token
  EXPECT_EQ(Me(again), "determined");
  EXPECT_EQ(Logins(), 1);
}

TEST_F(SessionTest, RejectedCachedTokenTriggersOneFreshLogin) {
  TokenCache c = TokenCache::Empty(dir_ / "auth.json");
  c.Set(server_->url(), {"determined", "expired"});
  ASSERT_TRUE(c.Save().ok());
  Session s(Options());
  EXPECT_EQ(Me(s), "determined");
  EXPECT_EQ(Logins(), 1);
  EXPECT_NE(Cached()->token, "expired");
}

TEST_F(SessionTest, InsideATaskTheTaskUsersTokenIsUsedWithoutALoginOrTheCache) {
  {
    Session s(Options());  // caches a login of "determined"
    EXPECT_EQ(Me(s), "determined");
  }
  valid_["task-token"] = "alice";
  SessionOptions o = Options();
  o.task_login = CachedLogin{"alice", "task-token"};
  Session s(o);
  EXPECT_EQ(Me(s), "alice");
  EXPECT_EQ(Logins(), 1);
  EXPECT_EQ(Cached()->username, "determined");  // the task's token is never cached

  SessionOptions as_task_user = Options("alice");
  as_task_user.task_login = o.task_login;
  Session same_user(as_task_user);
  EXPECT_EQ(Me(same_user), "alice");
  EXPECT_EQ(Logins(), 1);

  SessionOptions other = Options("determined");  // -u for another user logs in as that user
  other.task_login = o.task_login;
  Session other_user(other);
  EXPECT_EQ(Me(other_user), "determined");
}

TEST_F(SessionTest, ARejectedTaskTokenIsReportedNotReplacedByALogin) {
  SessionOptions o = Options();
  o.task_login = CachedLogin{"alice", "revoked"};
  Session s(o);
  absl::StatusOr<json> me = s.Get("/api/v1/me");
  EXPECT_TRUE(absl::IsUnauthenticated(me.status())) << me.status();
  EXPECT_EQ(Logins(), 0);
}

TEST_F(SessionTest, WantedUserOtherThanCachedLogsInAgain) {
  {
    Session s(Options());
    EXPECT_EQ(Me(s), "determined");
  }
  SessionOptions o = Options("alice");
  o.password = "pw";
  Session s(o);
  EXPECT_EQ(Me(s), "alice");
  EXPECT_EQ(Cached()->username, "alice");
}

TEST_F(SessionTest, AsksForThePasswordOnlyAfterABlankOneFails) {
  SessionOptions o = Options("alice");
  int asked = 0;
  o.ask_password = [&](const std::string& user) -> absl::StatusOr<std::string> {
    ++asked;
    EXPECT_EQ(user, "alice");
    return std::string("pw");
  };
  Session s(o);
  EXPECT_EQ(Me(s), "alice");
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(Logins(), 2);
}

TEST_F(SessionTest, FailedLoginExplainsHowToFixIt) {
  Session s(Options("alice"));
  absl::StatusOr<json> me = s.Get("/api/v1/me");
  ASSERT_FALSE(me.ok());
  EXPECT_EQ(me.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_NE(me.status().message().find("det user login alice"), std::string::npos) << me.status();
  EXPECT_NE(me.status().message().find(server_->url()), std::string::npos);
}

TEST_F(SessionTest, ServerErrorsPassThrough) {
  Session s(Options());
  absl::StatusOr<json> r = s.Get("/api/v1/other");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "nope");
}

TEST_F(SessionTest, LoginAsAndLogout) {
  Session s(Options());
  ASSERT_TRUE(s.LoginAs("alice", "pw").ok());
  EXPECT_EQ(Cached()->username, "alice");
  EXPECT_EQ(Me(s), "alice");
  EXPECT_FALSE(s.LoginAs("alice", "wrong").ok());
  ASSERT_TRUE(s.Logout().ok());
  EXPECT_FALSE(Cached().has_value());
  bool logged_out = false;
  for (const FakeRequest& r : server_->requests()) logged_out |= r.target == "/api/v1/auth/logout";
  EXPECT_TRUE(logged_out);
}

TEST_F(SessionTest, UnreachableMasterIsNamed) {
  SessionOptions o = Options();
  o.master_url = "http://127.0.0.1:1";
  Session s(o);
  absl::StatusOr<json> r = s.Get("/api/v1/me");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("http://127.0.0.1:1"), std::string::npos);
}

}  // namespace
}  // namespace det::cli
