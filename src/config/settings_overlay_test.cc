#include "config/settings_overlay.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::config {
namespace {

using nlohmann::json;

const std::vector<Setting>& TestSettings() {
  static const std::vector<Setting> s = {
      {"port", "port", Setting::Kind::kInt, "p"},
      {"db-host", "db.host", Setting::Kind::kString, "h"},
      {"tls", "security.tls.enabled", Setting::Kind::kBool, "t"},
      {"config-file", "", Setting::Kind::kString, "c"},
  };
  return s;
}

TEST(SettingsOverlayTest, EnvNames) {
  EXPECT_EQ(EnvName("db-ssl-root-cert"), "DET_DB_SSL_ROOT_CERT");
  EXPECT_EQ(EnvName("port"), "DET_PORT");
}

TEST(SettingsOverlayTest, ParsesFlagForms) {
  bool help = false;
  auto f = ParseFlagArgs({"--port", "1", "--db-host=h", "--tls", "--config-file", "x.yaml", "-h"},
                         TestSettings(), &help);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(help);
  EXPECT_EQ(*f, (FlagValues{
                    {"port", "1"}, {"db-host", "h"}, {"tls", "true"}, {"config-file", "x.yaml"}}));
  EXPECT_FALSE(ParseFlagArgs({"--nope"}, TestSettings(), nullptr).ok());
  EXPECT_FALSE(ParseFlagArgs({"--port"}, TestSettings(), nullptr).ok());
  EXPECT_FALSE(ParseFlagArgs({"port"}, TestSettings(), nullptr).ok());
}

TEST(SettingsOverlayTest, FlagsBeatEnvWhichBeatsTheFile) {
  json cfg = {{"port", 1}, {"db", {{"host", "file"}, {"name", "keep"}}}};
  ASSERT_TRUE(ApplySettings(cfg, TestSettings(), {{"DET_PORT", "2"}, {"DET_DB_HOST", "env"}},
                            {{"port", "3"}, {"tls", "false"}, {"config-file", "ignored"}})
                  .ok());
  EXPECT_EQ(cfg["port"], 3);
  EXPECT_EQ(cfg["db"]["host"], "env");
  EXPECT_EQ(cfg["db"]["name"], "keep");
  EXPECT_EQ(cfg["security"]["tls"]["enabled"], false);
  EXPECT_FALSE(cfg.contains("config-file"));
  EXPECT_FALSE(cfg.contains(""));
}

TEST(SettingsOverlayTest, TypeErrorsNameTheSource) {
  json cfg;
  absl::Status st = ApplySettings(cfg, TestSettings(), {}, {{"port", "x"}});
  EXPECT_EQ(st.message(), "--port: must be an integer, got \"x\"");
  st = ApplySettings(cfg, TestSettings(), {{"DET_TLS", "maybe"}}, {});
  EXPECT_EQ(st.message(), "DET_TLS: must be true or false, got \"maybe\"");
}

TEST(SettingsOverlayTest, LookupPrefersTheLastFlagThenEnv) {
  EXPECT_EQ(Lookup("config-file", {{"DET_CONFIG_FILE", "env"}}, {}), "env");
  EXPECT_EQ(Lookup("config-file", {{"DET_CONFIG_FILE", "env"}},
                   {{"config-file", "a"}, {"config-file", "b"}}),
            "b");
  EXPECT_EQ(Lookup("config-file", {}, {}), std::nullopt);
}

}  // namespace
}  // namespace det::config
