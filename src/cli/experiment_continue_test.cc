#include "cli/experiment_continue.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/json_yaml.h"

namespace det::cli {
namespace {

using nlohmann::json;

json Overrides(const ContinueExperimentArgs& args) {
  absl::StatusOr<std::string> text = ContinueOverrideConfig(args);
  EXPECT_TRUE(text.ok()) << text.status();
  return *ParseYaml(text.value_or(""));
}

TEST(ExperimentContinueTest, OverridesComeFromTheFlagsOrTheFileWithTheFlagsOnTop) {
  EXPECT_EQ(Overrides({.experiment_id = 3}), json::object()) << "nothing to change";
  EXPECT_EQ(Overrides({.experiment_id = 3, .overrides = {"searcher.max_length.batches=200", "max_restarts=0"}}),
            (json{{"searcher", {{"max_length", {{"batches", 200}}}}}, {"max_restarts", 0}}));

  const std::string file = ::testing::TempDir() + "experiment_continue_more.yaml";
  std::ofstream(file) << "searcher:\n  max_length:\n    batches: 300\ndescription: longer\n";
  EXPECT_EQ(Overrides({.experiment_id = 3, .config_file = file, .overrides = {"description=longest"}}),
            (json{{"searcher", {{"max_length", {{"batches", 300}}}}}, {"description", "longest"}}));

  absl::StatusOr<std::string> missing = ContinueOverrideConfig({.experiment_id = 3, .config_file = "/no/such.yaml"});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::string> bad = ContinueOverrideConfig({.experiment_id = 3, .overrides = {"no-equals-sign"}});
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace det::cli
