#include "cli/config_override.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/json_yaml.h"

namespace det::cli {
namespace {

using nlohmann::json;

TEST(ConfigOverrideTest, TypedScalarsAndNesting) {
  json c = {{"name", "x"}, {"resources", {{"slots_per_trial", 1}}}};
  ASSERT_TRUE(ApplyConfigOverride(c, "resources.slots_per_trial=4").ok());
  ASSERT_TRUE(ApplyConfigOverride(c, "hyperparameters.lr=1e-3").ok());
  ASSERT_TRUE(ApplyConfigOverride(c, "debug=true").ok());
  ASSERT_TRUE(ApplyConfigOverride(c, "description=hello world").ok());
  ASSERT_TRUE(ApplyConfigOverride(c, "searcher.max_length.batches=100").ok());
  EXPECT_EQ(c["resources"]["slots_per_trial"], 4);
  EXPECT_DOUBLE_EQ(c["hyperparameters"]["lr"].get<double>(), 0.001);
  EXPECT_EQ(c["debug"], true);
  EXPECT_EQ(c["description"], "hello world");
  EXPECT_EQ(c["searcher"]["max_length"]["batches"], 100);
  EXPECT_EQ(c["name"], "x");
}

TEST(ConfigOverrideTest, ListsAndFlowValues) {
  json c = json::object();
  ASSERT_TRUE(ApplyConfigOverride(c, "labels=a,b,3").ok());
  EXPECT_EQ(c["labels"], json({"a", "b", 3}));
  ASSERT_TRUE(ApplyConfigOverride(c, "entrypoint=[python3, train.py]").ok());
  EXPECT_EQ(c["entrypoint"], json({"python3", "train.py"}));
  ASSERT_TRUE(ApplyConfigOverride(c, "bind_mounts={host_path: /tmp, container_path: /data}").ok());
  ASSERT_TRUE(c["bind_mounts"].is_array());
  EXPECT_EQ(c["bind_mounts"][0]["host_path"], "/tmp");
  ASSERT_TRUE(ApplyConfigOverride(c, "environment={foo: 1}").ok());
  EXPECT_EQ(c["environment"]["foo"], 1);
}

TEST(ConfigOverrideTest, ReplacesTheValueAtTheKeyAndFillsNulls) {
  json c = {{"hyperparameters", {{"lr", 0.1}, {"layers", 2}}}, {"slurm", nullptr}};
  ASSERT_TRUE(ApplyConfigOverride(c, "hyperparameters={lr: 0.5}").ok());
  EXPECT_EQ(c["hyperparameters"], json({{"lr", 0.5}})) << "upstream replaces; it does not merge";
  ASSERT_TRUE(ApplyConfigOverride(c, "hyperparameters.layers=3").ok());
  EXPECT_EQ(c["hyperparameters"], json({{"lr", 0.5}, {"layers", 3}}));
  ASSERT_TRUE(ApplyConfigOverride(c, "slurm.sbatch_args=[--time=05:00]").ok());
  EXPECT_EQ(c["slurm"]["sbatch_args"], json({"--time=05:00"}));
  json s = {{"resources", 4}};
  ASSERT_TRUE(ApplyConfigOverride(s, "resources.slots_per_trial=2").ok());
  EXPECT_EQ(s["resources"]["slots_per_trial"], 2);
}

TEST(ConfigOverrideTest, RejectsMalformedOverrides) {
  json c = json::object();
  EXPECT_EQ(ApplyConfigOverride(c, "novalue").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyConfigOverride(c, "=3").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(ApplyConfigOverride(c, "x=[unclosed").ok());
}

TEST(ConfigTextWithOverridesTest, KeepsTextWithoutOverrides) {
  std::string text = "# my experiment\nname: x\nentrypoint: python3 train.py\n";
  absl::StatusOr<std::string> out = ConfigTextWithOverrides(text, {}, "c.yaml");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, text);
}

TEST(ConfigTextWithOverridesTest, RedumpsWithOverrides) {
  std::string text = "name: x\nresources:\n  slots_per_trial: 1\n";
  absl::StatusOr<std::string> out =
      ConfigTextWithOverrides(text, {"resources.slots_per_trial=2", "max_restarts=0"}, "c.yaml");
  ASSERT_TRUE(out.ok()) << out.status();
  absl::StatusOr<json> parsed = ParseYaml(*out);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ((*parsed)["resources"]["slots_per_trial"], 2);
  EXPECT_EQ((*parsed)["max_restarts"], 0);
  EXPECT_EQ((*parsed)["name"], "x");
}

TEST(ConfigTextWithOverridesTest, RejectsNonMappings) {
  EXPECT_FALSE(ConfigTextWithOverrides("- a\n- b\n", {}, "c.yaml").ok());
  EXPECT_FALSE(ConfigTextWithOverrides("", {}, "c.yaml").ok());
  absl::Status bad = ConfigTextWithOverrides("a: [1,\n", {}, "c.yaml").status();
  EXPECT_NE(bad.message().find("c.yaml"), std::string::npos) << bad;
}

}  // namespace
}  // namespace det::cli
