#include "storage/checkpoint_resources.h"

#include <gtest/gtest.h>

#include "common/file_util.h"
#include "common/test_temp_dir.h"

namespace det::storage {
namespace {

TEST(ListResourcesTest, FilesWithSizesAndDirectoriesWithSlash) {
  TestTempDir tmp{"det_storage_test"};
  ASSERT_TRUE(WriteFile(tmp.path() / "model.pt", "12345").ok());
  ASSERT_TRUE(MakeDirs(tmp.path() / "sub" / "deeper").ok());
  ASSERT_TRUE(WriteFile(tmp.path() / "sub" / "deeper" / "state.bin", std::string(1000, 'x')).ok());
  ASSERT_TRUE(MakeDirs(tmp.path() / "empty").ok());
  auto r = ListResources(tmp.path());
  ASSERT_TRUE(r.ok()) << r.status();
  std::map<std::string, int64_t> want = {{"model.pt", 5},
                                         {"sub/", 0},
                                         {"sub/deeper/", 0},
                                         {"sub/deeper/state.bin", 1000},
                                         {"empty/", 0}};
  EXPECT_EQ(*r, want);
}

TEST(ListResourcesTest, EmptyAndMissingDirectories) {
  TestTempDir tmp{"det_storage_test"};
  auto r = ListResources(tmp.path());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->empty());
  EXPECT_EQ(ListResources(tmp.path() / "nope").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace det::storage
