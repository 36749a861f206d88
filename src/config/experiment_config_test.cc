#include "config/experiment_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::config {
namespace {

ExperimentDefaults Defaults() {
  return {.checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp/ckpt"})",
          .seed = 42,
          .name = "Experiment (test)"};
}

constexpr char kMinimal[] = R"(
entrypoint: python3 train.py
searcher:
  name: single
  metric: accuracy
hyperparameters:
  lr: 0.1
  hidden: {type: const, val: 64}
  nested:
    depth: 3
)";

TEST(ExperimentConfigTest, FillsDefaults) {
  auto cfg = ParseExperimentConfig(kMinimal, Defaults());
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->name, "Experiment (test)");
  EXPECT_EQ(cfg->entrypoint, (std::vector<std::string>{"sh", "-c", "python3 train.py"}));
  EXPECT_EQ(cfg->max_restarts, 5);
  EXPECT_EQ(cfg->slots_per_trial, 1);
  EXPECT_EQ(cfg->experiment_seed, 42u);
  EXPECT_TRUE(cfg->smaller_is_better);
  auto full = nlohmann::json::parse(cfg->full_json);
  EXPECT_EQ(full["checkpoint_storage"]["host_path"], "/tmp/ckpt");
  EXPECT_EQ(full["checkpoint_storage"]["save_trial_latest"], 1);
  auto hps = ConstHyperparameters(cfg->hyperparameters_json);
  ASSERT_TRUE(hps.ok()) << hps.status();
  EXPECT_EQ(nlohmann::json::parse(*hps),
            nlohmann::json::parse(R"({"lr":0.1,"hidden":64,"nested":{"depth":3}})"));
}

TEST(ExperimentConfigTest, ListEntrypointIsArgv) {
  auto cfg = ParseExperimentConfig(
      "entrypoint: [python3, train.py]\nsearcher: {name: single, metric: loss}\n", Defaults());
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->entrypoint, (std::vector<std::string>{"python3", "train.py"}));
}

TEST(ExperimentConfigTest, ReportsEveryProblemWithItsPath) {
  auto cfg = ParseExperimentConfig(R"(
bogus_key: 1
searcher: {name: single}
resources: {slots: 2}
max_restarts: -1
hyperparameters:
  lr: {type: uniform, minval: 0, maxval: 1}
)",
                                   Defaults());
  ASSERT_FALSE(cfg.ok());
  std::string msg(cfg.status().message());
  EXPECT_NE(msg.find("bogus_key: unknown key"), std::string::npos) << msg;
  EXPECT_NE(msg.find("entrypoint: required"), std::string::npos) << msg;
  EXPECT_NE(msg.find("searcher.metric: required"), std::string::npos) << msg;
  EXPECT_NE(msg.find("resources: unknown key \"slots\" (experiments use resources.slots_per_trial)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("max_restarts: must be >= 0, got -1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("hyperparameters.lr: unknown type \"uniform\"; expected one of const, int, double, "
                     "log, categorical"),
            std::string::npos)
      << msg;
}

TEST(ExperimentConfigTest, SyntaxErrorNamesLine) {
  auto cfg = ParseExperimentConfig("entrypoint: x\nsearcher: {name: single\n", Defaults());
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("line"), std::string::npos);
}

TEST(ExperimentConfigTest, RemovedSearcherIsRefused) {
  auto cfg = ParseExperimentConfig("entrypoint: x\nsearcher: {name: custom, metric: m}\n", Defaults());
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("the 'custom' searcher has been removed"), std::string::npos);
}

TEST(ExperimentConfigTest, SampledHyperparameterNeedsASearcher) {
  auto hps = ConstHyperparameters(R"({"lr":{"type":"double","minval":0,"maxval":1}})");
  ASSERT_FALSE(hps.ok());
  EXPECT_NE(hps.status().message().find("hyperparameters.lr"), std::string::npos);
}

TEST(ExperimentConfigTest, EmptyOrNonMappingIsRefused) {
  EXPECT_FALSE(ParseExperimentConfig("", Defaults()).ok());
  EXPECT_FALSE(ParseExperimentConfig("- a\n- b\n", Defaults()).ok());
}

}  // namespace
}  // namespace det::config
