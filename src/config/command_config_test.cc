#include "config/command_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  EXPECT_EQ(c->entrypoint, (std::vector<std::string>{"sh", "-c", "true"}));  // a string runs in a shell
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
