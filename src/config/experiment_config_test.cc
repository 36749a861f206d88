#include "config/experiment_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/json_yaml.h"

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
  EXPECT_EQ(full["hyperparameters"]["nested"]["depth"], nlohmann::json::parse(R"({"type":"const","val":3})"));
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
  EXPECT_NE(
      msg.find("resources: unknown key \"slots\" (experiments use resources.slots_per_trial)"),
      std::string::npos)
      << msg;
  EXPECT_NE(msg.find("max_restarts: must be >= 0, got -1"), std::string::npos) << msg;
  EXPECT_NE(
      msg.find("hyperparameters.lr: unknown type \"uniform\"; expected one of const, int, double, "
               "log, categorical"),
      std::string::npos)
      << msg;
}

TEST(ExperimentConfigTest, SyntaxErrorNamesLine) {
  auto cfg = ParseExperimentConfig("entrypoint: x\nsearcher: {name: single\n", Defaults());
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("line"), std::string::npos);
}

TEST(ExperimentConfigTest, IntegersThatDoNotFit32BitsAreRefusedByTheSchema) {
  // Found by fuzz_experiment_config: the schema took it, the searcher config could not read it.
  auto cfg = ParseExperimentConfig(
      "entrypoint: x\nsearcher: {name: grid, metric: loss, max_concurrent_trials: 21474836481}\n", Defaults());
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("searcher.max_concurrent_trials: must be between -2147483648 and 2147483647"),
            std::string::npos)
      << cfg.status();
  // max_time is read as 64 bits.
  EXPECT_TRUE(ParseExperimentConfig("entrypoint: x\nsearcher: {name: adaptive_asha, metric: loss, max_trials: 2, "
                                    "max_time: 21474836481, time_metric: batches}\n",
                                    Defaults())
                  .ok());
}

TEST(ExperimentConfigTest, AshaRungsAreBoundedByTheSchemaAsByTheSearcher) {
  // Found by fuzz_experiment_config: the schema took num_rungs 332, the searcher refused it.
  auto many = ParseExperimentConfig(
      "entrypoint: x\nsearcher: {name: async_halving, metric: loss, num_rungs: 332, max_trials: 8, "
      "time_metric: batches, max_time: 100}\n",
      Defaults());
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("searcher.num_rungs: must be <= 64, got 332"), std::string::npos)
      << many.status();
  auto brackets = ParseExperimentConfig(
      "entrypoint: x\nsearcher: {name: adaptive_asha, metric: loss, max_trials: 2, bracket_rungs: [65], "
      "time_metric: batches, max_time: 100}\n",
      Defaults());
  ASSERT_FALSE(brackets.ok());
  EXPECT_NE(brackets.status().message().find("searcher.bracket_rungs[0]: must be <= 64, got 65"), std::string::npos)
      << brackets.status();
  EXPECT_TRUE(ParseExperimentConfig("entrypoint: x\nsearcher: {name: async_halving, metric: loss, num_rungs: 64, "
                                    "max_trials: 8, time_metric: batches, max_time: 100}\n",
                                    Defaults())
                  .ok());
}

TEST(ExperimentConfigTest, RemovedSearcherIsRefused) {
  auto cfg =
      ParseExperimentConfig("entrypoint: x\nsearcher: {name: custom, metric: m}\n", Defaults());
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("the 'custom' searcher has been removed"),
            std::string::npos);
}

