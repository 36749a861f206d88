#include "master/naming.h"

#include <array>
#include <random>

#include "absl/strings/str_cat.h"

namespace det::master {

std::string GeneratePetName() {
  static constexpr std::array<const char*, 16> kAdjectives = {
      "brave", "calm", "eager", "fancy", "gentle", "happy", "jolly", "kind",
      "lively", "merry", "nimble", "proud", "quick", "silly", "witty", "zesty"};
  static constexpr std::array<const char*, 16> kNouns = {
      "otter", "falcon", "badger", "heron", "lynx", "marten", "newt", "owl",
      "panda", "quail", "raven", "seal", "tapir", "walrus", "yak", "zebra"};
  thread_local std::mt19937 rng{std::random_device{}()};
  auto pick = [](const auto& words) { return words[rng() % words.size()]; };
  return absl::StrCat(pick(kAdjectives), "-", pick(kNouns), "-", pick(kNouns));
}

std::string GenerateExperimentName() { return absl::StrCat("Experiment (", GeneratePetName(), ")"); }

}  // namespace det::master
