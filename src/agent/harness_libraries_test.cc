#include "agent/harness_libraries.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::agent {
namespace {

TEST(HarnessLibrariesTest, LddsLibrariesWithoutTheCLibrary) {
  const std::string ldd = "\tlinux-vdso.so.1 (0x00007ffd)\n"
                          "\tlibcurl.so.4 => /lib/x86_64-linux-gnu/libcurl.so.4 (0x00007f01)\n"
                          "\tlibabsl_status.so.20220623 => /lib/x86_64-linux-gnu/libabsl_status.so.20220623 (0x7f02)\n"
                          "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f03)\n"
                          "\tlibm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007f04)\n"
                          "\t/lib64/ld-linux-x86-64.so.2 (0x00007f05)\n"
                          "\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f06)\n";
  EXPECT_THAT(LibrariesFromLdd(ldd),
              ::testing::ElementsAre("/lib/x86_64-linux-gnu/libcurl.so.4",
                                     "/lib/x86_64-linux-gnu/libabsl_status.so.20220623",
                                     "/lib/x86_64-linux-gnu/libstdc++.so.6"));
}

}  // namespace
}  // namespace det::agent