TEST(ExperimentConfigTest, JsonEntryPointFillsTheStructForTheMaster) {
  auto input = nlohmann::json::parse(R"({
    "entrypoint": ["python3", "train.py"],
    "searcher": {"name": "adaptive_asha", "metric": "acc", "smaller_is_better": false, "max_trials": 8,
                 "time_metric": "batches", "max_time": 640, "max_concurrent_trials": 2},
    "resources": {"slots_per_trial": 2, "max_slots": 4, "weight": 0.5, "priority": 7, "is_single_node": true,
                  "resource_pool": "gpu"},
    "log_policies": [{"name": "mine", "pattern": "x", "action": {"type": "cancel_retries"}}],
    "hyperparameters": {"lr": {"type": "log", "minval": -4, "maxval": -1, "base": 10}}
  })");
  auto cfg = ParseExperimentConfigJson(input, Defaults());
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->original_yaml, "");
  EXPECT_EQ(cfg->searcher_name, "adaptive_asha");
  EXPECT_FALSE(cfg->smaller_is_better);
  EXPECT_EQ(cfg->max_trials, 8);
  EXPECT_EQ(cfg->max_concurrent_trials, 2);
  EXPECT_EQ(cfg->time_metric, "batches");
  EXPECT_EQ(cfg->max_time, 640);
  EXPECT_EQ(cfg->slots_per_trial, 2);
  EXPECT_EQ(cfg->max_slots, 4);
  EXPECT_DOUBLE_EQ(cfg->weight, 0.5);
  EXPECT_EQ(cfg->priority, 7);
  EXPECT_TRUE(cfg->is_single_node);
  EXPECT_EQ(cfg->resource_pool, "gpu");
  EXPECT_EQ(cfg->preemption_timeout, 3600);
  ASSERT_EQ(cfg->log_policies.size(), 3u);
  EXPECT_EQ(cfg->log_policies[0].action, "cancel_retries");
  EXPECT_EQ(cfg->log_policies[1].name, "CUDA OOM");
  EXPECT_EQ(cfg->log_policies[2].name, "ECC Error");
  auto searcher = nlohmann::json::parse(cfg->searcher_json);
  EXPECT_EQ(searcher["mode"], "standard");
  EXPECT_EQ(searcher["max_rungs"], 5);
  EXPECT_TRUE(cfg->warnings.empty());
}

TEST(ExperimentConfigTest, DefaultsForUnsetResourcesAndPreemption) {
  ExperimentDefaults defaults = Defaults();
  defaults.preemption_timeout = 120;
  auto cfg =
      ParseExperimentConfig("entrypoint: x\nsearcher: {name: single, metric: m}\n", defaults);
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->original_yaml, "entrypoint: x\nsearcher: {name: single, metric: m}\n");
  EXPECT_EQ(cfg->priority, 0);
  EXPECT_FALSE(cfg->max_slots.has_value());
  EXPECT_FALSE(cfg->is_single_node);
  EXPECT_EQ(cfg->max_concurrent_trials, 0);
  EXPECT_EQ(cfg->preemption_timeout, 120);
  EXPECT_EQ(nlohmann::json::parse(cfg->full_json)["preemption_timeout"], 120);
}

TEST(ExperimentConfigTest, DeprecatedFieldsWarnOncePerField) {
  auto cfg = ParseExperimentConfig(
      "entrypoint: x\nsearcher: {name: single, metric: m, max_length: 10}\nscheduling_unit: 5\n",
      Defaults());
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->warnings,
            (std::vector<std::string>{
                "scheduling_unit is deprecated in 0.38: only Trial classes (entrypoint: module:Class) read it",
                "searcher.max_length is deprecated in 0.38: only Trial classes (entrypoint: module:Class) read it"}));
}

TEST(ExperimentConfigTest, ATrialClassRunsInTheHarnessOnePerSlot) {
  auto one = ParseExperimentConfig("entrypoint: model_def:DigitsTrial\nsearcher: {name: single, metric: m}\n",
                                   Defaults());
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->entrypoint,
            (std::vector<std::string>{"python3", "-m", "determined.exec.harness", "model_def:DigitsTrial"}));
  auto two = ParseExperimentConfig("entrypoint: pkg.models:Net\nsearcher: {name: single, metric: m}\n"
                                   "resources: {slots_per_trial: 2}\n",
                                   Defaults());
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->entrypoint, (std::vector<std::string>{"python3", "-m", "determined.launch.torch_distributed", "--",
                                                       "python3", "-m", "determined.exec.harness", "pkg.models:Net"}));
  auto script = ParseExperimentConfig("entrypoint: python3 train.py --flag a:b\nsearcher: {name: single, metric: m}\n"
                                      "resources: {slots_per_trial: 2}\n",
                                      Defaults());
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_EQ(script->entrypoint, (std::vector<std::string>{"sh", "-c", "python3 train.py --flag a:b"}));
}

