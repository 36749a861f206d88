#include "master/master_flags.h"

#include <gtest/gtest.h>

namespace det::master {
namespace {

TEST(MasterFlagsTest, ParsesBothForms) {
  auto f = ParseMasterFlags({"--data-dir", "/d", "--port=0", "--host", "127.0.0.1", "--port-file", "/p"});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->data_dir, "/d");
  EXPECT_EQ(f->port, 0);
  EXPECT_EQ(f->host, "127.0.0.1");
  EXPECT_EQ(f->port_file, "/p");
}

TEST(MasterFlagsTest, RejectsBadInput) {
  EXPECT_FALSE(ParseMasterFlags({"--port", "http"}).ok());
  EXPECT_FALSE(ParseMasterFlags({"--bogus"}).ok());
  EXPECT_FALSE(ParseMasterFlags({"--data-dir"}).ok());
}

}  // namespace
}  // namespace det::master
