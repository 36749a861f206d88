#pragma once
// Test-only: a fixture whose Session talks to a FakeHttpServer answered by the test's Serve(), with
// a temporary directory for the token cache and the test's files.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cli/fake_http_server_test_util.h"
#include "cli/session.h"

namespace det::cli {

class FakeMasterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/det_cli_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    server_ = std::make_unique<FakeHttpServer>([this](const FakeRequest& r) { return Serve(r); });
    SessionOptions o;
    o.master_url = server_->url();
    o.user = user_;
    o.auth_file = dir_ / "auth.json";
    session_ = std::make_unique<Session>(o);
  }
  void TearDown() override {
    session_.reset();
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Answers one request; runs on the server's thread.
  virtual FakeResponse Serve(const FakeRequest& r) = 0;

  std::string user_;  // the session's user ("" = the default); set before SetUp
  std::filesystem::path dir_;
  std::unique_ptr<FakeHttpServer> server_;
  std::unique_ptr<Session> session_;
};

// A FakeMasterTest whose session signs in as admin and whose master keeps every request after the
// login; the test answers them in Answer() (on the server's thread).
class RecordingAdminMasterTest : public FakeMasterTest {
 protected:
  void SetUp() override {
    user_ = "admin";
    FakeMasterTest::SetUp();
  }

  FakeResponse Serve(const FakeRequest& r) final {
    std::lock_guard<std::mutex> lock(mu_);
    if (r.target == "/api/v1/auth/login") return {200, R"({"token":"t","user":{"username":"admin"}})"};
    requests_.push_back(r);
    return Answer(r);
  }
  virtual FakeResponse Answer(const FakeRequest& r) = 0;

  // The requests after the login that `keep` takes, in order.
  std::vector<FakeRequest> Sent(const std::function<bool(const FakeRequest&)>& keep) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<FakeRequest> out;
    for (const FakeRequest& r : requests_) {
      if (keep(r)) out.push_back(r);
    }
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<FakeRequest> requests_;
};

}  // namespace det::cli
