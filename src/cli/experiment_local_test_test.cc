#include "cli/experiment_local_test.h"
#include "common/test_temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <nlohmann/json.hpp>

namespace det::cli {
namespace {

using ::testing::HasSubstr;

class ExperimentLocalTestTest : public ::testing::Test {
 protected:

  CreateExperimentArgs Args(const std::string& yaml) {
    std::ofstream(dir_ / "const.yaml") << yaml;
    CreateExperimentArgs args;
    args.config_file = (dir_ / "const.yaml").string();
    return args;
  }

  TestTempDir tmp_{"det_local_test"};
  const std::filesystem::path dir_ = tmp_.path();
};

TEST_F(ExperimentLocalTestTest, TheConfigWithItsOverridesIsTestedThroughTheHarness) {
  CreateExperimentArgs args = Args("entrypoint: model_def:DigitsTrial\nhyperparameters:\n  lr: 0.1\n");
  args.overrides = {"hyperparameters.lr=0.5"};
  absl::StatusOr<nlohmann::json> config = LocalTestConfig(args, /*test_mode=*/true);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ((*config)["hyperparameters"]["lr"], 0.5);
  std::vector<std::string> argv = LocalTestCommand("model_def:DigitsTrial", "/tmp/c.json");
  ASSERT_EQ(argv.size(), 6u);
  EXPECT_THAT(argv[0], HasSubstr("python3"));
  EXPECT_EQ(std::vector<std::string>(argv.begin() + 1, argv.end()),
            (std::vector<std::string>{"-m", "determined.exec.harness", "--local-test", "/tmp/c.json",
                                      "model_def:DigitsTrial"}));
}

TEST_F(ExperimentLocalTestTest, OnlyTestModeOfTrialClassesRunsLocally) {
  CreateExperimentArgs trial = Args("entrypoint: model_def:DigitsTrial\n");
  absl::StatusOr<nlohmann::json> training = LocalTestConfig(trial, /*test_mode=*/false);
  EXPECT_EQ(training.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(training.status().message(), HasSubstr("--local without --test"));

  CreateExperimentArgs script = Args("entrypoint: python3 train.py\n");
  absl::StatusOr<nlohmann::json> refused = LocalTestConfig(script, /*test_mode=*/true);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("Trial classes only"));
  EXPECT_THAT(refused.status().message(), HasSubstr("python3 train.py"));

  CreateExperimentArgs missing;
  missing.config_file = (dir_ / "nope.yaml").string();
  EXPECT_EQ(LocalTestConfig(missing, true).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace det::cli
