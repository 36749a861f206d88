#include "master/master_flags.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace det::master {
namespace {

TEST(MasterFlagsTest, ParsesBothForms) {
  auto f = ParseMasterFlags({"--data-dir", "/d", "--port=0", "--host", "127.0.0.1", "--port-file",
                             "/p", "--cluster-name", "c", "--log-level", "debug"});
  ASSERT_TRUE(f.ok()) << f.status();
  auto s = LoadMasterStartup(*f, {}, "");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->config.data_dir, "/d");
  EXPECT_EQ(s->config.port, 0);
  EXPECT_EQ(s->config.host, "127.0.0.1");
  EXPECT_EQ(s->config.cluster_name, "c");
  EXPECT_EQ(s->config.log.level, "debug");
  EXPECT_EQ(s->port_file, "/p");
  EXPECT_EQ(s->config.config_file, "");
}

TEST(MasterFlagsTest, RejectsBadInput) {
  auto port = ParseMasterFlags({"--port", "http"});
  ASSERT_TRUE(port.ok());  // typed when loaded
  auto s = LoadMasterStartup(*port, {}, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("--port: must be an integer"), std::string::npos);
  EXPECT_FALSE(ParseMasterFlags({"--bogus"}).ok());
  EXPECT_FALSE(ParseMasterFlags({"--data-dir"}).ok());
}

TEST(MasterFlagsTest, ConfigFileFromFlagEnvOrDefault) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "master_flags_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.yaml") << "port: 1111\ncluster_name: from-a\n";
  std::ofstream(dir / "b.yaml") << "port: 2222\n";
  std::ofstream(dir / "bad.yaml") << "port: [\n";

  auto none = ParseMasterFlags({});
  ASSERT_TRUE(none.ok());
  auto from_default = LoadMasterStartup(*none, {}, (dir / "a.yaml").string());
  ASSERT_TRUE(from_default.ok()) << from_default.status();
  EXPECT_EQ(from_default->config.port, 1111);
  EXPECT_EQ(from_default->config.config_file, (dir / "a.yaml").string());
  auto missing_default = LoadMasterStartup(*none, {}, (dir / "absent.yaml").string());
  ASSERT_TRUE(missing_default.ok());
  EXPECT_EQ(missing_default->config.port, 8080);

  auto from_env = LoadMasterStartup(*none, {{"DET_CONFIG_FILE", (dir / "b.yaml").string()}},
                                    (dir / "a.yaml").string());
  ASSERT_TRUE(from_env.ok());
  EXPECT_EQ(from_env->config.port, 2222);

  auto flag = ParseMasterFlags({"--config-file", (dir / "a.yaml").string(), "--port", "3333"});
  ASSERT_TRUE(flag.ok());
  auto from_flag = LoadMasterStartup(
      *flag, {{"DET_CONFIG_FILE", (dir / "b.yaml").string()}, {"DET_CLUSTER_NAME", "from-env"}},
      "");
  ASSERT_TRUE(from_flag.ok());
  EXPECT_EQ(from_flag->config.port, 3333);
  EXPECT_EQ(from_flag->config.cluster_name, "from-env");

  auto absent = ParseMasterFlags({"--config-file", (dir / "absent.yaml").string()});
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(LoadMasterStartup(*absent, {}, "").ok());
  auto bad = ParseMasterFlags({"--config-file", (dir / "bad.yaml").string()});
  ASSERT_TRUE(bad.ok());
  auto bad_load = LoadMasterStartup(*bad, {}, "");
  ASSERT_FALSE(bad_load.ok());
  EXPECT_NE(bad_load.status().message().find("bad.yaml"), std::string::npos);
}

}  // namespace
}  // namespace det::master
