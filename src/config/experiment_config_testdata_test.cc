// Table-driven experiment-config cases: every testdata/*.yaml is one config whose leading comment
// lines state the expected outcome:
//   # expect: ok
//   # expect-error: <text that must appear in the error>        (one or more)
//   # expect-json: <JSON pointer into full_json> = <JSON value>  (ok cases; defaults and
//   normalization) # expect-warning: <text that must appear in one warning> # master-storage:
//   <JSON>   the master's default checkpoint_storage (default: shared_fs /tmp/ckpt)
// Also checks that every *.yaml under examples/ validates.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "config/experiment_config.h"

namespace det::config {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Case {
  std::string name;
  std::string yaml;
  bool expect_ok = false;
  std::vector<std::string> errors;
  std::vector<std::pair<std::string, std::string>> json_checks;  // pointer, JSON value text
  std::vector<std::string> warnings;
  std::string master_storage = R"({"type":"shared_fs","host_path":"/tmp/ckpt"})";
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Case LoadCase(const fs::path& path) {
  Case c;
  c.name = path.stem().string();
  c.yaml = ReadFile(path);
  std::istringstream lines(c.yaml);
  std::string line;
  while (std::getline(lines, line) && absl::StartsWith(line, "#")) {
    absl::string_view rest = absl::StripAsciiWhitespace(absl::string_view(line).substr(1));
    auto take = [&](absl::string_view prefix, std::string& out) {
      if (!absl::ConsumePrefix(&rest, prefix)) return false;
      out = std::string(absl::StripAsciiWhitespace(rest));
      return true;
    };
    std::string value;
    if (take("expect:", value)) {
      c.expect_ok = value == "ok";
    } else if (take("expect-error:", value)) {
      c.errors.push_back(value);
    } else if (take("expect-warning:", value)) {
      c.warnings.push_back(value);
    } else if (take("master-storage:", value)) {
      c.master_storage = value;
    } else if (take("expect-json:", value)) {
      size_t eq = value.find(" = ");
      if (eq != std::string::npos)
        c.json_checks.emplace_back(value.substr(0, eq), value.substr(eq + 3));
    }
  }
  return c;
}

std::vector<fs::path> YamlFiles(const fs::path& dir, bool recursive) {
  std::vector<fs::path> out;
  auto add = [&](const fs::directory_entry& e) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path());
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) add(e);
  } else {
    for (const auto& e : fs::directory_iterator(dir)) add(e);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> CaseFiles() {
  std::vector<std::string> out;
  for (const fs::path& p : YamlFiles(DET_CONFIG_TESTDATA_DIR, false)) out.push_back(p.string());
  return out;
}

class ConfigCaseTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConfigCaseTest, MatchesExpectation) {
  Case c = LoadCase(GetParam());
  ASSERT_TRUE(c.expect_ok || !c.errors.empty())
      << c.name << ": no `# expect: ok` or `# expect-error:`";
  ExperimentDefaults defaults{
      .checkpoint_storage_json = c.master_storage, .seed = 42, .name = "Experiment (test-name)"};
  absl::StatusOr<ExperimentConfig> cfg = ParseExperimentConfig(c.yaml, defaults);
  if (c.expect_ok) {
    ASSERT_TRUE(cfg.ok()) << c.name << ": " << cfg.status();
    EXPECT_EQ(cfg->original_yaml, c.yaml);
    json full = json::parse(cfg->full_json);
    for (const auto& [pointer, value] : c.json_checks) {
      json::json_pointer ptr(pointer);
      ASSERT_TRUE(full.contains(ptr)) << c.name << ": no " << pointer << " in " << full.dump();
      EXPECT_EQ(full.at(ptr), json::parse(value)) << c.name << ": at " << pointer;
    }
    for (const std::string& w : c.warnings) {
      bool found = std::any_of(cfg->warnings.begin(), cfg->warnings.end(),
                               [&](const std::string& got) { return absl::StrContains(got, w); });
      EXPECT_TRUE(found) << c.name << ": no warning containing \"" << w << "\" in ["
                         << absl::StrJoin(cfg->warnings, "; ") << "]";
    }
  } else {
    ASSERT_FALSE(cfg.ok()) << c.name << ": expected an error, got " << cfg->full_json;
    EXPECT_EQ(cfg.status().code(), absl::StatusCode::kInvalidArgument);
    for (const std::string& e : c.errors) {
      EXPECT_TRUE(absl::StrContains(cfg.status().message(), e))
          << c.name << ": \"" << e << "\" not in:\n"
          << cfg.status().message();
    }
  }
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Testdata, ConfigCaseTest, ::testing::ValuesIn(CaseFiles()), CaseName);

TEST(ConfigTestdataTest, HasEnoughCases) { EXPECT_GE(CaseFiles().size(), 80u); }

TEST(ConfigExamplesTest, EveryExampleValidates) {
  std::vector<fs::path> files = YamlFiles(DET_EXAMPLES_DIR, true);
  ASSERT_FALSE(files.empty());
  ExperimentDefaults defaults{
      .checkpoint_storage_json = R"({"type":"shared_fs","host_path":"/tmp/ckpt"})",
      .seed = 1,
      .name = "Experiment (example)"};
  for (const fs::path& f : files) {
    absl::StatusOr<ExperimentConfig> cfg = ParseExperimentConfig(ReadFile(f), defaults);
    EXPECT_TRUE(cfg.ok()) << f << ": " << cfg.status();
  }
}

}  // namespace
}  // namespace det::config
