#include "cli/trial_support_bundle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fake_master_test_fixture.h"
#include "common/archive.h"

namespace det::cli {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

// A master with trial 7 of experiment 3, two trial log lines and one master log line.
class TrialSupportBundleTest : public FakeMasterTest {
 protected:
  FakeResponse Serve(const FakeRequest& r) override {
    if (r.target == "/api/v1/auth/login") return {200, R"({"token":"t","user":{"username":"u"}})"};
    if (r.target == "/api/v1/trials/7") return {200, R"({"trial":{"id":7,"experimentId":3}})"};
    if (r.target == "/api/v1/experiments/3") return {200, R"({"experiment":{"id":3,"name":"digits"}})"};
    if (r.target == "/api/v1/trials/7/logs") {
      return {200, R"({"result":{"trialId":7,"message":"epoch 1\n"}})"
                   "\n"
                   R"({"result":{"trialId":7,"message":"epoch 2\n"}})"
                   "\n"};
    }
    if (r.target == "/api/v1/master/logs") {
      return {200, R"({"result":{"logEntry":{"timestamp":"2026-01-02T03:04:05Z","level":"LOG_LEVEL_INFO","message":"trial 7 started"}}})"
                   "\n"};
    }
    return {404, R"({"error":{"code":5,"reason":"NotFound","error":"not found"}})"};
  }

  static std::map<std::string, std::string> Unpacked(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    absl::StatusOr<std::vector<ArchiveEntry>> entries = ReadTarGz(bytes.str());
    EXPECT_TRUE(entries.ok()) << entries.status();
    std::map<std::string, std::string> files;
    for (const ArchiveEntry& e : entries.value_or(std::vector<ArchiveEntry>{})) {
      if (!e.is_directory) files[e.path] = e.content;
    }
    return files;
  }
};

TEST_F(TrialSupportBundleTest, HoldsTheLogsTheTrialAndItsExperiment) {
  absl::Time now = absl::FromUnixSeconds(1767323045);
  absl::StatusOr<std::filesystem::path> path = WriteTrialSupportBundle(*session_, 7, dir_, now);
  ASSERT_TRUE(path.ok()) << path.status();
  std::string name = SupportBundleName(7, now);
  EXPECT_THAT(name, ::testing::MatchesRegex("det-bundle-trial-7-[0-9]{8}T[0-9]{6}"));
  EXPECT_EQ(*path, dir_ / (name + ".tar.gz"));

  std::map<std::string, std::string> files = Unpacked(*path);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[name + "/trial_logs.txt"], "epoch 1\nepoch 2\n");
  EXPECT_EQ(files[name + "/master_logs.txt"], "2026-01-02T03:04:05Z [INFO]: trial 7 started\n");
  EXPECT_EQ(json::parse(files[name + "/api_trial_call.json"])["experimentId"], 3);
  EXPECT_EQ(json::parse(files[name + "/api_experiment_call.json"])["experiment"]["name"], "digits");
}

TEST_F(TrialSupportBundleTest, AMissingDirectoryOrTrialWritesNothing) {
  absl::StatusOr<std::filesystem::path> path = WriteTrialSupportBundle(*session_, 7, dir_ / "nope", absl::Now());
  EXPECT_EQ(path.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(path.status().message(), HasSubstr("nope"));

  path = WriteTrialSupportBundle(*session_, 8, dir_, absl::Now());
  EXPECT_FALSE(path.ok());
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    EXPECT_NE(entry.path().extension(), ".gz") << entry.path();
  }
}

}  // namespace
}  // namespace det::cli
