#include "cli/template_ops.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fake_master_test_fixture.h"
#include "cli/session.h"
#include "common/test_temp_dir.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A master with just login and the template routes, over an in-memory map.
class TemplateOpsTest : public FakeMasterTest {
 protected:

  FakeResponse Serve(const FakeRequest& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(r.method + " " + r.target);
    if (r.target == "/api/v1/auth/login")
      return {200, R"({"token":"t","user":{"username":"determined"}})"};
    if (r.target.rfind("/api/v1/workspaces?", 0) == 0) {
      return {200, R"({"workspaces": [{"id": 1, "name": "Uncategorized"}, {"id": 7, "name": "vision"}]})"};
    }
    const std::string prefix = "/api/v1/templates/";
    if (r.target.rfind("/api/v1/templates?", 0) == 0 || r.target == "/api/v1/templates") {
      json list = json::array();
      for (const auto& [name, t] : templates_) list.push_back(t);
      int64_t n = static_cast<int64_t>(list.size());
      return {
          200,
          json{{"templates", list},
               {"pagination",
                {{"offset", 0}, {"limit", 0}, {"startIndex", 0}, {"endIndex", n}, {"total", n}}}}
              .dump()};
    }
    if (r.target.rfind(prefix, 0) != 0) return {404, R"({"error":{"code":5,"error":"no route"}})"};
    std::string name = r.target.substr(prefix.size());
    bool exists = templates_.count(name) > 0;
    std::string not_found =
        json{{"error", {{"code", 5}, {"error", "template \"" + name + "\" not found"}}}}.dump();
    if (r.method == "GET")
      return exists ? FakeResponse{200, json{{"template", templates_[name]}}.dump()}
                    : FakeResponse{404, not_found};
    if (r.method == "POST") {
      if (exists) return {409, R"({"error":{"code":6,"error":"template already exists"}})"};
      json b = json::parse(r.body);
      templates_[name] = {{"name", name}, {"config", b["config"]}, {"workspaceId", b["workspaceId"] == 0 ? json(1) : b["workspaceId"]}};
      return {200, json{{"template", templates_[name]}}.dump()};
    }
    if (r.method == "PATCH") {
      if (!exists) return {404, not_found};
      templates_[name]["config"] = json::parse(r.body);
      return {200, json{{"template", templates_[name]}}.dump()};
    }
    if (r.method == "DELETE") {
      if (!exists) return {404, not_found};
      templates_.erase(name);
      return {200, "{}"};
    }
    return {405, "{}"};
  }

  std::string WriteYaml(const std::string& text) {
    fs::path p = dir_ / ("f" + std::to_string(++files_) + ".yaml");
    std::ofstream(p) << text;
    return p.string();
  }

  std::mutex mu_;
  std::map<std::string, json> templates_;
  std::vector<std::string> calls_;
  int files_ = 0;
};

TEST_F(TemplateOpsTest, SetCreatesThenPatches) {
  std::ostringstream out;
  ASSERT_TRUE(SetTemplate(*session_, "my tpl", WriteYaml("description: one\n"), out).ok());
  EXPECT_EQ(out.str(), "Set template my tpl\n");
  ASSERT_TRUE(templates_.count("my%20tpl"));  // the name is percent-encoded in the path
  EXPECT_EQ(templates_["my%20tpl"]["config"], json::parse(R"({"description":"one"})"));
  ASSERT_TRUE(SetTemplate(*session_, "my tpl", WriteYaml("description: two\n"), out).ok());
  EXPECT_EQ(templates_["my%20tpl"]["config"], json::parse(R"({"description":"two"})"));
  std::vector<std::string> writes;
  for (const std::string& c : calls_) {
    if (c.rfind("POST /api/v1/templates", 0) == 0 || c.rfind("PATCH", 0) == 0) writes.push_back(c);
  }
  EXPECT_EQ(writes, (std::vector<std::string>{"POST /api/v1/templates/my%20tpl",
                                              "PATCH /api/v1/templates/my%20tpl"}));
}

TEST_F(TemplateOpsTest, DescribePrintsYamlAndMissingIsAnError) {
  templates_["t"] = {
      {"name", "t"}, {"config", {{"description", "d"}, {"max_restarts", 2}}}, {"workspaceId", 1}};
  std::ostringstream out;
  ASSERT_TRUE(DescribeTemplate(*session_, "t", out).ok());
  EXPECT_EQ(out.str(), "description: d\nmax_restarts: 2\n");
  absl::StatusOr<int> missing = DescribeTemplate(*session_, "zz", out);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("not found"), std::string::npos) << missing.status();
}

