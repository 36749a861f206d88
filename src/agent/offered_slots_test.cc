#include "agent/offered_slots.h"

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_join.h"

namespace det::agent {
namespace {

using ::testing::HasSubstr;

// Answers each command line from a map; others fail as a tool missing from PATH does.
class MapRunner : public CommandRunner {
 public:
  explicit MapRunner(std::map<std::string, std::string> outputs) : outputs_(std::move(outputs)) {}
  absl::StatusOr<std::string> Run(const std::vector<std::string>& argv) override {
    auto it = outputs_.find(absl::StrJoin(argv, " "));
    if (it == outputs_.end()) return absl::NotFoundError(absl::StrCat(argv[0], " is not on PATH"));
    return it->second;
  }

 private:
  std::map<std::string, std::string> outputs_;
};

const std::map<std::string, std::string> kTwoGpus = {
    {"nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader",
     "0, NVIDIA H200, GPU-a\n1, NVIDIA H200, GPU-b\n"},
    {"nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader", "Disabled\nDisabled\n"},
    {"nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader --id=1",
     "1, NVIDIA H200, GPU-b\n"},
    {"nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader --id=1", "Disabled\n"},
};

AgentFileConfig Config(SlotType type, int slots = 2, std::vector<int> visible = {}) {
  AgentFileConfig c;
  c.slot_type = type;
  c.slots = slots;
  c.visible_gpus = std::move(visible);
  return c;
}

TEST(OfferedSlotsTest, AutoOffersTheGpusFound) {
  MapRunner runner(kTwoGpus);
  std::vector<std::string> notes;
  auto slots = OfferedSlots(Config(SlotType::kAuto), runner, notes);
  ASSERT_TRUE(slots.ok()) << slots.status();
  ASSERT_EQ(slots->size(), 2u);
  EXPECT_EQ((*slots)[1].id, 1);
  EXPECT_EQ((*slots)[1].type, "cuda");
  EXPECT_EQ((*slots)[1].device, "NVIDIA H200");
  EXPECT_EQ((*slots)[1].uuid, "GPU-b");
  EXPECT_EQ(DescribeSlots(*slots), "2 cuda slot(s) (0: NVIDIA H200 GPU-a, 1: NVIDIA H200 GPU-b)");
}

TEST(OfferedSlotsTest, VisibleGpusLimitTheOffer) {
  MapRunner runner(kTwoGpus);
  std::vector<std::string> notes;
  auto slots = OfferedSlots(Config(SlotType::kCuda, 2, {1}), runner, notes);
  ASSERT_TRUE(slots.ok()) << slots.status();
  ASSERT_EQ(slots->size(), 1u);
  EXPECT_EQ(slots->front().uuid, "GPU-b");
}

TEST(OfferedSlotsTest, AutoFallsBackToCpuSlotsAndSaysWhy) {
  MapRunner runner({});
  std::vector<std::string> notes;
  auto slots = OfferedSlots(Config(SlotType::kAuto, 3), runner, notes);
  ASSERT_TRUE(slots.ok());
  EXPECT_EQ(DescribeSlots(*slots), "3 CPU slot(s)");
  EXPECT_THAT(absl::StrJoin(notes, "\n"),
              ::testing::AllOf(HasSubstr("no CUDA GPU found: nvidia-smi is not on PATH"),
                               HasSubstr("no ROCm GPU found: rocm-smi is not on PATH"),
                               HasSubstr("offering 3 CPU slot(s)")));
}

TEST(OfferedSlotsTest, CudaWithoutGpusIsAnErrorThatSaysWhy) {
  MapRunner runner({});
  std::vector<std::string> notes;
  auto slots = OfferedSlots(Config(SlotType::kCuda), runner, notes);
  ASSERT_FALSE(slots.ok());
  EXPECT_EQ(slots.status().message(),
            "slot_type cuda: no CUDA GPU found: nvidia-smi is not on PATH");
  MapRunner two(kTwoGpus);
  auto invisible = OfferedSlots(Config(SlotType::kRocm), two, notes);
  ASSERT_FALSE(invisible.ok());
  EXPECT_THAT(invisible.status().message(), HasSubstr("slot_type rocm: no ROCm GPU found"));
}

TEST(OfferedSlotsTest, CpuAndNone) {
  MapRunner runner(kTwoGpus);
  std::vector<std::string> notes;
  auto cpu = OfferedSlots(Config(SlotType::kCpu, 4), runner, notes);
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(cpu->size(), 4u);
  EXPECT_EQ(cpu->back().type, "cpu");
  auto none = OfferedSlots(Config(SlotType::kNone), runner, notes);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(DescribeSlots(*none), "no slot");
}

}  // namespace
}  // namespace det::agent
