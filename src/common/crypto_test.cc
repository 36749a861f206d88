#include "common/crypto.h"

#include <gtest/gtest.h>

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