TEST(ExperimentConfigTest, AnImageOtherThanTheDefaultsIsSaidToBeUsedOnlyInContainers) {
  auto cfg = ParseExperimentConfig(
      "entrypoint: x\nsearcher: {name: single, metric: m}\nenvironment: {image: {cuda: my/train:1}}\n", Defaults());
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  ASSERT_EQ(cfg->warnings.size(), 1u);
  EXPECT_EQ(cfg->warnings[0],
            "environment.image (my/train:1) is used only where tasks run in containers: on agents with a container "
            "engine (container_socket) and on Kubernetes; elsewhere the task runs as a process on its host, with the "
            "host's Python and packages");
  auto plain = ParseExperimentConfig("entrypoint: x\nsearcher: {name: single, metric: m}\n", Defaults());
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->warnings.empty()) << "the default images are no one's choice";
}

TEST(ExperimentConfigTest, EmptyOrNonMappingIsRefused) {
  EXPECT_FALSE(ParseExperimentConfig("", Defaults()).ok());
  EXPECT_FALSE(ParseExperimentConfig("- a\n- b\n", Defaults()).ok());
}

absl::Status CheckTemplate(const std::string& yaml) {
  absl::StatusOr<nlohmann::json> parsed = ParseYaml(yaml);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? CheckTemplateConfig(*parsed) : parsed.status();
}

TEST(ExperimentConfigTest, ATemplateNeedsNotBeCompleteButWhatItHasMustBeValid) {
  // Partial: no entrypoint, searcher or storage; a bound the experiment's config may add.
  EXPECT_TRUE(CheckTemplate("{}").ok());
  EXPECT_TRUE(CheckTemplate("resources: {slots_per_trial: 2}\n"
                            "hyperparameters: {lr: {type: double, minval: 0.1}}\n"
                            "checkpoint_storage: {host_path: /ckpt}\n"
                            "environment: {environment_variables: [A=1]}\n")
                  .ok());

  absl::Status s = CheckTemplate("resources: {slots_per_trail: 2}\nmax_restarts: many\n"
                                 "entrypoint: 5\n");
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("invalid template configuration"), std::string::npos) << s;
  EXPECT_NE(s.message().find("resources: unknown key \"slots_per_trail\""), std::string::npos) << s;
  EXPECT_NE(s.message().find("max_restarts: must be an integer"), std::string::npos) << s;
  EXPECT_NE(s.message().find("entrypoint:"), std::string::npos) << s;
  EXPECT_EQ(s.message().find("required"), std::string::npos) << s;  // nothing missing is reported

  EXPECT_FALSE(CheckTemplate("- a\n").ok());
  EXPECT_FALSE(CheckTemplate("searcher: {name: bayes}\n").ok());
}

}  // namespace
}  // namespace det::config

namespace det::config {
namespace {

TEST(ExperimentConfigWarningsTest, NameOnlyTheKeysTheUserSet) {
  // A stored config holds every default, deprecated fields' too; only what the user set is warned about.
  EXPECT_TRUE(ExperimentConfigWarnings(nlohmann::json::parse(R"({"searcher": {"name": "single", "metric": "x"}})"))
                  .empty());
  std::vector<std::string> warned = ExperimentConfigWarnings(
      nlohmann::json::parse(R"({"scheduling_unit": 5, "searcher": {"name": "single", "max_length": 3}})"));
  ASSERT_EQ(warned.size(), 2u);
  EXPECT_NE(warned[0].find("scheduling_unit is deprecated"), std::string::npos) << warned[0];
  EXPECT_NE(warned[1].find("searcher.max_length is deprecated"), std::string::npos) << warned[1];
  EXPECT_TRUE(ExperimentConfigWarnings(nlohmann::json::array()).empty());
}

}  // namespace
}  // namespace det::config
