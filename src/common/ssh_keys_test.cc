#include "common/ssh_keys.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"

namespace det {
namespace {

TEST(SshKeysTest, MakesAPairThatSshKeygenAgreesWith) {
  absl::StatusOr<SshKeyPair> pair = GenerateSshKeyPair();
  ASSERT_TRUE(pair.ok()) << pair.status();
  EXPECT_TRUE(absl::StartsWith(pair->private_key, "-----BEGIN RSA PRIVATE KEY-----"));
  EXPECT_TRUE(absl::StartsWith(pair->public_key, "ssh-rsa AAAAB3NzaC1yc2E"));
  if (std::system("command -v ssh-keygen >/dev/null 2>&1") != 0) GTEST_SKIP() << "ssh-keygen is not installed";
  // ssh-keygen -y derives the public key from the private one: it must be ours.
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ssh_keys_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::path key = dir / "key";
  std::ofstream(key) << pair->private_key;
  std::filesystem::permissions(key, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::string cmd = "ssh-keygen -y -f " + key.string() + " > " + (dir / "pub").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(dir / "pub");
  std::string derived;
  std::getline(in, derived);
  EXPECT_TRUE(absl::StartsWith(pair->public_key, derived)) << derived << "\nvs\n" << pair->public_key;
  std::filesystem::remove_all(dir);
}

TEST(SshKeysTest, EveryPairIsNew) { EXPECT_NE(GenerateSshKeyPair()->public_key, GenerateSshKeyPair()->public_key); }

}  // namespace
}  // namespace det
