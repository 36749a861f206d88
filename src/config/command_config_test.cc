#include "config/command_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/experiment_config.h"

namespace det::config {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(CommandConfigTest, LayersDefaultsTemplateAndSubmittedConfig) {
  json tcd = {{"work_dir", "/tmp"}, {"environment_variables", {"A=1"}}};
  json tmpl = {{"resources", {{"priority", 7}}}, {"searcher", {{"name", "single"}}}, {"description", "tmpl"}};
  json submitted = {{"entrypoint", {"echo", "hi"}}, {"description", "mine"}, {"resources", {{"weight", 2}}}};
  absl::StatusOr<CommandConfig> c = ParseCommandConfig(tcd, tmpl, submitted);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->entrypoint, (std::vector<std::string>{"echo", "hi"}));
  EXPECT_EQ(c->description, "mine");
  EXPECT_EQ(c->priority, 7);  // objects merge key by key
  EXPECT_EQ(c->weight, 2);
  EXPECT_EQ(c->slots, 1);  // the default
  EXPECT_EQ(c->work_dir, "/tmp");
  EXPECT_EQ(c->environment_variables, (std::vector<std::string>{"A=1"}));
  EXPECT_FALSE(c->full.contains("searcher"));  // template keys a command does not know are dropped
}

TEST(CommandConfigTest, ListsAreReplacedNotMerged) {
  json tmpl = {{"bind_mounts", {{{"host_path", "/a"}, {"container_path", "/b"}}}}};
  json submitted = {{"entrypoint", "true"}, {"bind_mounts", {{{"host_path", "/c"}, {"container_path", "d"}}}}};
  absl::StatusOr<CommandConfig> c = ParseCommandConfig(json::object(), tmpl, submitted);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->bind_mounts.size(), 1u);
  EXPECT_EQ(c->bind_mounts[0].host_path, "/c");
  EXPECT_EQ(c->entrypoint, (std::vector<std::string>{"/bin/sh", "-c", "true"}));  // a string runs in a shell
}

TEST(CommandConfigTest, OneArgumentIsAShellCommandLineSeveralAreAnArgv) {
  // upstream's command-entrypoint.sh: one argument runs as /bin/sh -c "$1", several are exec'd as given.
  absl::StatusOr<CommandConfig> one = ParseCommandConfig({}, {}, {{"entrypoint", {"echo hi && ls"}}});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->entrypoint, (std::vector<std::string>{"/bin/sh", "-c", "echo hi && ls"}));
  EXPECT_EQ(one->full["entrypoint"], json({"echo hi && ls"}));  // `det cmd config` shows what was given
  absl::StatusOr<CommandConfig> argv = ParseCommandConfig({}, {}, {{"entrypoint", {"echo", "a b"}}});
  ASSERT_TRUE(argv.ok()) << argv.status();
  EXPECT_EQ(argv->entrypoint, (std::vector<std::string>{"echo", "a b"}));
}

TEST(CommandConfigTest, RefusesUnknownKeysWrongTypesAndAnEmptyCommand) {
  absl::Status unknown = ParseCommandConfig({}, {}, {{"entrypoint", {"x"}}, {"slotz", 1}}).status();
  EXPECT_THAT(unknown.message(), HasSubstr("slotz"));
  absl::Status type = ParseCommandConfig({}, {}, {{"entrypoint", {"x"}}, {"resources", {{"slots", "two"}}}}).status();
  EXPECT_THAT(type.message(), HasSubstr("resources.slots"));
  EXPECT_THAT(type.message(), HasSubstr("\"two\""));
  absl::Status empty = ParseCommandConfig({}, {}, {{"entrypoint", json::array()}}).status();
  EXPECT_THAT(empty.message(), HasSubstr("entrypoint: the command is empty"));
  absl::Status element = ParseCommandConfig({}, {}, {{"entrypoint", {"echo", 3}}}).status();
  EXPECT_THAT(element.message(), HasSubstr("entrypoint[1]"));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseCommandConfig({}, {}, json(3)).status()));
}

TEST(CommandConfigTest, OverlayMergesObjectsAndReplacesScalarsAndLists) {
  json base = {{"a", {{"x", 1}, {"y", 2}}}, {"l", {1, 2}}, {"s", "old"}};
  OverlayConfig(base, {{"a", {{"y", 3}}}, {"l", {9}}, {"s", "new"}});
  EXPECT_EQ(base, (json{{"a", {{"x", 1}, {"y", 3}}}, {"l", {9}}, {"s", "new"}}));
}

}  // namespace
}  // namespace det::config

namespace det::config {
namespace {

TEST(CommandConfigTest, ATemplateMayHoldWhatOnlyCommandsReadCheckedAsACommandsConfig) {
  // Templates serve commands, notebooks, shells and TensorBoards too (`det cmd run --template`).
  nlohmann::json tmpl = {{"resources", {{"slots", 0}, {"slots_per_trial", 2}}},
                         {"work_dir", "/tmp"}, {"notebook_idle_type", "activity"}, {"max_restarts", 1}};
  EXPECT_TRUE(CheckTemplateConfig(tmpl).ok()) << CheckTemplateConfig(tmpl);
  nlohmann::json bad = {{"resources", {{"slots", "two"}}}, {"idle_timeout", "soon"}, {"max_restarts", "x"}};
  absl::Status s = CheckTemplateConfig(bad);
  EXPECT_THAT(s.message(), HasSubstr("resources.slots: must be an integer"));
  EXPECT_THAT(s.message(), HasSubstr("idle_timeout"));
  EXPECT_THAT(s.message(), HasSubstr("max_restarts: must be an integer"));
  EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("unknown key")));
}

}  // namespace
}  // namespace det::config
