#include "cli/browser.h"
#include "common/test_temp_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace det::cli {
namespace {

namespace fs = std::filesystem;

class BrowserTest : public ::testing::Test {
 protected:
  std::string Program(const std::string& name) {
    fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n";
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
  TestTempDir tmp_{"det_browser_test"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(BrowserTest, FindOnPath) {
  std::string prog = Program("tool");
  std::ofstream(dir_ / "plain") << "not executable";
  EXPECT_EQ(FindOnPath("tool", "/nonexistent:" + dir_.string()), prog);
  EXPECT_EQ(FindOnPath("plain", dir_.string()), std::nullopt);
  EXPECT_EQ(FindOnPath("missing", dir_.string()), std::nullopt);
  EXPECT_EQ(FindOnPath(prog, ""), prog);
}

TEST_F(BrowserTest, NoneWithoutADisplay) {
  Program("xdg-open");
  BrowserEnvironment env{"", "", "", dir_.string()};
  EXPECT_EQ(BrowserCommand(env, "http://m/proxy/x/"), std::nullopt);
  env.wayland_display = "wayland-0";
  EXPECT_EQ(BrowserCommand(env, "http://m/proxy/x/"),
            (std::vector<std::string>{(dir_ / "xdg-open").string(), "http://m/proxy/x/"}));
}

TEST_F(BrowserTest, BrowserVariableFirstThenXdgOpen) {
  std::string firefox = Program("firefox");
  std::string xdg = Program("xdg-open");
  BrowserEnvironment env{"missing-browser:firefox --new-tab %s", ":0", "", dir_.string()};
  EXPECT_EQ(BrowserCommand(env, "http://u"),
            (std::vector<std::string>{firefox, "--new-tab", "http://u"}));
  env.browser = "firefox";
  EXPECT_EQ(BrowserCommand(env, "http://u"), (std::vector<std::string>{firefox, "http://u"}));
  env.browser = "missing-browser";
  EXPECT_EQ(BrowserCommand(env, "http://u"), (std::vector<std::string>{xdg, "http://u"}));
  fs::remove(xdg);
  EXPECT_EQ(BrowserCommand(env, "http://u"), std::nullopt);
}

}  // namespace
}  // namespace det::cli
