#pragma once
// Test-only: a fixture whose Session talks to a FakeHttpServer answered by the test's Serve(), with
// a temporary directory for the token cache and the test's files.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

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

}  // namespace det::cli
