#include "common/crypto.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/escaping.h"
#include "common/file_util.h"

namespace det {
namespace {

TEST(CryptoTest, ClientSideHashMatchesUpstreamScheme) {
  EXPECT_EQ(ClientSidePasswordHash(""), "");
  EXPECT_EQ(ClientSidePasswordHash("secret"), Sha512Hex("GubPEmmotfiK9TMD6Zdwsecret"));
  EXPECT_EQ(ClientSidePasswordHash("secret").size(), 128u);
}

TEST(CryptoTest, Sha256KnownVector) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(CryptoTest, HmacSha256KnownVector) {
  // RFC 4231 test case 2.
  EXPECT_EQ(absl::BytesToHexString(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(CryptoTest, FileDigestEqualsTheDigestOfItsBytes) {
  std::filesystem::path file = std::filesystem::temp_directory_path() / ("det-crypto-" + std::to_string(getpid()));
  std::string bytes(3 << 20, 'x');  // more than one read
  ASSERT_TRUE(WriteFile(file, bytes).ok());
  auto digest = Sha256FileHex(file);
  std::filesystem::remove(file);
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_EQ(*digest, Sha256Hex(bytes));
  EXPECT_FALSE(Sha256FileHex(file).ok()) << "a missing file is an error";
}

TEST(CryptoTest, BcryptVerifiesOnlyTheRightPassword) {
  auto hash = BcryptHash("hunter2");
  ASSERT_TRUE(hash.ok()) << hash.status();
  EXPECT_EQ(hash->rfind("$2b$10$", 0), 0u);
  EXPECT_TRUE(BcryptVerify("hunter2", *hash));
  EXPECT_FALSE(BcryptVerify("hunter3", *hash));
  EXPECT_FALSE(BcryptVerify("hunter2", "not-a-hash"));
}

}  // namespace
}  // namespace det
