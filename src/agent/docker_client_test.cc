#include "agent/docker_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_replace.h"
#include "common/base64.h"

namespace det::agent {
namespace {

using nlohmann::json;

json DecodeAuth(const std::string& header) {
  EXPECT_EQ(header.find_first_of("+/"), std::string::npos) << "base64url";
  absl::StatusOr<std::string> raw = Base64Decode(absl::StrReplaceAll(header, {{"-", "+"}, {"_", "/"}}));
  EXPECT_TRUE(raw.ok());
  return json::parse(*raw);
}

TEST(DockerClientTest, RegistryAuthIsBase64UrlJsonWithUserAndPassword) {
  json a = DecodeAuth(RegistryAuthHeader({.username = "det", .password = "det-password", .server_address = "reg:5000"}));
  EXPECT_EQ(a, json({{"username", "det"}, {"password", "det-password"}, {"serveraddress", "reg:5000"}}));
  // dockerd ignores a Docker config's "auth": it travels as username and password.
  json b = DecodeAuth(RegistryAuthHeader({.auth = Base64Encode("alice:s3cr:et")}));
  EXPECT_EQ(b, json({{"username", "alice"}, {"password", "s3cr:et"}}));
}

TEST(DockerClientTest, ImageReferencesSplitIntoRepositoryAndTag) {
  EXPECT_EQ(SplitImageReference("python"), std::make_pair(std::string("python"), std::string("latest")));
  EXPECT_EQ(SplitImageReference("reg:5000/det-test/python:bookworm"),
            std::make_pair(std::string("reg:5000/det-test/python"), std::string("bookworm")));
  EXPECT_EQ(SplitImageReference("reg:5000/a/b"), std::make_pair(std::string("reg:5000/a/b"), std::string("latest")));
  EXPECT_EQ(SplitImageReference("a/b@sha256:abc"), std::make_pair(std::string("a/b@sha256:abc"), std::string()));
}

TEST(DockerClientTest, ErrorMessagesOfBothEngines) {
  EXPECT_EQ(EngineErrorMessage(R"({"message":"unauthorized: authentication required"})"),
            "unauthorized: authentication required");
  EXPECT_EQ(EngineErrorMessage(R"({"cause":"no such container","message":"no container with name or ID x","response":404})"),
            "no container with name or ID x");
  EXPECT_EQ(EngineErrorMessage("  plain text\n"), "plain text");
}

TEST(DockerClientTest, CreateBodyCarriesTheTasksSettings) {
  json body = json::parse(ContainerCreateBody({.entrypoint = {"/run/determined/bin/determined-task-shim", "x"},
                                               .env = {{"A", "1"}},
                                               .labels = {{"ai.determined.container.id", "a1"}},
                                               .user = "1001:1001",
                                               .work_dir = "/run/determined/workdir",
                                               .settings = {.image = "det-test/python:bookworm",
                                                            .binds = {"/data:/data:ro"},
                                                            .shm_size = 1 << 30,
                                                            .cap_add = {"SYS_PTRACE"},
                                                            .cap_drop = {"CHOWN"},
                                                            .devices = {"/dev/fuse"},
                                                            .gpus = {"GPU-1"}}}));
  EXPECT_EQ(body["Image"], "det-test/python:bookworm");
  EXPECT_EQ(body["Entrypoint"], json({"/run/determined/bin/determined-task-shim", "x"}));
  EXPECT_FALSE(body.contains("Cmd")) << "an entrypoint of our own: the image's CMD is not appended";
  EXPECT_EQ(body["Env"], json({"A=1"}));
  EXPECT_EQ(body["User"], "1001:1001");
  EXPECT_EQ(body["Tty"], false);
  const json& host = body["HostConfig"];
  EXPECT_EQ(host["NetworkMode"], "host");
  EXPECT_EQ(host["ShmSize"], 1 << 30);
  EXPECT_EQ(host["Binds"], json({"/data:/data:ro"}));
  EXPECT_EQ(host["CapAdd"], json({"SYS_PTRACE"}));
  EXPECT_EQ(host["CapDrop"], json({"CHOWN"}));
  EXPECT_EQ(host["Devices"][0], json({{"PathOnHost", "/dev/fuse"}, {"PathInContainer", "/dev/fuse"},
                                      {"CgroupPermissions", "rwm"}}));
  EXPECT_EQ(host["DeviceRequests"][0]["DeviceIDs"], json({"GPU-1"}));
  EXPECT_EQ(host["DeviceRequests"][0]["Driver"], "nvidia");
}

}  // namespace
}  // namespace det::agent
