#include "agent/gpu_detect.h"

#include <fstream>
#include <map>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace det::agent {
namespace {

using ::testing::ElementsAre;

// The outputs of each command a real machine printed: testdata/nvidia-smi-h200.txt is what one
// NVIDIA H200 showed (shared/fixtures/gpu-h200), as "### COMMAND" sections, each ended by
// "### exit STATUS".
std::map<std::string, std::string> CapturedOutputs(const std::string& name) {
  std::ifstream in(std::string(DET_AGENT_TESTDATA) + "/" + name);
  std::map<std::string, std::string> out;
  std::string line, command;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "### exit")) {
      command.clear();
    } else if (absl::StartsWith(line, "### ")) {
      command = std::string(absl::StripAsciiWhitespace(line.substr(4)));
      out[command];
    } else if (!command.empty()) {
      out[command] += line + "\n";
    }
  }
  return out;
}

using Outputs = std::map<std::string, std::string>;

// Answers each command from a map; a command it does not know fails as an unknown tool would.
class FakeRunner : public CommandRunner {
 public:
  explicit FakeRunner(std::map<std::string, std::string> outputs) : outputs_(std::move(outputs)) {}
  absl::StatusOr<std::string> Run(const std::vector<std::string>& argv) override {
    const std::string command = absl::StrJoin(argv, " ");
    calls.push_back(command);
    auto it = outputs_.find(command);
    if (it == outputs_.end()) return absl::NotFoundError(absl::StrCat(argv[0], " is not on PATH"));
    return it->second;
  }
  std::vector<std::string> calls;

 private:
  std::map<std::string, std::string> outputs_;
};

const GpuDevice kH200{
    .id = 0, .brand = "NVIDIA H200", .uuid = "GPU-703306b3-2fac-7329-2445-8eeb1fd75108"};

TEST(GpuDetectTest, ReadsTheH200AsARealMachinePrintedIt) {
  FakeRunner runner(CapturedOutputs("nvidia-smi-h200.txt"));
  auto devices = DetectCuda(runner, {});
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(*devices, ElementsAre(kH200));
  // The same commands upstream's agent runs; MIG is Disabled there, so no `nvidia-smi -L`.
  EXPECT_THAT(runner.calls,
              ElementsAre("nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader",
                          "nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader"));
}

TEST(GpuDetectTest, VisibleGpusNarrowTheQuery) {
  auto outputs = CapturedOutputs("nvidia-smi-h200.txt");
  outputs["nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader --id=0"] = "Disabled\n";
  FakeRunner runner(outputs);
  auto devices = DetectCuda(runner, {0});
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(*devices, ElementsAre(kH200));
  EXPECT_EQ(runner.calls.front(),
            "nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader --id=0");
}

TEST(GpuDetectTest, NoNvidiaSmiIsAClearError) {
  FakeRunner runner({});
  auto devices = DetectCuda(runner, {});
  ASSERT_FALSE(devices.ok());
  EXPECT_THAT(devices.status().message(), ::testing::HasSubstr("nvidia-smi is not on PATH"));
}

TEST(GpuDetectTest, NamesWithCommasAndGarbage) {
  auto parsed = ParseNvidiaSmiQuery("0, NVIDIA A100, 80GB, GPU-a\n 1, Tesla T4, GPU-b \n");
  ASSERT_TRUE(parsed.ok());
  EXPECT_THAT(*parsed,
              ElementsAre(GpuDevice{.id = 0, .brand = "NVIDIA A100, 80GB", .uuid = "GPU-a"},
                          GpuDevice{.id = 1, .brand = "Tesla T4", .uuid = "GPU-b"}));
  auto bad = ParseNvidiaSmiQuery(
      "NVIDIA-SMI has failed because it couldn't communicate with the driver\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("INDEX, NAME, UUID"));
}

constexpr char kMigListing[] = R"(GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-aaaa)
  MIG 3g.20gb     Device  0: (UUID: MIG-0000)
  MIG 1g.5gb      Device  1: (UUID: MIG-1111)
GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-bbbb)
)";

TEST(GpuDetectTest, AMigGpuOffersItsInstances) {
  FakeRunner runner({
      {"nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader",
       "0, NVIDIA A100-SXM4-40GB, GPU-aaaa\n1, NVIDIA A100-SXM4-40GB, GPU-bbbb\n"},
      {"nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader", "Enabled\nDisabled\n"},
      {"nvidia-smi -L", kMigListing},
  });
  auto devices = DetectCuda(runner, {});
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(
      *devices,
      ElementsAre(
          GpuDevice{.id = 1, .brand = "NVIDIA A100-SXM4-40GB", .uuid = "GPU-bbbb"},
          GpuDevice{.id = 2, .brand = "NVIDIA A100-SXM4-40GB MIG 3g.20gb", .uuid = "MIG-0000"},
          GpuDevice{.id = 3, .brand = "NVIDIA A100-SXM4-40GB MIG 1g.5gb", .uuid = "MIG-1111"}));
}

TEST(GpuDetectTest, MigModeNotSupportedMeansWholeGpus) {
  FakeRunner runner(Outputs{
      {"nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader", "0, Tesla T4, GPU-t4\n"}});
  auto devices = DetectCuda(runner, {});
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(*devices, ElementsAre(GpuDevice{.id = 0, .brand = "Tesla T4", .uuid = "GPU-t4"}));
}

TEST(GpuDetectTest, RocmSmiJson) {
  FakeRunner runner(Outputs{{"rocm-smi --showproductname --showuniqueid --json",
                             R"({"card1": {"Card series": "AMD Instinct MI210", "Unique ID": "0x2"},
                          "card0": {"Card series": "", "Card SKU": "D67301", "Unique ID": "0x1"},
                          "system": {"Driver version": "6.7"}})"}});
  auto all = DetectRocm(runner, {});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(
      *all,
      ElementsAre(
          GpuDevice{.id = 0, .brand = "D67301", .uuid = "0x1", .type = GpuType::kRocm},
          GpuDevice{
              .id = 1, .brand = "AMD Instinct MI210", .uuid = "0x2", .type = GpuType::kRocm}));
  auto visible = DetectRocm(runner, {1});
  ASSERT_TRUE(visible.ok());
  ASSERT_EQ(visible->size(), 1u);
  EXPECT_EQ(visible->front().uuid, "0x2");
  EXPECT_FALSE(ParseRocmSmiJson("not json").ok());
}

TEST(ProcessCommandRunnerTest, CapturesOutputAndReportsFailures) {
  ProcessCommandRunner runner(std::chrono::seconds(5));
  auto echoed = runner.Run({"sh", "-c", "echo one; echo two >&2"});
  ASSERT_TRUE(echoed.ok()) << echoed.status();
  EXPECT_EQ(*echoed, "one\n");
  auto failed = runner.Run({"sh", "-c", "echo broken >&2; exit 9"});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), ::testing::HasSubstr("exited with status 9: broken"));
  auto missing = runner.Run({"no-such-tool-anywhere"});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  ProcessCommandRunner quick(std::chrono::milliseconds(200));
  EXPECT_EQ(quick.Run({"sleep", "5"}).status().code(), absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace det::agent
