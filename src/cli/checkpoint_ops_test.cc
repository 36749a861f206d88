#include "cli/checkpoint_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "cli/fake_master_test_fixture.h"

namespace det::cli {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

constexpr char kUuid[] = "0f1e2d3c-aaaa-bbbb-cccc-000000000001";

// A master with experiment 3 whose shared_fs storage is a directory of the test, holding one
// checkpoint with a file and a subdirectory.
class CheckpointOpsTest : public FakeMasterTest {
 protected:
  void SetUp() override {
    FakeMasterTest::SetUp();
    std::filesystem::create_directories(dir_ / "storage" / kUuid / "sub");
    std::ofstream(dir_ / "storage" / kUuid / "weights") << "0123456789";
    std::ofstream(dir_ / "storage" / kUuid / "sub" / "state") << "xy";
  }

  json Checkpoint() const {
    return {{"uuid", kUuid},
            {"state", "STATE_COMPLETED"},
            {"reportTime", "2026-11-22T10:00:00Z"},
            {"resources", {{"weights", "10"}, {"sub/", "0"}, {"sub/state", "2"}}},
            {"metadata", {{"steps_completed", 40}}},
            {"training", {{"trialId", 7}, {"experimentId", 3}}}};
  }

  FakeResponse Serve(const FakeRequest& r) override {
    if (r.target == "/api/v1/auth/login") return {200, R"({"token":"t","user":{"username":"u"}})"};
    if (r.target == "/api/v1/experiments/3") {
      json storage = {{"type", storage_type_}, {"host_path", (dir_ / "storage").string()}};
      return {200, json{{"experiment", {{"id", 3}}}, {"config", {{"checkpoint_storage", storage}}}}.dump()};
    }
    if (r.target == "/api/v1/experiments/3/checkpoints") {
      return {200, json{{"checkpoints", json::array({Checkpoint()})}}.dump()};
    }
    if (r.target == std::string("/api/v1/checkpoints/") + kUuid) {
      return {200, json{{"checkpoint", Checkpoint()}}.dump()};
    }
    if (r.method == "DELETE" && r.target == "/api/v1/checkpoints") {
      deletes_.push_back(json::parse(r.body));
      return {200, "{}"};
    }
    if (r.method == "POST" && r.target == "/api/v1/checkpoints/rm") {
      removals_.push_back(json::parse(r.body));
      return {200, "{}"};
    }
    return {404, R"({"error":{"code":5,"reason":"NotFound","error":"checkpoint not found"}})"};
  }

