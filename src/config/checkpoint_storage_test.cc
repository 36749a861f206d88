#include "config/checkpoint_storage.h"

#include <gtest/gtest.h>

namespace det::config {
namespace {

namespace fs = std::filesystem;

TEST(ResolveSharedFsBaseTest, NoStoragePathIsHostPath) {
  auto p = ResolveSharedFsBase("/data/ckpts", "");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, fs::path("/data/ckpts"));
  p = ResolveSharedFsBase("/data/ckpts/", "");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, fs::path("/data/ckpts"));
}

TEST(ResolveSharedFsBaseTest, RelativeStoragePathIsUnderHostPath) {
  auto p = ResolveSharedFsBase("/data/ckpts", "exp/run1");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, fs::path("/data/ckpts/exp/run1"));
  p = ResolveSharedFsBase("/data/ckpts", "./a/../b");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, fs::path("/data/ckpts/b"));
}

TEST(ResolveSharedFsBaseTest, AbsoluteStoragePathMustBeUnderHostPath) {
  auto p = ResolveSharedFsBase("/data/ckpts", "/data/ckpts/sub");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, fs::path("/data/ckpts/sub"));
  p = ResolveSharedFsBase("/data/ckpts", "/data/ckpts");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, fs::path("/data/ckpts"));

  p = ResolveSharedFsBase("/data/ckpts", "/elsewhere");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("must be a subdirectory of host_path"), std::string::npos);
  // A sibling sharing a name prefix is still outside.
  EXPECT_FALSE(ResolveSharedFsBase("/data/ckpts", "/data/ckpts2/x").ok());
  // So is a relative path that climbs out.
  EXPECT_FALSE(ResolveSharedFsBase("/data/ckpts", "../other").ok());
}

TEST(ResolveSharedFsBaseTest, HostPathMustBeAbsolute) {
  EXPECT_FALSE(ResolveSharedFsBase("", "").ok());
  EXPECT_FALSE(ResolveSharedFsBase("relative/dir", "").ok());
}

}  // namespace
}  // namespace det::config
