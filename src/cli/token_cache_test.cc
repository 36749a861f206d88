#include "cli/token_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "cli/session.h"
#include "common/file_util.h"
#include "common/test_temp_dir.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;

class TokenCacheTest : public ::testing::Test {
 protected:
  TestTempDir tmp_{"det_cli_tokens"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(TokenCacheTest, MissingFileIsEmpty) {
  absl::StatusOr<TokenCache> c = TokenCache::Load(dir_ / "none.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->Get("http://localhost:8080").has_value());
}

TEST_F(TokenCacheTest, RoundTripWithPrivateMode) {
  fs::path file = dir_ / "sub" / "auth.json";
  TokenCache c = TokenCache::Empty(file);
  c.Set("http://a:8080", {"determined", "tok-a"});
  c.Set("http://b:8080", {"admin", "tok-b"});
  ASSERT_TRUE(c.Save().ok());

  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  absl::StatusOr<TokenCache> loaded = TokenCache::Load(file);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->Get("http://a:8080").has_value());
  EXPECT_EQ(loaded->Get("http://a:8080")->username, "determined");
  EXPECT_EQ(loaded->Get("http://a:8080")->token, "tok-a");
  EXPECT_EQ(loaded->Get("http://b:8080")->username, "admin");

  EXPECT_TRUE(loaded->Erase("http://a:8080"));
  EXPECT_FALSE(loaded->Erase("http://a:8080"));
  ASSERT_TRUE(loaded->Save().ok());
  absl::StatusOr<TokenCache> again = TokenCache::Load(file);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->Get("http://a:8080").has_value());
  EXPECT_TRUE(again->Get("http://b:8080").has_value());
}

TEST_F(TokenCacheTest, TightensExistingPermissions) {
  fs::path file = dir_ / "auth.json";
  ASSERT_TRUE(WriteFile(file, "{}").ok());
  ::chmod(file.c_str(), 0644);
  TokenCache c = TokenCache::Empty(file);
  c.Set("http://a:8080", {"u", "t"});
  ASSERT_TRUE(c.Save().ok());
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(TokenCacheTest, MalformedFileIsAnError) {
  fs::path file = dir_ / "auth.json";
  ASSERT_TRUE(WriteFile(file, "[1, 2").ok());
  EXPECT_FALSE(TokenCache::Load(file).ok());
  ASSERT_TRUE(WriteFile(file, "").ok());
  EXPECT_TRUE(TokenCache::Load(file).ok());
}

TEST_F(TokenCacheTest, DefaultPathHonorsEnv) {
  ::setenv("DET_AUTH_FILE", "/x/y/auth.json", 1);
  EXPECT_EQ(TokenCache::DefaultPath(), fs::path("/x/y/auth.json"));
  ::unsetenv("DET_AUTH_FILE");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(TokenCache::DefaultPath(), fs::path("/home/someone/.config/determined-cpp/auth.json"));
}

TEST(CanonicalMasterUrlTest, AddsSchemeAndPort) {
  EXPECT_EQ(CanonicalMasterUrl("localhost:8080"), "http://localhost:8080");
  EXPECT_EQ(CanonicalMasterUrl("127.0.0.1:9000/"), "http://127.0.0.1:9000");
  EXPECT_EQ(CanonicalMasterUrl("master.example.com"), "http://master.example.com:8080");
  EXPECT_EQ(CanonicalMasterUrl("https://master.example.com"), "https://master.example.com:8443");
  EXPECT_EQ(CanonicalMasterUrl("http://h:1/prefix"), "http://h:1/prefix");
  EXPECT_EQ(CanonicalMasterUrl("http://[::1]"), "http://[::1]:8080");
  EXPECT_EQ(CanonicalMasterUrl("http://[::1]:81"), "http://[::1]:81");
}

}  // namespace
}  // namespace det::cli
