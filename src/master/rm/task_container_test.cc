#include "master/rm/task_container.h"

#include "config/environment_schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::master {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

TEST(TaskContainerTest, NoImageIsAProcessOnTheHost) {
  auto c = TaskContainerOf(json::object(), json::object(), "cpu");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->has_value());
  EXPECT_FALSE(TaskContainerOf(json{{"image", nullptr}}, nullptr, "cpu")->has_value());
  json defaults = {{"image", {{"cpu", config::kDefaultCpuImage}, {"cuda", config::kDefaultCudaImage},
                              {"rocm", config::kDefaultRocmImage}}}};
  EXPECT_FALSE(TaskContainerOf(defaults, nullptr, "cuda")->has_value()) << "every config has the defaults";
}

TEST(TaskContainerTest, TheImageFollowsTheSlotType) {
  json env = {{"image", {{"cpu", "det/cpu:1"}, {"cuda", "det/cuda:1"}, {"rocm", "det/rocm:1"}}}};
  EXPECT_EQ((*TaskContainerOf(env, nullptr, "cpu"))->image, "det/cpu:1");
  EXPECT_EQ((*TaskContainerOf(env, nullptr, "cuda"))->image, "det/cuda:1");
  EXPECT_EQ((*TaskContainerOf(env, nullptr, "rocm"))->image, "det/rocm:1");
  EXPECT_EQ((*TaskContainerOf(json{{"image", "one:all"}}, nullptr, "cuda"))->image, "one:all");
}

TEST(TaskContainerTest, CarriesPullAuthCapabilitiesShmAndDevices) {
  json env = {{"image", "reg:5000/x:1"},
              {"force_pull_image", true},
              {"registry_auth", {{"username", "det"}, {"password", "pw"}, {"serveraddress", "reg:5000"}, {"email", ""}}},
              {"add_capabilities", {"SYS_PTRACE"}},
              {"drop_capabilities", {"CHOWN"}}};
  json res = {{"shm_size", "1.5G"},
              {"devices", {{{"host_path", "/dev/fuse"}, {"container_path", "/dev/fuse"}, {"mode", "mrw"}}}}};
  auto c = TaskContainerOf(env, res, "cpu");
  ASSERT_TRUE(c.ok() && c->has_value());
  const api::TaskContainer& t = **c;
  EXPECT_TRUE(t.force_pull);
  EXPECT_EQ(t.registry_auth, (std::map<std::string, std::string>{{"username", "det"}, {"password", "pw"},
                                                                 {"serveraddress", "reg:5000"}}));
  EXPECT_THAT(t.add_capabilities, ElementsAre("SYS_PTRACE"));
  EXPECT_THAT(t.drop_capabilities, ElementsAre("CHOWN"));
  EXPECT_EQ(t.shm_size, 1610612736);
  EXPECT_THAT(t.devices, ElementsAre("/dev/fuse:/dev/fuse:mrw"));
  EXPECT_EQ(t.network_mode, "host");
}

TEST(TaskContainerTest, ThePoolsShmSizeAppliesUnlessTheTaskSetsOne) {
  json env = {{"image", "x:1"}};
  EXPECT_EQ((*TaskContainerOf(env, json::object(), "cpu", {.shm_size = 4294967296}))->shm_size, 4294967296);
  EXPECT_EQ((*TaskContainerOf(env, json{{"shm_size", nullptr}}, "cpu", {.shm_size = 4294967296}))->shm_size, 4294967296);
  EXPECT_EQ((*TaskContainerOf(env, json{{"shm_size", "256M"}}, "cpu", {.shm_size = 4294967296}))->shm_size, 268435456);
}

TEST(TaskContainerTest, ThePoolsNetworkModeApplies) {
  json env = {{"image", "x:1"}};
  EXPECT_EQ((*TaskContainerOf(env, nullptr, "cpu"))->network_mode, "host");
  EXPECT_EQ((*TaskContainerOf(env, nullptr, "cpu", {.network_mode = "none"}))->network_mode, "none");
}

TEST(TaskContainerTest, ContainerDefaultsComeFromTaskContainerDefaults) {
  ContainerDefaults d = ContainerDefaultsOf(R"({"shm_size_bytes": 1024, "network_mode": "none"})");
  EXPECT_EQ(d.shm_size, 1024);
  EXPECT_EQ(d.network_mode, "none");
  ContainerDefaults unset = ContainerDefaultsOf("{}");
  EXPECT_EQ(unset.shm_size, 0);
  EXPECT_EQ(unset.network_mode, "host");
  EXPECT_EQ(ContainerDefaultsOf("").network_mode, "host");
}

TEST(TaskContainerTest, AnUnusableShmSizeIsRefusedNamingTheField) {
  auto c = TaskContainerOf(json{{"image", "x"}}, json{{"shm_size", "4X"}}, "cpu");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("resources.shm_size"), std::string::npos);
}

}  // namespace
}  // namespace det::master
