#include "agent/offered_slots.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/gpu_detect.h"

namespace det::agent {

namespace {

std::vector<api::SlotInfo> GpuSlots(const std::vector<GpuDevice>& gpus) {
  std::vector<api::SlotInfo> out;
  for (const GpuDevice& gpu : gpus) {
    out.push_back({.id = gpu.id,
                   .type = gpu.type == GpuType::kCuda ? "cuda" : "rocm",
                   .device = gpu.brand,
                   .uuid = gpu.uuid});
  }
  return out;
}

std::vector<api::SlotInfo> CpuSlots(int count) {
  std::vector<api::SlotInfo> out;
  for (int i = 0; i < count; ++i)
    out.push_back({.id = i, .type = "cpu", .device = "cpu", .uuid = ""});
  return out;
}

// The GPUs of one kind, or why there are none.
absl::StatusOr<std::vector<GpuDevice>> Find(GpuType type, CommandRunner& runner,
                                            const std::vector<int>& visible) {
  absl::StatusOr<std::vector<GpuDevice>> found =
      type == GpuType::kCuda ? DetectCuda(runner, visible) : DetectRocm(runner, visible);
  const char* kind = type == GpuType::kCuda ? "CUDA" : "ROCm";
  if (!found.ok())
    return absl::NotFoundError(absl::StrCat("no ", kind, " GPU found: ", found.status().message()));
  if (found->empty()) {
    return absl::NotFoundError(absl::StrCat("no ", kind, " GPU found",
                                            visible.empty() ? "" : " among --visible-gpus ",
                                            absl::StrJoin(visible, ",")));
  }
  return found;
}

}  // namespace

absl::StatusOr<std::vector<api::SlotInfo>> OfferedSlots(const AgentFileConfig& config,
                                                        CommandRunner& runner,
                                                        std::vector<std::string>& notes) {
  switch (config.slot_type) {
    case SlotType::kNone:
      return std::vector<api::SlotInfo>{};
    case SlotType::kCpu:
      return CpuSlots(config.slots);
    case SlotType::kCuda:
    case SlotType::kRocm: {
      const GpuType type = config.slot_type == SlotType::kCuda ? GpuType::kCuda : GpuType::kRocm;
      absl::StatusOr<std::vector<GpuDevice>> gpus = Find(type, runner, config.visible_gpus);
      if (!gpus.ok()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "slot_type ", type == GpuType::kCuda ? "cuda" : "rocm", ": ", gpus.status().message()));
      }
      return GpuSlots(*gpus);
    }
    case SlotType::kAuto:
      break;
  }
  for (GpuType type : {GpuType::kCuda, GpuType::kRocm}) {
    absl::StatusOr<std::vector<GpuDevice>> gpus = Find(type, runner, config.visible_gpus);
    if (gpus.ok()) return GpuSlots(*gpus);
    notes.push_back(std::string(gpus.status().message()));
  }
  notes.push_back(absl::StrCat("slot_type auto: offering ", config.slots, " CPU slot(s)"));
  return CpuSlots(config.slots);
}

std::string DescribeSlots(const std::vector<api::SlotInfo>& slots) {
  if (slots.empty()) return "no slot";
  if (slots.front().type == "cpu") return absl::StrCat(slots.size(), " CPU slot(s)");
  return absl::StrCat(slots.size(), " ", slots.front().type, " slot(s) (",
                      absl::StrJoin(slots, ", ",
                                    [](std::string* out, const api::SlotInfo& s) {
                                      absl::StrAppend(out, s.id, ": ", s.device, " ", s.uuid);
                                    }),
                      ")");
}

}  // namespace det::agent