  std::string storage_type_ = "shared_fs";
  std::vector<json> deletes_;   // bodies of DELETE /api/v1/checkpoints
  std::vector<json> removals_;  // bodies of POST /api/v1/checkpoints/rm
};

TEST_F(CheckpointOpsTest, ListShowsEachCheckpointWithItsLocation) {
  std::ostringstream out;
  ASSERT_EQ(ListCheckpoints(*session_, 3, OutputFormat::kTable, out).value_or(-1), 0);
  EXPECT_THAT(out.str(), HasSubstr(kUuid));
  EXPECT_THAT(out.str(), HasSubstr((dir_ / "storage" / kUuid).string()));
  EXPECT_THAT(out.str(), HasSubstr("COMPLETED"));
  std::ostringstream js;
  ASSERT_EQ(ListCheckpoints(*session_, 3, OutputFormat::kJson, js).value_or(-1), 0);
  EXPECT_EQ(json::parse(js.str())[0]["uuid"], kUuid);
}

TEST_F(CheckpointOpsTest, DescribeShowsTheFieldsOrTheJson) {
  std::ostringstream out;
  ASSERT_EQ(DescribeCheckpoint(*session_, kUuid, false, out).value_or(-1), 0);
  EXPECT_THAT(out.str(), HasSubstr("Trial ID"));
  EXPECT_THAT(out.str(), HasSubstr("12.0B")) << out.str();
  std::ostringstream js;
  ASSERT_EQ(DescribeCheckpoint(*session_, kUuid, true, js).value_or(-1), 0);
  EXPECT_EQ(json::parse(js.str())["metadata"]["steps_completed"], 40);
  EXPECT_EQ(DescribeCheckpoint(*session_, "nope", false, out).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(CheckpointOpsTest, DownloadCopiesEveryFile) {
  std::ostringstream out;
  std::filesystem::path target = dir_ / "out";
  ASSERT_EQ(DownloadCheckpoint(*session_, kUuid, target.string(), false, out).value_or(-1), 0);
  EXPECT_EQ(out.str(), "Local checkpoint path: " + target.string() + "\n");
  std::ifstream weights(target / "weights");
  std::string text((std::istreambuf_iterator<char>(weights)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "0123456789");
  EXPECT_TRUE(std::filesystem::exists(target / "sub" / "state"));
}

TEST_F(CheckpointOpsTest, DownloadRefusesStorageItCannotRead) {
  std::filesystem::remove(dir_ / "storage" / kUuid / "weights");
  std::ostringstream out;
  EXPECT_EQ(DownloadCheckpoint(*session_, kUuid, (dir_ / "out").string(), false, out).status().code(),
            absl::StatusCode::kDataLoss)
      << "a reported file that is not there";
  std::filesystem::remove_all(dir_ / "storage" / kUuid);
  absl::Status gone = DownloadCheckpoint(*session_, kUuid, (dir_ / "out1").string(), false, out).status();
  EXPECT_EQ(gone.code(), absl::StatusCode::kNotFound) << gone;
  EXPECT_THAT(gone.message(), HasSubstr((dir_ / "storage" / kUuid).string()));
  storage_type_ = "gcs";
  absl::Status gcs = DownloadCheckpoint(*session_, kUuid, (dir_ / "out2").string(), false, out).status();
  EXPECT_EQ(gcs.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(gcs.message(), HasSubstr("det cannot read its storage: checkpoint_storage.type gcs"));
  // s3 is downloaded (tests/e2e/test_s3_storage.py); a config without a bucket says so.
  storage_type_ = "s3";
  absl::Status s3 = DownloadCheckpoint(*session_, kUuid, (dir_ / "out3").string(), false, out).status();
  EXPECT_EQ(s3.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s3.message(), HasSubstr("checkpoint_storage.bucket"));
}

TEST_F(CheckpointOpsTest, DeleteSendsTheCommaSeparatedUuids) {
  std::ostringstream out;
  ASSERT_TRUE(DeleteCheckpoints(*session_, "a, b,,c", out).ok());
  ASSERT_EQ(deletes_.size(), 1u);
  EXPECT_EQ(deletes_[0], (json{{"checkpointUuids", {"a", "b", "c"}}}));
  EXPECT_EQ(out.str(), "Deletion of checkpoints a, b,,c is in progress\n");
  EXPECT_EQ(DeleteCheckpoints(*session_, " , ", out).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(deletes_.size(), 1u) << "nothing named, nothing sent";
}

TEST_F(CheckpointOpsTest, RemoveSendsTheUuidsAndEveryGlob) {
  std::ostringstream out;
  ASSERT_TRUE(RemoveCheckpointFiles(*session_, "a,b", {"optimizer/**", "*.tmp"}, out).ok());
  ASSERT_EQ(removals_.size(), 1u);
  EXPECT_EQ(removals_[0], (json{{"checkpointUuids", {"a", "b"}}, {"checkpointGlobs", {"optimizer/**", "*.tmp"}}}));
  EXPECT_EQ(out.str(), "Removal of files matching optimizer/**, *.tmp from checkpoints a,b is in progress\n");
  EXPECT_EQ(RemoveCheckpointFiles(*session_, ",", {"x"}, out).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(removals_.size(), 1u);
}

}  // namespace
}  // namespace det::cli
