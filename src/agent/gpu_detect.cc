#include "agent/gpu_detect.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace det::agent {

namespace {

std::vector<absl::string_view> Lines(absl::string_view text) {
  std::vector<absl::string_view> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// "(UUID: X)" at the end of an `nvidia-smi -L` line: X.
absl::string_view UuidOf(absl::string_view line) {
  const size_t at = line.rfind("(UUID: ");
  if (at == absl::string_view::npos || line.back() != ')') return {};
  return line.substr(at + 7, line.size() - at - 8);
}

}  // namespace

absl::StatusOr<std::vector<GpuDevice>> ParseNvidiaSmiQuery(absl::string_view csv) {
  std::vector<GpuDevice> out;
  for (absl::string_view line : Lines(csv)) {
    // index, name, uuid: the name may hold commas, the index and the uuid do not.
    const size_t first = line.find(','), last = line.rfind(',');
    GpuDevice device;
    if (first == last ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(0, first)), &device.id)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "nvidia-smi printed \"", line, "\" where \"INDEX, NAME, UUID\" was expected"));
    }
    device.brand =
        std::string(absl::StripAsciiWhitespace(line.substr(first + 1, last - first - 1)));
    device.uuid = std::string(absl::StripAsciiWhitespace(line.substr(last + 1)));
    out.push_back(std::move(device));
  }
  return out;
}

std::vector<bool> ParseMigModes(absl::string_view csv) {
  std::vector<bool> out;
  for (absl::string_view line : Lines(csv)) out.push_back(line == "Enabled");
  return out;
}

absl::StatusOr<std::vector<GpuDevice>> ParseMigInstances(
    absl::string_view listing, const std::vector<std::string>& mig_gpu_uuids) {
  std::vector<GpuDevice> out;
  std::string gpu_name;
  bool in_mig_gpu = false;
  for (absl::string_view line : Lines(listing)) {
    if (absl::StartsWith(line, "GPU ")) {
      // "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-...)"
      const size_t colon = line.find(": "), paren = line.rfind(" (UUID: ");
      if (colon == absl::string_view::npos || paren == absl::string_view::npos || paren < colon) {
        return absl::InvalidArgumentError(absl::StrCat("nvidia-smi -L printed \"", line, "\""));
      }
      gpu_name = std::string(line.substr(colon + 2, paren - colon - 2));
      const std::string uuid(UuidOf(line));
      in_mig_gpu =
          std::find(mig_gpu_uuids.begin(), mig_gpu_uuids.end(), uuid) != mig_gpu_uuids.end();
      continue;
    }
    if (!in_mig_gpu || !absl::StartsWith(line, "MIG ")) continue;
    // "MIG 1g.5gb      Device  0: (UUID: MIG-...)"
    const size_t device_at = line.find(" Device ");
    const absl::string_view uuid = UuidOf(line);
    if (device_at == absl::string_view::npos || uuid.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("nvidia-smi -L printed \"", line, "\""));
    }
    const absl::string_view profile = absl::StripAsciiWhitespace(line.substr(4, device_at - 4));
    out.push_back({.id = static_cast<int>(out.size()),
                   .brand = absl::StrCat(gpu_name, " MIG ", profile),
                   .uuid = std::string(uuid),
                   .type = GpuType::kCuda});
  }
  return out;
}

absl::StatusOr<std::vector<GpuDevice>> ParseRocmSmiJson(absl::string_view text) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object()) return absl::InvalidArgumentError("rocm-smi --json printed no JSON object");
  std::vector<GpuDevice> out;
  for (const auto& [card, facts] : doc.items()) {
    GpuDevice device{.type = GpuType::kRocm};
    if (!absl::StartsWith(card, "card") || !absl::SimpleAtoi(card.substr(4), &device.id) ||
        !facts.is_object()) {
      continue;  // "system" and other summaries
    }
    for (const char* key : {"Card series", "Card SKU", "Card model"}) {
      if (facts.contains(key) && facts[key].is_string() && !facts[key].get<std::string>().empty()) {
        device.brand = facts[key].get<std::string>();
        break;
      }
    }
    if (facts.contains("Unique ID") && facts["Unique ID"].is_string())
      device.uuid = facts["Unique ID"];
    out.push_back(std::move(device));
  }
  std::sort(out.begin(), out.end(),
            [](const GpuDevice& a, const GpuDevice& b) { return a.id < b.id; });
  return out;
}

absl::StatusOr<std::vector<GpuDevice>> DetectCuda(CommandRunner& runner,
                                                  const std::vector<int>& visible) {
  std::vector<std::string> ids;
  if (!visible.empty()) ids.push_back(absl::StrCat("--id=", absl::StrJoin(visible, ",")));
  auto query = [&](std::string fields) {
    std::vector<std::string> argv = {"nvidia-smi", absl::StrCat("--query-gpu=", fields),
                                     "--format=csv,noheader"};
    argv.insert(argv.end(), ids.begin(), ids.end());
    return runner.Run(argv);
  };
  ASSIGN_OR_RETURN(std::string listed, query("index,name,uuid"));
  ASSIGN_OR_RETURN(std::vector<GpuDevice> gpus, ParseNvidiaSmiQuery(listed));
  absl::StatusOr<std::string> modes = query("mig.mode.current");
  if (!modes.ok()) return gpus;  // drivers without MIG support answer an error: no MIG
  const std::vector<bool> mig = ParseMigModes(*modes);
  std::vector<std::string> mig_uuids;
  std::vector<GpuDevice> whole;
  for (size_t i = 0; i < gpus.size(); ++i) {
    (i < mig.size() && mig[i] ? mig_uuids.push_back(gpus[i].uuid) : whole.push_back(gpus[i]));
  }
  if (mig_uuids.empty()) return gpus;
  ASSIGN_OR_RETURN(std::string listing, runner.Run({"nvidia-smi", "-L"}));
  ASSIGN_OR_RETURN(std::vector<GpuDevice> instances, ParseMigInstances(listing, mig_uuids));
  // Whole GPUs keep their index; the MIG instances are numbered after the highest of them.
  int next_id = 0;
  for (const GpuDevice& gpu : whole) next_id = std::max(next_id, gpu.id + 1);
  for (GpuDevice& instance : instances) {
    instance.id = next_id++;
    whole.push_back(std::move(instance));
  }
  return whole;
}

absl::StatusOr<std::vector<GpuDevice>> DetectRocm(CommandRunner& runner,
                                                  const std::vector<int>& visible) {
  ASSIGN_OR_RETURN(std::string out,
                   runner.Run({"rocm-smi", "--showproductname", "--showuniqueid", "--json"}));
  ASSIGN_OR_RETURN(std::vector<GpuDevice> all, ParseRocmSmiJson(out));
  if (visible.empty()) return all;
  std::vector<GpuDevice> shown;
  for (GpuDevice& device : all) {
    if (std::find(visible.begin(), visible.end(), device.id) != visible.end())
      shown.push_back(std::move(device));
  }
  return shown;
}

}  // namespace det::agent
