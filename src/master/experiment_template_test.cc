#include "master/experiment_template.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/json_yaml.h"
#include "config/experiment_config.h"
#include "master/db/temp_sqlite_store.h"

namespace det::master {
namespace {

class ApplyTemplateTest : public ::testing::Test {
 protected:
  TempSqliteStore store_{"det_tpl_test"};
};

constexpr char kUser[] = R"(
name: mine
entrypoint: python3 train.py
searcher: {name: single, metric: loss}
hyperparameters: {lr: 0.1}
bind_mounts:
  - {host_path: /u, container_path: /data}
)";

TEST_F(ApplyTemplateTest, NoTemplateReturnsTheUserText) {
  auto out = ApplyTemplate(*store_, kUser, "");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, *ParseYaml(kUser));
}

TEST_F(ApplyTemplateTest, MergesUserOverTemplateAndTheResultValidates) {
  ASSERT_TRUE(store_
                  ->InsertTemplate({"t", R"({"name":"tpl","description":"from template",
      "hyperparameters":{"lr":0.5,"batch":32},"max_restarts":2,
      "checkpoint_storage":{"type":"shared_fs","host_path":"/tmp/ckpt"},
      "bind_mounts":[{"host_path":"/t","container_path":"/data"},{"host_path":"/t2","container_path":"/extra"}]})",
                                    1})
                  .ok());
  auto merged = ApplyTemplate(*store_, kUser, "t");
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ((*merged)["name"], "mine");
  EXPECT_EQ((*merged)["description"], "from template");
  EXPECT_EQ((*merged)["hyperparameters"], nlohmann::json::parse(R"({"lr":0.1,"batch":32})"));
  EXPECT_EQ((*merged)["max_restarts"], 2);
  EXPECT_EQ((*merged)["bind_mounts"],
            nlohmann::json::parse(R"([{"host_path":"/u","container_path":"/data"},
                                                                 {"host_path":"/t2","container_path":"/extra"}])"));
  auto cfg = config::ParseExperimentConfigJson(
      *merged, {.checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp"})",
                .seed = 1,
                .name = "x"});
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->max_restarts, 2);
  EXPECT_EQ(nlohmann::json::parse(cfg->checkpoint_storage_json)["host_path"], "/tmp/ckpt");
}

TEST_F(ApplyTemplateTest, TemplateMayFillRequiredFields) {
  ASSERT_TRUE(
      store_
          ->InsertTemplate(
              {"t", R"({"entrypoint":"python3 x.py","searcher":{"name":"single","metric":"m"}})",
               1})
          .ok());
  auto merged = ApplyTemplate(*store_, "name: only-a-name\n", "t");
  ASSERT_TRUE(merged.ok()) << merged.status();
  auto cfg = config::ParseExperimentConfigJson(
      *merged, {.checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp"})",
              .seed = 1,
              .name = "x"});
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->searcher_metric, "m");
}

TEST_F(ApplyTemplateTest, UnknownTemplateIsNotFound) {
  auto out = ApplyTemplate(*store_, kUser, "nope");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(out.status().message(), "template \"nope\" not found");
}

TEST_F(ApplyTemplateTest, ConfigNamingATemplateIsRefused) {
  std::string with_key = std::string(kUser) + "template: t\n";
  for (const char* name : {"", "t"}) {
    auto out = ApplyTemplate(*store_, with_key, name);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(out.status().message().find("cannot name a template"), std::string::npos)
        << out.status();
  }
}

TEST_F(ApplyTemplateTest, TemplateNamingATemplateIsRefused) {
  ASSERT_TRUE(store_->InsertTemplate({"outer", R"({"template":"inner"})", 1}).ok());
  auto out = ApplyTemplate(*store_, kUser, "outer");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("cannot use another configuration template"),
            std::string::npos);
}

TEST_F(ApplyTemplateTest, UserConfigMustBeAMapping) {
  ASSERT_TRUE(store_->InsertTemplate({"t", "{}", 1}).ok());
  EXPECT_EQ(ApplyTemplate(*store_, "- a\n- b\n", "t").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyTemplate(*store_, "a: [\n", "t").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace det::master
