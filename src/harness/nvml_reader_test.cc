#include "harness/nvml_reader.h"

#include <cstdlib>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::harness {
namespace {

TEST(NvmlReaderTest, WithoutTheDriverThereIsNoReader) {
  auto reader = NvmlReader::Open("libnvidia-ml-that-is-not-here.so.1");
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(reader.status().message(),
              ::testing::HasSubstr("cannot load libnvidia-ml-that-is-not-here.so.1"));
}

TEST(NvmlReaderTest, ALibraryWithoutNvmlIsRefused) {
  auto reader = NvmlReader::Open("libz.so.1");
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(reader.status().message(), ::testing::HasSubstr("lacks nvmlInit_v2"));
}

TEST(NvmlReaderTest, ReadsEachGpusUtilisationAndFreeMemory) {
  ::setenv("DET_FAKE_GPUS", "2", 1);
  ::setenv("DET_FAKE_GPU_UTIL", "37", 1);
  auto reader = NvmlReader::Open(DET_FAKE_NVML);
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto readings = (*reader)->Read();
  ::unsetenv("DET_FAKE_GPUS");
  ::unsetenv("DET_FAKE_GPU_UTIL");
  ASSERT_TRUE(readings.ok()) << readings.status();
  ASSERT_EQ(readings->size(), 2u);
  EXPECT_EQ((*readings)[0].uuid, "GPU-703306b3-2fac-7329-2445-8eeb1fd75108");
  EXPECT_EQ((*readings)[1].uuid, "GPU-703306b3-2fac-7329-2445-8eeb1fd75101");
  EXPECT_EQ((*readings)[1].gpu_util, 37);
  EXPECT_EQ((*readings)[1].gpu_free_memory, 150109880320ULL);
}

}  // namespace
}  // namespace det::harness