TEST_F(TemplateOpsTest, CreateUpdateAndRemove) {
  std::ostringstream out;
  ASSERT_TRUE(CreateTemplate(*session_, "t", WriteYaml("a: 1\n"), "", out).ok());
  EXPECT_FALSE(CreateTemplate(*session_, "t", WriteYaml("a: 1\n"), "", out).ok());
  ASSERT_TRUE(UpdateTemplateConfig(*session_, "t", WriteYaml("a: 2\n"), out).ok());
  EXPECT_EQ(templates_["t"]["config"]["a"], 2);
  EXPECT_FALSE(UpdateTemplateConfig(*session_, "other", WriteYaml("a: 2\n"), out).ok());
  ASSERT_TRUE(RemoveTemplate(*session_, "t", out).ok());
  EXPECT_TRUE(templates_.empty());
  EXPECT_FALSE(RemoveTemplate(*session_, "t", out).ok());
  EXPECT_EQ(out.str(), "Created template t\nUpdated template t\nRemoved template t\n");
}

TEST_F(TemplateOpsTest, ListTableDetailsAndJson) {
  templates_["a"] = {{"name", "a"}, {"config", {{"description", "x"}}}, {"workspaceId", 1}};
  std::ostringstream table, details, as_json;
  ASSERT_TRUE(ListTemplates(*session_, {}, table).ok());
  EXPECT_EQ(table.str(), RenderTemplates(json::array({templates_["a"]}), false, {{1, "Uncategorized"}}));
  EXPECT_NE(table.str().find("Name"), std::string::npos);
  EXPECT_NE(table.str().find("Uncategorized"), std::string::npos);
  ASSERT_TRUE(ListTemplates(*session_, {.details = true}, details).ok());
  EXPECT_NE(details.str().find("description: x"), std::string::npos);
  ASSERT_TRUE(ListTemplates(*session_, {.json = true}, as_json).ok());
  EXPECT_EQ(json::parse(as_json.str()), json::array({templates_["a"]}));
}

TEST(TemplateFileTest, MustBeAYamlMapping) {
  TestTempDir tmp("det_cli_tplf");
  const fs::path& dir = tmp.path();
  std::ofstream(dir / "list.yaml") << "- a\n";
  std::ofstream(dir / "empty.yaml") << "";
  std::ofstream(dir / "ok.yaml") << "resources: {slots_per_trial: 2}\n";
  EXPECT_FALSE(ReadTemplateFile((dir / "list.yaml").string()).ok());
  EXPECT_FALSE(ReadTemplateFile((dir / "empty.yaml").string()).ok());
  EXPECT_FALSE(ReadTemplateFile((dir / "missing.yaml").string()).ok());
  auto ok = ReadTemplateFile((dir / "ok.yaml").string());
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)["resources"]["slots_per_trial"], 2);
}

TEST(RenderTemplatesTest, TableLayout) {
  json tpls = json::parse(R"([{"name":"a","config":{"x":1},"workspaceId":1},
                              {"name":"bb","config":{},"workspaceId":7}])");
  EXPECT_EQ(RenderTemplates(tpls, false, {{1, "Uncategorized"}}),
            " Name | Workspace\n"
            "------+-------------------\n"
            " a    | Uncategorized\n"
            " bb   | missing workspace\n");
  EXPECT_NE(RenderTemplates(tpls, false, {{1, "Uncategorized"}, {7, "vision"}}).find(" bb   | vision"),
            std::string::npos);
}

TEST_F(TemplateOpsTest, CreateTemplateInANamedWorkspace) {
  std::ostringstream out;
  ASSERT_TRUE(CreateTemplate(*session_, "v", WriteYaml("a: 1\n"), "vision", out).ok());
  EXPECT_EQ(templates_["v"]["workspaceId"], 7);
  std::ostringstream table;
  ASSERT_TRUE(ListTemplates(*session_, {}, table).ok());
  EXPECT_NE(table.str().find("vision"), std::string::npos) << table.str();
  EXPECT_EQ(CreateTemplate(*session_, "w", WriteYaml("a: 1\n"), "nope", out).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace det::cli
